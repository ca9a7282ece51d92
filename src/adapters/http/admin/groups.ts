/**
 * The groups views: the groups the caller may read (`GET /v1/groups`, keyset pages), a new group
 * (`POST`, or `PUT` with `If-None-Match: *` for a chosen id), and one group: its members as a tree
 * (group-members.ts), a member added or removed with `PATCH` and `If-Match`, so that a change
 * made meanwhile by someone else is never overwritten (412: said, and the group read again).
 * Every refusal of the API is shown in the view, as text.
 */
import { ApiError, isObject, type Api, type Answer, type Json } from "./api.js";
import { element, field, make, say, text } from "./dom.js";
import { MemberTree, membersOf } from "./group-members.js";
import { principalFromInput, readablePrincipal } from "./principals.js";

export interface GroupsContext {
  readonly api: () => Api | undefined;
  /** The signed-in user id. */
  readonly you: () => string | undefined;
  /** Whether a bare name typed means an account (`bob` → `account:bob`). */
  readonly hasAccounts: () => boolean;
  readonly show: (view: "groups-view" | "group-view") => void;
  /** Suggestions for the member field, beside the page's own (accounts, system principals). */
  readonly offer: (groups: readonly string[]) => void;
  /** The group as a record of the `groups` collection: the page's record editor, its permissions table. */
  readonly openRecord: (id: string) => void;
  /** Handles what the whole page must (an expired sign-in); true when it did. */
  readonly expired: (error: unknown) => boolean;
}

interface OpenGroup {
  readonly id: string;
  /** The group's ETag as read: every change is made `If-Match` it. */
  readonly etag: string | undefined;
  readonly members: readonly string[];
}

/** A refusal as lines: the message (with its status), then each 400 detail. */
export function showError(list: HTMLElement, error: unknown): void {
  if (!(error instanceof ApiError)) {
    list.replaceChildren(make("li", error instanceof Error ? error.message : String(error)));
    return;
  }
  const refused = error.status === 403 ? "Not allowed (403)" : `${error.status}`;
  list.replaceChildren(
    make("li", `${refused}: ${error.message}`),
    ...error.details.map((d) => make("li", `${[d.location, d.name].filter(Boolean).join(" ")}: ${d.description ?? ""}`)),
  );
}

function etagOf(answer: Answer): string | undefined {
  const header = answer.headers.get("ETag");
  if (header !== null) return header;
  const data = isObject(answer.body) ? answer.body.data : undefined;
  const lastModified = isObject(data) ? data.last_modified : undefined;
  return typeof lastModified === "number" ? `"${lastModified}"` : undefined;
}

/** `read: account:alice · write: account:alice`, as people read principals. */
function permissionsText(body: Json | undefined): string {
  const permissions = isObject(body) ? body.permissions : undefined;
  if (!isObject(permissions)) return "";
  return Object.entries(permissions)
    .map(([name, principals]) => {
      const list = Array.isArray(principals) ? principals.map((p) => readablePrincipal(text(p)).text) : [];
      return `${name}: ${list.length > 0 ? list.join(", ") : "nobody"}`;
    })
    .join(" · ");
}

export class GroupsPage {
  private next: string | undefined;
  private group: OpenGroup | undefined;

  constructor(private readonly context: GroupsContext) {
    element("more-groups").addEventListener("click", () => void (this.next ? this.page(this.next, true) : undefined));
    element<HTMLFormElement>("new-group").addEventListener("submit", (event) => {
      event.preventDefault();
      void this.create();
    });
    element<HTMLFormElement>("add-member").addEventListener("submit", (event) => {
      event.preventDefault();
      void this.add();
    });
    element("group-record").addEventListener("click", () => {
      if (this.group) this.context.openRecord(this.group.id);
    });
    element("to-groups-list").addEventListener("click", (event) => {
      event.preventDefault();
      void this.list();
    });
  }

  /** The groups view, from its first page. */
  async list(): Promise<void> {
    say("");
    this.group = undefined;
    element("groups").replaceChildren();
    element("groups-errors").replaceChildren();
    this.context.show("groups-view");
    await this.page("/groups", false);
  }

  private async page(target: string, more: boolean): Promise<void> {
    const api = this.context.api();
    if (!api) return;
    try {
      const answer = await api.call("GET", target);
      const groups = isObject(answer.body) && Array.isArray(answer.body.data) ? answer.body.data.filter(isObject) : [];
      const items = groups.map((group) => this.groupLink(text(group.id), group.members));
      if (more) element("groups").append(...items);
      else element("groups").replaceChildren(...items);
      this.next = answer.headers.get("Next-Page") ?? undefined;
      element("more-groups").hidden = this.next === undefined;
      if (!more && groups.length === 0) element("groups").append(make("li", "No group you may read.", "hint"));
    } catch (error) {
      if (!this.context.expired(error)) showError(element("groups-errors"), error);
    }
  }

