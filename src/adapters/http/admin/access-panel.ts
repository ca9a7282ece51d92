/**
 * The record view's "why and who": for the signed-in user, whether they may read and write the
 * record and through what (the service's explain), and who may read it, through groups (its
 * readers, shown to writers only). Everything shown is what the API answered, as text.
 */
import { ApiError, isObject, type Answer, type Api, type Json } from "./api.js";
import { element, make, principalText, text } from "./dom.js";

const PERMISSIONS = ["read", "write"] as const;

/** One line of explain: "You may read: record ACL read names group:a (you → group:a)". */
function explainLine(permission: string, data: Json | undefined, you: string | undefined): HTMLLIElement {
  const item = make("li");
  item.dataset.permission = permission;
  if (!isObject(data)) return item;
  const allowed = data.allowed === true;
  item.className = allowed ? "allowed" : "denied";
  item.append(make("strong", `${allowed ? "You may" : "You may not"} ${permission}`));
  const grants = Array.isArray(data.grants) ? data.grants.filter(isObject) : [];
  if (!allowed) {
    item.append(make("span", ": no grant names any of your principals."));
    return item;
  }
  const reasons = make("ul");
  for (const grant of grants) {
    const reason = make("li");
    const source = typeof grant.setting === "string" ? `setting ${grant.setting}` : `${text(grant.source)} ACL`;
    reason.append(make("span", `${text(grant.permission)} on ${text(grant.uri)} (${source}) names `));
    const principals = Array.isArray(grant.principals) ? grant.principals.filter(isObject) : [];
    principals.forEach((held, i) => {
      if (i > 0) reason.append(make("span", ", "));
      reason.append(principalText(make("code"), text(held.principal), you));
      const chain = Array.isArray(held.chain) ? held.chain.map(String) : [];
      if (chain.length > 1) {
        const path = make("span", " via ", "chain");
        chain.forEach((step, j) => {
          if (j > 0) path.append(make("span", " → "));
          path.append(principalText(make("code"), step, you));
        });
        reason.append(path);
      }
    });
    reasons.append(reason);
  }
  item.append(reasons);
  return item;
}

/** The answer, or the refusal as an ApiError (a network failure too, as status 0). */
async function attempt(api: Api, target: string): Promise<Answer | ApiError> {
  try {
    return await api.call("GET", target);
  } catch (error) {
    return error instanceof ApiError ? error : new ApiError(0, error instanceof Error ? error.message : String(error), []);
  }
}

export class AccessPanel {
  private next: string | undefined;

  constructor(private readonly you: () => string | undefined) {
    element("more-readers").addEventListener("click", () => void this.morePages());
  }

  private api: Api | undefined;

  /** Fills the panel for one record (hidden for kinds without ACL: the caller's own records). */
  async show(api: Api, collection: string, id: string): Promise<void> {
    this.api = api;
    this.next = undefined;
    const base = `/${collection}/${encodeURIComponent(id)}`;
    const list = element("explain-list");
    const readers = element("readers-list");
    list.replaceChildren();
    readers.replaceChildren();
    element("readers-note").textContent = "";
    element("more-readers").hidden = true;
    element("access-panel").hidden = false;
    const answers = await Promise.all(PERMISSIONS.map((permission) => attempt(api, `${base}/explain?permission=${permission}`)));
    answers.forEach((answer, i) => {
      const permission = PERMISSIONS[i] ?? "read";
      if (!(answer instanceof ApiError))
        list.append(explainLine(permission, isObject(answer.body) ? answer.body.data : undefined, this.you()));
      else list.append(make("li", `You may not ${permission} (the service answered ${answer.status}).`, "denied"));
    });
    await this.page(`${base}/readers?_limit=20`);
  }

  private async morePages(): Promise<void> {
    if (this.next) await this.page(this.next);
  }

  private async page(target: string): Promise<void> {
    if (!this.api) return;
    const answer = await attempt(this.api, target);
    const note = element("readers-note");
    if (answer instanceof ApiError) {
      note.textContent =
        answer.status === 403 || answer.status === 401 ? "Only those who may write this record see who may read it." : answer.message;
      return;
    }
    if (!isObject(answer.body) || !Array.isArray(answer.body.data)) return;
    for (const reader of answer.body.data.filter(isObject)) {
      const item = make("li");
      item.append(principalText(make("code"), text(reader.principal), this.you()));
      const through = Array.isArray(reader.through) ? reader.through.map(String) : [];
      if (through.length > 0) {
        item.append(make("span", " through "));
        through.forEach((group, i) => {
          if (i > 0) item.append(make("span", ", "));
          item.append(principalText(make("code"), group, this.you()));
        });
      }
      element("readers-list").append(item);
    }
    this.next = answer.headers.get("Next-Page") ?? undefined;
    element("more-readers").hidden = this.next === undefined;
  }

  hide(): void {
    element("access-panel").hidden = true;
  }
}
