/**
 * The admin page: sign in, see who you are and the declared resources, browse a collection
 * (filters, sort, keyset pages), create / edit / delete a record and edit its permissions per
 * principal. Everything goes through the public API (api.ts); text is only ever set as text.
 */
import { Api, ApiError, basicAuthorization, isObject, type Detail, type Json, type JsonObject, type Resource, type Root } from "./api.js";

const CREDENTIALS_KEY = "tessera.admin.authorization";

function element<T extends HTMLElement = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`#${id} is missing from the page`);
  return found as T;
}

function make<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className !== undefined) node.className = className;
  return node;
}

/** A form field as text (a file input would give a File). */
function field(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === "string" ? value : "";
}

function text(value: Json | undefined): string {
  return typeof value === "string" ? value : JSON.stringify(value ?? null);
}

const VIEWS = ["sign-in-view", "home-view", "collection-view", "record-view"] as const;

function show(view: (typeof VIEWS)[number]): void {
  for (const id of VIEWS) element(id).hidden = id !== view;
  element("session").hidden = view === "sign-in-view";
}

function say(text: string, isError = false): void {
  const message = element("message");
  message.textContent = text;
  message.className = isError ? "error" : "";
  message.hidden = text === "";
}

function fail(error: unknown): void {
  say(error instanceof Error ? error.message : String(error), true);
}

/** A 400's details, one line each: `body data.title: ...`. */
function showDetails(list: HTMLElement, details: readonly Detail[], fallback: string): void {
  list.replaceChildren(
    ...(details.length > 0
      ? details.map((d) => make("li", `${[d.location, d.name].filter(Boolean).join(" ")}: ${d.description ?? ""}`))
      : [make("li", fallback)]),
  );
}

interface Listing {
  readonly resource: Resource;
  query: string;
}

class AdminPage {
  private api: Api | undefined;
  private root: Root = {};
  private listing: Listing | undefined;
  private record: { id: string | undefined; lastModified: number | undefined; permissions: Record<string, string[]> } | undefined;

