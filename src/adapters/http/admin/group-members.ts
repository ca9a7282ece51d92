/**
 * A group's members as a tree: its direct members, and under each member that is itself a group
 * (`group:x`), on demand, that group's members as `GET /v1/groups/x` answers them, each with the
 * chain through which it belongs (`account:bob ← group:x ← group:team`). A group the caller may not
 * read says so in place. Everything shown is what the API answered, as text.
 */
import { ApiError, isObject, type Api, type Json } from "./api.js";
import { make, principalText } from "./dom.js";
import { readablePrincipal } from "./principals.js";

const GROUP = "group:";

/** `group:x` → `x`; undefined for any other principal. */
export function groupIdOf(principal: string): string | undefined {
  return principal.startsWith(GROUP) && principal.length > GROUP.length ? principal.slice(GROUP.length) : undefined;
}

/** The members a group's answer lists (strings only). */
export function membersOf(body: Json | undefined): string[] {
  const data = isObject(body) ? body.data : undefined;
  const members = isObject(data) ? data.members : undefined;
  return Array.isArray(members) ? members.filter((m): m is string => typeof m === "string") : [];
}

/** `bob ← group:x ← group:team`: from the member up to the group on screen, as people read principals. */
export function chainText(chain: readonly string[]): string {
  return chain.map((step) => readablePrincipal(step).text).join(" ← ");
}

export interface MemberTreeOptions {
  readonly api: Api;
  /** The signed-in user id, marked "(you)". */
  readonly you: string | undefined;
  /** Called with a direct member to take it out of the group on screen. */
  readonly remove: (member: string) => void;
}

export class MemberTree {
  constructor(private readonly options: MemberTreeOptions) {}

  /** The items for `members` of the group at the head of `above` (the group on screen is last). */
  items(members: readonly string[], above: readonly string[]): HTMLLIElement[] {
    return members.map((member) => this.item(member, above));
  }

  private item(member: string, above: readonly string[]): HTMLLIElement {
    const chain = [member, ...above];
    const item = make("li");
    item.dataset.member = member;
    item.dataset.chain = chain.join(" ← ");
    item.append(principalText(make("code"), member, this.options.you));
    const path = make("span", ` ${chainText(chain)}`, "chain");
    path.title = chain.join(" ← ");
    item.append(path);
    const id = groupIdOf(member);
    if (id !== undefined && above.includes(member)) {
      // A cycle: the group is already above; its members are those shown there.
      item.append(make("span", " (a cycle: this group is already above)", "hint"));
    } else if (id !== undefined) {
      const nested = make("ul", undefined, "members");
      const expand = make("button", "Show members", "expand");
      expand.type = "button";
      expand.addEventListener("click", () => void this.toggle(id, chain, expand, nested));
      item.append(expand);
      item.append(nested);
    }
    if (above.length === 1) {
      const remove = make("button", "Remove", "remove danger");
      remove.type = "button";
      remove.setAttribute("aria-label", `Remove ${member}`);
      remove.addEventListener("click", () => this.options.remove(member));
      item.append(remove);
    }
    return item;
  }

  /** Reads the nested group once, shows or hides its members. */
  private async toggle(id: string, chain: readonly string[], button: HTMLButtonElement, nested: HTMLUListElement): Promise<void> {
    if (button.dataset.open === "true") {
      button.dataset.open = "false";
      button.textContent = "Show members";
      nested.replaceChildren();
      return;
    }
    button.dataset.open = "true";
    button.textContent = "Hide members";
    nested.replaceChildren(make("li", "…", "hint"));
    try {
      const answer = await this.options.api.call("GET", `/groups/${encodeURIComponent(id)}`);
      const members = membersOf(answer.body);
      nested.replaceChildren(...(members.length > 0 ? this.items(members, chain) : [make("li", "no members", "hint")]));
    } catch (error) {
      nested.replaceChildren(make("li", unreadable(error), "denied"));
    }
  }
}

/** Why a nested group's members are not shown: a 403 or 404 is "not readable" (the service does not tell which). */
function unreadable(error: unknown): string {
  if (error instanceof ApiError && (error.status === 403 || error.status === 404))
    return `not readable (${error.status}: ${error.message})`;
  return `could not be read: ${error instanceof Error ? error.message : String(error)}`;
}
