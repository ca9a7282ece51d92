/**
 * The admin page: sign in (an account, Basic Auth, or an OpenID Connect provider), see who you
 * are and the declared resources, browse a collection (filters, sort, keyset pages) that follows
 * the live feed, create / edit / delete a record and share it per principal, manage groups and
 * their members (groups.ts). Everything goes
 * through the public API (api.ts); text is only ever set as text.
 */
import { AccessPanel } from "./access-panel.js";
import { Api, ApiError, isObject, type Json, type JsonObject, type Resource, type Root } from "./api.js";
import { element, fail, field, make, principalText, say, showDetails, text } from "./dom.js";
import { GroupsPage } from "./groups.js";
import { LiveListing } from "./live-listing.js";
import { beginSignIn, completeSignIn, providersOf } from "./openid.js";
import { offerPrincipals, PermissionsTable, visibleAccounts } from "./permissions-table.js";
import { principalFromInput } from "./principals.js";
import { forgetToken, keepToken, keptToken, passwordCredential, tokenCredential, type Credential } from "./session.js";

/** The built-in group resource's collection. */
const GROUPS = "groups";
const VIEWS = ["sign-in-view", "home-view", "collection-view", "record-view", "groups-view", "group-view"] as const;
type View = (typeof VIEWS)[number];

interface Listing {
  readonly resource: Resource;
  query: string;
  /** The page shown: a Next-Page URL, or undefined for the first page. */
  page: string | undefined;
}

function messageOf(error: unknown): string {
  if (error instanceof ApiError && error.details.length > 0)
    return `${error.message} ${error.details.map((d) => `${d.name ?? d.location ?? ""}: ${d.description ?? ""}`).join("; ")}`;
  return error instanceof Error ? error.message : String(error);
}

class AdminPage {
  private anonymous = new Api(undefined);
  private credential: Credential | undefined;
  private api: Api | undefined;
  private root: Root = {};
  private listing: Listing | undefined;
  private live: LiveListing | undefined;
  private record: { id: string | undefined; lastModified: number | undefined } | undefined;
  private readonly permissions = new PermissionsTable();
  private readonly access = new AccessPanel(() => this.root.user?.id);
  /** Accounts the signed-in user may see (`GET /v1/accounts`), asked once per sign-in. */
  private accountChoices: Promise<string[]> | undefined;
  private readonly groups = new GroupsPage({
    api: () => this.api,
    you: () => this.root.user?.id,
    hasAccounts: () => this.hasAccounts,
    show: (view) => this.show(view),
    offer: (groups) => void this.offerPrincipals(groups),
    openRecord: (id) => void this.openGroupRecord(id),
    expired: (error) => this.expired(error),
  });

  async start(): Promise<void> {
    this.wire();
    show("sign-in-view");
    try {
      // Anonymous: which sign-ins the service offers.
      this.offerSignIns((await this.anonymous.call("GET", "/")).body);
      const returned = await completeSignIn();
      if (returned) keepToken(returned);
      const token = returned ?? keptToken();
      if (token) await this.signIn(tokenCredential(token));
    } catch (error) {
      fail(error);
    }
  }

  private wire(): void {
    element<HTMLFormElement>("sign-in").addEventListener("submit", (event) => {
      event.preventDefault();
      const form = new FormData(event.target as HTMLFormElement);
      void this.signIn(passwordCredential(field(form, "user"), field(form, "password")));
    });
    element("sign-up").addEventListener("click", () => void this.signUp());
    element("sign-out").addEventListener("click", () => this.signOut());
    element<HTMLFormElement>("change-password").addEventListener("submit", (event) => {
      event.preventDefault();
      void this.changePassword();
    });
    for (const link of ["to-home", "groups-to-home"])
      element(link).addEventListener("click", (event) => {
        event.preventDefault();
        this.home();
      });
    element("to-groups").addEventListener("click", (event) => {
      event.preventDefault();
      void this.groups.list();
    });
    element("to-collection").addEventListener("click", (event) => {
      event.preventDefault();
      if (this.listing) void this.list(this.listing.resource, this.listing.query);
    });
    element<HTMLFormElement>("list-form").addEventListener("submit", (event) => {
      event.preventDefault();
      if (this.listing) void this.list(this.listing.resource, this.queryFromForm());
    });
    element("new-record").addEventListener("click", () => this.edit(undefined));
    element<HTMLFormElement>("record-form").addEventListener("submit", (event) => {
      event.preventDefault();
      void this.save();
    });
    element("delete-record").addEventListener("click", () => void this.remove());
    element("add-principal").addEventListener("click", () => this.addPrincipal());
    element<HTMLFormElement>("permissions-form").addEventListener("submit", (event) => {
      event.preventDefault();
      void this.savePermissions();
    });
  }