  start(): void {
    element<HTMLFormElement>("sign-in").addEventListener("submit", (event) => {
      event.preventDefault();
      const form = new FormData(event.target as HTMLFormElement);
      void this.signIn(basicAuthorization(field(form, "user"), field(form, "password")));
    });
    element("sign-out").addEventListener("click", () => this.signOut());
    element("to-home").addEventListener("click", (event) => {
      event.preventDefault();
      this.home();
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
    const saved = sessionStorage.getItem(CREDENTIALS_KEY);
    if (saved) void this.signIn(saved);
    else show("sign-in-view");
  }

  private async signIn(authorization: string): Promise<void> {
    say("");
    try {
      const answer = await new Api(authorization).call("GET", "/");
      const root = (answer.body ?? {}) as Root;
      if (!root.user) throw new Error("These credentials are not accepted by the service.");
      this.api = new Api(authorization);
      this.root = root;
      sessionStorage.setItem(CREDENTIALS_KEY, authorization);
      this.home();
    } catch (error) {
      sessionStorage.removeItem(CREDENTIALS_KEY);
      show("sign-in-view");
      fail(error);
    }
  }

  private signOut(): void {
    sessionStorage.removeItem(CREDENTIALS_KEY);
    this.api = undefined;
    this.root = {};
    element<HTMLFormElement>("sign-in").reset();
    say("");
    show("sign-in-view");
  }

  private home(): void {
    const user = this.root.user;
    element("user-id").textContent = user?.id ?? "";
    element("home-user-id").textContent = user?.id ?? "";
    element("principals").replaceChildren(...(user?.principals ?? []).map((p) => make("li", p)));
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
    say(resources.length === 0 ? "The service declares no resources." : "");
    show("home-view");
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

  /** First page of a listing; `next` follows the service's Next-Page URL instead. */
  private async list(resource: Resource, query: string, next?: string): Promise<void> {
    if (!this.api) return;
    say("");
    this.listing = { resource, query };
    element("collection-name").textContent = resource.name;
    element("collection-kind").textContent = resource.kind;
    try {
      const first = `/${resource.name}${query ? `?${query}` : ""}`;
      const answer = await this.api.call("GET", next ?? first);
      const records = isObject(answer.body) && Array.isArray(answer.body.data) ? answer.body.data.filter(isObject) : [];
      // The count comes with HEAD only (as in Kinto); asked once per listing, not per page.
      if (next === undefined)
        element("total").textContent = `${(await this.api.call("HEAD", first)).headers.get("Total-Objects") ?? "?"} records match`;
      element("records")
        .querySelector("tbody")
        ?.replaceChildren(...records.map((record) => this.row(record)));
      const nextPage = answer.headers.get("Next-Page");
      const button = element("next-page");
      button.hidden = nextPage === null;
      button.onclick = nextPage === null ? null : () => void this.list(resource, query, nextPage);
      show("collection-view");
    } catch (error) {
      fail(error);
    }
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
      fail(error);
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
      permissions: Object.fromEntries(
        Object.entries(permissions).map(([name, principals]) => [name, Array.isArray(principals) ? principals.map(String) : []]),
      ),
    };
    element("record-title").textContent = this.record.id
      ? `${this.listing.resource.name} / ${this.record.id}`
      : `New record in ${this.listing.resource.name}`;
    element<HTMLTextAreaElement>("record-data").value = JSON.stringify(fields, null, 2);
    element("record-errors").replaceChildren();
    element("permission-errors").replaceChildren();
    element("delete-record").hidden = this.record.id === undefined;
    element("permissions-panel").hidden = this.record.id === undefined || this.listing.resource.kind !== "shareable";
    this.renderPermissions();
    show("record-view");
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
      else fail(error);
    }
  }

  private async remove(): Promise<void> {
    if (!this.api || !this.listing || !this.record?.id) return;
    try {
      await this.api.call("DELETE", `/${this.listing.resource.name}/${encodeURIComponent(this.record.id)}`);
      await this.list(this.listing.resource, this.listing.query);
      say(`Deleted ${this.record.id}.`);
    } catch (error) {
      fail(error);
    }
  }

  /** One row per principal, one checkbox per permission the resource stores. */
  private renderPermissions(): void {
    if (!this.listing || !this.record) return;
    const names = this.listing.resource.permissions;
    const principals = [...new Set(Object.values(this.record.permissions).flat())].sort();
    const table = element<HTMLTableElement>("permissions");
    table.tHead?.rows[0]?.replaceChildren(make("th", "principal"), ...names.map((name) => make("th", name)));
    table.tBodies[0]?.replaceChildren(
      ...principals.map((principal) => {
        const row = make("tr");
        row.dataset.principal = principal;
        row.append(make("td", principal));
        for (const name of names) {
          const box = make("input");
          box.type = "checkbox";
          box.name = name;
          box.checked = this.record?.permissions[name]?.includes(principal) ?? false;
          box.setAttribute("aria-label", `${name} for ${principal}`);
          const cell = make("td");
          cell.append(box);
          row.append(cell);
        }
        return row;
      }),
    );
  }

  private addPrincipal(): void {
    if (!this.record) return;
    const input = element<HTMLFormElement>("permissions-form").elements.namedItem("principal") as HTMLInputElement;
    const principal = input.value.trim();
    if (!principal) return;
    this.readPermissions();
    const first = this.listing?.resource.permissions[0];
    if (first && !Object.values(this.record.permissions).some((list) => list.includes(principal)))
      (this.record.permissions[first] ??= []).push(principal);
    input.value = "";
    this.renderPermissions();
  }

  /** The checkboxes back into `permission → principals`. */
  private readPermissions(): Record<string, string[]> {
    const permissions: Record<string, string[]> = Object.fromEntries(
      (this.listing?.resource.permissions ?? []).map((name) => [name, [] as string[]]),
    );
    for (const row of element<HTMLTableElement>("permissions").tBodies[0]?.rows ?? []) {
      for (const box of row.querySelectorAll<HTMLInputElement>("input[type=checkbox]"))
        if (box.checked) permissions[box.name]?.push(row.dataset.principal ?? "");
    }
    if (this.record) this.record.permissions = permissions;
    return permissions;
  }

  private async savePermissions(): Promise<void> {
    if (!this.api || !this.listing || !this.record?.id) return;
    try {
      const permissions = this.readPermissions();
      const answer = await this.api.call("PATCH", `/${this.listing.resource.name}/${encodeURIComponent(this.record.id)}`, { permissions });
      const body = isObject(answer.body) ? answer.body : {};
      this.edit(isObject(body.data) ? body.data : {}, isObject(body.permissions) ? body.permissions : {});
      say("Permissions saved.");
    } catch (error) {
      if (error instanceof ApiError && error.status === 400) showDetails(element("permission-errors"), error.details, error.message);
      else fail(error);
    }
  }
}

new AdminPage().start();
