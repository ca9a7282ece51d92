/**
 * A record's permissions as the page edits them: one row per principal (shown readably), one
 * checkbox per permission the resource stores; and the sharing field's suggestions.
 */
import { isObject, type Api } from "./api.js";
import { element, make, principalText } from "./dom.js";

export class PermissionsTable {
  private names: readonly string[] = [];
  private permissions: Record<string, string[]> = {};
  private you: string | undefined;

  /** `names`: the resource's permissions, in its order; `you`: the signed-in user id, marked as such. */
  show(names: readonly string[], permissions: Readonly<Record<string, readonly string[]>>, you: string | undefined): void {
    this.names = names;
    this.permissions = Object.fromEntries(Object.entries(permissions).map(([name, principals]) => [name, [...principals]]));
    this.you = you;
    this.render();
  }

  /** A principal not listed yet gets the first permission (read); the boxes ticked so far are kept. */
  add(principal: string): void {
    this.read();
    const first = this.names[0];
    if (first !== undefined && !Object.values(this.permissions).some((list) => list.includes(principal)))
      (this.permissions[first] ??= []).push(principal);
    this.render();
  }

  /** The checkboxes back into `permission → principals`. */
  read(): Record<string, string[]> {
    const permissions: Record<string, string[]> = Object.fromEntries(this.names.map((name) => [name, [] as string[]]));
    for (const row of element<HTMLTableElement>("permissions").tBodies[0]?.rows ?? []) {
      for (const box of row.querySelectorAll<HTMLInputElement>("input[type=checkbox]"))
        if (box.checked) permissions[box.name]?.push(row.dataset.principal ?? "");
    }
    this.permissions = permissions;
    return permissions;
  }

  private render(): void {
    const principals = [...new Set(Object.values(this.permissions).flat())].sort();
    const table = element<HTMLTableElement>("permissions");
    table.tHead?.rows[0]?.replaceChildren(make("th", "principal"), ...this.names.map((name) => make("th", name)));
    table.tBodies[0]?.replaceChildren(
      ...principals.map((principal) => {
        const row = make("tr");
        row.dataset.principal = principal;
        row.append(principalText(make("td", undefined, "principal"), principal, this.you));
        for (const name of this.names) {
          const box = make("input");
          box.type = "checkbox";
          box.name = name;
          box.checked = this.permissions[name]?.includes(principal) ?? false;
          box.setAttribute("aria-label", `${name} for ${principal}`); // the full principal, whatever is shown
          const cell = make("td");
          cell.append(box);
          row.append(cell);
        }
        return row;
      }),
    );
  }
}

/**
 * The accounts the caller may see (`GET /v1/accounts`: its own, or every account for an
 * administrator or where the service lets everyone read them), as principals; none when it may
 * not list them.
 */
export async function visibleAccounts(api: Api): Promise<string[]> {
  try {
    const answer = await api.call("GET", "/accounts");
    return (isObject(answer.body) && Array.isArray(answer.body.data) ? answer.body.data.filter(isObject) : [])
      .map((account) => account.id)
      .filter((id): id is string => typeof id === "string")
      .map((id) => `account:${id}`);
  } catch {
    return [];
  }
}

/** The sharing field's suggestions (a datalist: typing any other principal stays possible). */
export function offerPrincipals(choices: readonly string[]): void {
  element("principal-choices").replaceChildren(
    ...[...new Set(choices)].map((choice) => {
      const option = make("option");
      option.value = choice;
      return option;
    }),
  );
}