  /** Shows one view; the live feed runs only while a collection is on screen. */
  private show(view: View): void {
    if (view !== "collection-view") this.stopFeed();
    show(view);
  }

  private get hasAccounts(): boolean {
    return isObject(this.root.capabilities) && Object.hasOwn(this.root.capabilities, "accounts");
  }

  /** "Create account" where the service has accounts; one button per OpenID Connect provider it lists. */
  private offerSignIns(body: Json | undefined): void {
    this.root = isObject(body) ? body : {};
    element("sign-up").hidden = !this.hasAccounts;
    const providers = providersOf(this.root.capabilities);
    element("providers").hidden = providers.length === 0;
    element("provider-list").replaceChildren(
      ...providers.map((provider) => {
        const button = make("button", provider.name);
        button.type = "button";
        button.dataset.provider = provider.name;
        button.addEventListener("click", () => void beginSignIn(provider).catch(fail));
        const item = make("li");
        item.append(button);
        return item;
      }),
    );
  }

  private async signUp(): Promise<void> {
    const form = element<HTMLFormElement>("sign-in");
    if (!form.reportValidity()) return;
    const data = new FormData(form);
    const [user, password] = [field(data, "user"), field(data, "password")];
    say("");
    try {
      // Kinto's accounts API: the new account's id and password, sent without credentials.
      await this.anonymous.call("POST", "/accounts", { data: { id: user, password } });
    } catch (error) {
      say(messageOf(error), true);
      return;
    }
    await this.signIn(passwordCredential(user, password));
  }

  private async signIn(credential: Credential): Promise<void> {
    say("");
    try {
      const api = new Api(credential.authorization);
      const root = ((await api.call("GET", "/")).body ?? {}) as Root;
      if (!root.user) throw new Error("These credentials are not accepted by the service.");
      this.api = api;
      this.credential = credential;
      this.root = root;
      this.accountChoices = undefined;
      element<HTMLFormElement>("sign-in").reset(); // the password stays in `credential` only
      this.home();
    } catch (error) {
      if (credential.provider !== undefined) forgetToken();
      this.show("sign-in-view");
      fail(error instanceof ApiError && error.status === 401 ? new Error("Wrong name or password, or an expired sign-in.") : error);
    }
  }

  /** A failure shown; a 401 while signed in with a token means it expired or was revoked: sign in again. */
  private fail(error: unknown): void {
    if (!this.expired(error)) fail(error);
  }

  /** True, after signing out, when the failure is a token that expired or was revoked. */
  private expired(error: unknown): boolean {
    if (!(error instanceof ApiError && error.status === 401 && this.credential?.provider !== undefined)) return false;
    this.signOut();
    say("Your sign-in has expired: please sign in again.", true);
    return true;
  }

  private signOut(): void {
    forgetToken();
    this.credential = undefined;
    this.api = undefined;
    this.listing = undefined;
    this.accountChoices = undefined;
    for (const form of ["sign-in", "change-password", "new-group", "add-member"]) element<HTMLFormElement>(form).reset();
    say("");
    this.show("sign-in-view");
    void this.anonymous.call("GET", "/").then((answer) => this.offerSignIns(answer.body), fail);
  }

  /** The signed-in account's id, as `PATCH /v1/accounts/{id}` names it. */
  private get accountId(): string | undefined {
    const id = this.root.user?.id;
    return id?.startsWith("account:") ? id.slice("account:".length) : undefined;
  }

  private async changePassword(): Promise<void> {
    const form = element<HTMLFormElement>("change-password");
    const data = new FormData(form);
    const password = field(data, "password");
    const account = this.accountId;
    if (!this.api || account === undefined) return;
    if (password !== field(data, "confirm")) {
      say("The two passwords differ.", true);
      return;
    }
    try {
      await this.api.call("PATCH", `/accounts/${encodeURIComponent(account)}`, { data: { password } });
      // Same account, same id; only what the page sends changes (memory again, never storage).
      this.credential = passwordCredential(account, password);
      this.api = new Api(this.credential.authorization);
      form.reset();
      say("Password changed.");
    } catch (error) {
      say(messageOf(error), true);
    }
  }