  private groupLink(id: string, members: Json | undefined): HTMLLIElement {
    const item = make("li");
    const link = make("a", `group:${id}`);
    link.href = "#";
    link.dataset.group = id;
    const count = Array.isArray(members) ? members.length : undefined;
    if (count !== undefined) link.append(make("small", ` (${count} member${count === 1 ? "" : "s"})`));
    link.addEventListener("click", (event) => {
      event.preventDefault();
      void this.open(id);
    });
    item.append(link);
    return item;
  }

  private async create(): Promise<void> {
    const api = this.context.api();
    if (!api) return;
    const form = element<HTMLFormElement>("new-group");
    const id = field(new FormData(form), "id").trim();
    const errors = element("groups-errors");
    errors.replaceChildren();
    const body = { data: { members: [] } };
    try {
      // A chosen id is created, never overwritten: an existing group answers 412.
      const answer =
        id === ""
          ? await api.call("POST", "/groups", body)
          : await api.call("PUT", `/groups/${encodeURIComponent(id)}`, body, { "If-None-Match": "*" });
      const data = isObject(answer.body) ? answer.body.data : undefined;
      const created = isObject(data) && typeof data.id === "string" ? data.id : id;
      form.reset();
      this.showGroup(created, answer);
      say(`Created group:${created}.`);
    } catch (error) {
      if (this.context.expired(error)) return;
      if (error instanceof ApiError && error.status === 412)
        errors.replaceChildren(make("li", `A group with the id ${id} exists already: pick another id.`));
      else showError(errors, error);
    }
  }

  /** One group, read afresh. */
  async open(id: string): Promise<void> {
    const api = this.context.api();
    if (!api) return;
    say("");
    try {
      this.showGroup(id, await api.call("GET", `/groups/${encodeURIComponent(id)}`));
    } catch (error) {
      if (this.context.expired(error)) return;
      this.context.show("groups-view");
      showError(element("groups-errors"), error);
    }
  }

  private showGroup(id: string, answer: Answer): void {
    const api = this.context.api();
    if (!api) return;
    const members = membersOf(answer.body);
    this.group = { id, etag: etagOf(answer), members };
    const principal = `group:${id}`;
    element("group-principal").textContent = principal;
    element("group-permissions").textContent = permissionsText(answer.body);
    element("group-errors").replaceChildren();
    const tree = new MemberTree({ api, you: this.context.you(), remove: (member) => void this.remove(member) });
    element("group-members").replaceChildren(...tree.items(members, [principal]));
    element("group-empty").hidden = members.length > 0;
    this.context.offer(members.filter((m) => m.startsWith("group:")));
    this.context.show("group-view");
  }

  private async add(): Promise<void> {
    const group = this.group;
    const input = element<HTMLFormElement>("add-member").elements.namedItem("member") as HTMLInputElement;
    const member = principalFromInput(input.value, this.context.hasAccounts());
    if (!group || member === "") return;
    if (group.members.includes(member)) {
      element("group-errors").replaceChildren(make("li", `${member} is a member already.`));
      return;
    }
    if (await this.change([...group.members, member], `Added ${member}.`)) input.value = "";
  }

  private async remove(member: string): Promise<void> {
    const group = this.group;
    if (!group) return;
    await this.change(
      group.members.filter((m) => m !== member),
      `Removed ${member}.`,
    );
  }

  /** Writes the group's new members over the version read; true when written. */
  private async change(members: readonly string[], done: string): Promise<boolean> {
    const api = this.context.api();
    const group = this.group;
    if (!api || !group) return false;
    try {
      const answer = await api.call(
        "PATCH",
        `/groups/${encodeURIComponent(group.id)}`,
        { data: { members: [...members] } },
        group.etag === undefined ? {} : { "If-Match": group.etag },
      );
      this.showGroup(group.id, answer);
      say(done);
      return true;
    } catch (error) {
      if (this.context.expired(error)) return false;
      if (error instanceof ApiError && error.status === 412) {
        await this.open(group.id);
        element("group-errors").replaceChildren(
          make(
            "li",
            `group:${group.id} was changed meanwhile by someone else; nothing was saved. Shown again as it is now: make your change again.`,
          ),
        );
      } else showError(element("group-errors"), error);
      return false;
    }
  }
}