  private home(): void {
    const user = this.root.user;
    const id = user?.id ?? "";
    principalText(element("user-id"), id);
    element("home-user-id").textContent = id;
    element("principals").replaceChildren(...(user?.principals ?? []).map((p) => make("li", p)));
    element("change-password").hidden = this.accountId === undefined;
    // A name and password that are not an account's may still pass as a Basic Auth user: say so.
    const note = element("identity-note");
    note.textContent =
      this.hasAccounts && id.startsWith("basicauth:")
        ? "You are signed in with Basic Auth, not with an account: check the name and password if you meant your account."
        : "";
    note.hidden = note.textContent === "";
    const resources = this.root.resources ?? [];
    element("resources").replaceChildren(
      ...resources.map((resource) => {
        const item = make("li");
        const link = make("a", `${resource.name} (${resource.kind})`);
        link.href = "#";
        link.dataset.collection = resource.name;
        link.addEventListener("click", (event) => {
          event.preventDefault();
          void this.list(resource, "");
        });
        item.append(link);
        return item;
      }),
    );
    // The group resource is declared while the service keeps permissions: only then are there groups.
    element("groups-link").hidden = this.groupsResource === undefined;
    say(resources.length === 0 ? "The service declares no resources." : "");
    this.show("home-view");
  }

  private get groupsResource(): Resource | undefined {
    return this.root.resources?.find((resource) => resource.name === GROUPS);
  }

  /** A group in the record editor, as a record of the `groups` collection (its permissions, its other data). */
  private async openGroupRecord(id: string): Promise<void> {
    const resource = this.groupsResource;
    if (!resource) return;
    this.listing = { resource, query: "", page: undefined };
    await this.open(id);
  }

  private queryFromForm(): string {
    const form = new FormData(element<HTMLFormElement>("list-form"));
    const query = new URLSearchParams(field(form, "filters").replace(/^\?/, ""));
    const sort = field(form, "sort").trim();
    const limit = field(form, "limit").trim();
    if (sort) query.set("_sort", sort);
    if (limit) query.set("_limit", limit);
    return query.toString();
  }

  /** Opens a listing: its first page (`next`: the service's Next-Page URL instead), then follows the feed. */
  private async list(resource: Resource, query: string, next?: string): Promise<void> {
    if (!this.api) return;
    say("");
    this.listing = { resource, query, page: next };
    element("collection-name").textContent = resource.name;
    element("collection-kind").textContent = resource.kind;
    try {
      const since = await this.render(this.listing);
      this.show("collection-view");
      this.follow(this.listing, since);
    } catch (error) {
      this.fail(error);
    }
  }

  /** Reads and shows the listing's page; returns the collection's ETag (where the feed resumes). */
  private async render(listing: Listing): Promise<string | undefined> {
    if (!this.api) return undefined;
    const first = `/${listing.resource.name}${listing.query ? `?${listing.query}` : ""}`;
    const answer = await this.api.call("GET", listing.page ?? first);
    if (listing !== this.listing) return undefined; // another listing was opened meanwhile
    const records = isObject(answer.body) && Array.isArray(answer.body.data) ? answer.body.data.filter(isObject) : [];
    // The count comes with HEAD only (as in Kinto); asked for the first page only.
    if (listing.page === undefined)
      element("total").textContent = `${(await this.api.call("HEAD", first)).headers.get("Total-Objects") ?? "?"} records match`;
    element("records")
      .querySelector("tbody")
      ?.replaceChildren(...records.map((record) => this.row(record)));
    const nextPage = answer.headers.get("Next-Page");
    const button = element("next-page");
    button.hidden = nextPage === null;
    button.onclick = nextPage === null ? null : () => void this.list(listing.resource, listing.query, nextPage);
    return answer.headers.get("ETag")?.replace(/"/g, "") ?? undefined;
  }

  /** Follows the listing's collection live (live-listing.ts) while it is on screen. */
  private follow(listing: Listing, since: string | undefined): void {
    this.stopFeed();
    if (!this.credential) return;
    this.live = new LiveListing({
      collection: listing.resource.name,
      query: listing.query,
      since,
      authorization: this.credential.authorization,
      reread: () => this.render(listing),
      failed: (error) => this.fail(error),
      unauthorized: () => this.fail(new ApiError(401, "The live feed refused the credentials.", [])),
    });
  }

  private stopFeed(): void {
    this.live?.stop();
    this.live = undefined;
  }

  private row(record: JsonObject): HTMLTableRowElement {
    const { id, last_modified: lastModified, ...data } = record;
    const row = make("tr", undefined, "clickable");
    row.dataset.id = text(id);
    row.append(make("td", text(id)), make("td", text(lastModified)), make("td", JSON.stringify(data), "data"));
    row.addEventListener("click", () => void this.open(text(id)));
    return row;
  }

  private async open(id: string): Promise<void> {
    if (!this.api || !this.listing) return;
    try {
      const answer = await this.api.call("GET", `/${this.listing.resource.name}/${encodeURIComponent(id)}`);
      const body = isObject(answer.body) ? answer.body : {};
      const data = isObject(body.data) ? body.data : {};
      this.edit(data, isObject(body.permissions) ? body.permissions : {});
    } catch (error) {
      this.fail(error);
    }
  }

  /** The record editor: a new record when `data` is undefined. */
  private edit(data: JsonObject | undefined, permissions: JsonObject = {}): void {
    if (!this.listing) return;
    say("");
    const { id, last_modified: lastModified, ...fields } = data ?? {};
    this.record = {
      id: typeof id === "string" ? id : undefined,
      lastModified: typeof lastModified === "number" ? lastModified : undefined,
    };
    element("record-title").textContent = this.record.id
      ? `${this.listing.resource.name} / ${this.record.id}`
      : `New record in ${this.listing.resource.name}`;
    element<HTMLTextAreaElement>("record-data").value = JSON.stringify(fields, null, 2);
    element("record-errors").replaceChildren();
    element("permission-errors").replaceChildren();
    element("delete-record").hidden = this.record.id === undefined;
    const sharing = this.record.id !== undefined && this.listing.resource.kind === "shareable";
    element("permissions-panel").hidden = !sharing;
    this.permissions.show(
      this.listing.resource.permissions,
      Object.fromEntries(
        Object.entries(permissions).map(([name, principals]) => [name, Array.isArray(principals) ? principals.map(String) : []]),
      ),
      this.root.user?.id,
    );
    if (sharing) void this.offerPrincipals();
    if (sharing && this.api && this.record.id !== undefined) void this.access.show(this.api, this.listing.resource.name, this.record.id);
    else this.access.hide();
    this.show("record-view");
  }

  private async save(): Promise<void> {
    if (!this.api || !this.listing || !this.record) return;
    const errors = element("record-errors");
    let data: Json;
    try {
      data = JSON.parse(element<HTMLTextAreaElement>("record-data").value) as Json;
    } catch (error) {
      showDetails(errors, [], `Not JSON: ${(error as Error).message}`);
      return;
    }
    if (!isObject(data)) {
      showDetails(errors, [], "The data must be a JSON object.");
      return;
    }
    const collection = `/${this.listing.resource.name}`;
    try {
      const answer = this.record.id
        ? await this.api.call(
            "PUT",
            `${collection}/${encodeURIComponent(this.record.id)}`,
            { data },
            this.record.lastModified ? { "If-Match": `"${this.record.lastModified}"` } : {},
          )
        : await this.api.call("POST", collection, { data });
      const body = isObject(answer.body) ? answer.body : {};
      this.edit(isObject(body.data) ? body.data : {}, isObject(body.permissions) ? body.permissions : {});
      say("Saved.");
    } catch (error) {
      if (error instanceof ApiError && error.status === 400) showDetails(errors, error.details, error.message);
      else this.fail(error);
    }
  }

  private async remove(): Promise<void> {
    if (!this.api || !this.listing || !this.record?.id) return;
    try {
      await this.api.call("DELETE", `/${this.listing.resource.name}/${encodeURIComponent(this.record.id)}`);
      await this.list(this.listing.resource, this.listing.query);
      say(`Deleted ${this.record.id}.`);
    } catch (error) {
      this.fail(error);
    }
  }

  /** The sharing and member fields' suggestions: the accounts you may see, your groups (and `more`), the system principals. */
  private async offerPrincipals(more: readonly string[] = []): Promise<void> {
    const api = this.api;
    if (!api) return;
    this.accountChoices ??= this.hasAccounts ? visibleAccounts(api) : Promise.resolve([]);
    const groups = (this.root.user?.principals ?? []).filter((p) => p.startsWith("group:"));
    offerPrincipals([...(await this.accountChoices), ...groups, ...more, "system.Authenticated", "system.Everyone"]);
  }

  private addPrincipal(): void {
    const input = element<HTMLFormElement>("permissions-form").elements.namedItem("principal") as HTMLInputElement;
    const principal = principalFromInput(input.value, this.hasAccounts);
    if (!principal) return;
    this.permissions.add(principal);
    input.value = "";
  }

  private async savePermissions(): Promise<void> {
    if (!this.api || !this.listing || !this.record?.id) return;
    try {
      const permissions = this.permissions.read();
      const answer = await this.api.call("PATCH", `/${this.listing.resource.name}/${encodeURIComponent(this.record.id)}`, { permissions });
      const body = isObject(answer.body) ? answer.body : {};
      this.edit(isObject(body.data) ? body.data : {}, isObject(body.permissions) ? body.permissions : {});
      say("Permissions saved.");
    } catch (error) {
      if (error instanceof ApiError && error.status === 400) showDetails(element("permission-errors"), error.details, error.message);
      else this.fail(error);
    }
  }
}

function show(view: View): void {
  for (const id of VIEWS) element(id).hidden = id !== view;
  element("session").hidden = view === "sign-in-view";
}

void new AdminPage().start();
