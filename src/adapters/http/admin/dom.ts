/** Small DOM helpers of the admin page; text is only ever set as text. */
import type { Detail, Json } from "./api.js";
import { readablePrincipal } from "./principals.js";

export function element<T extends HTMLElement = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`#${id} is missing from the page`);
  return found as T;
}

export function make<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className !== undefined) node.className = className;
  return node;
}

/** A principal as people read it, its full text in the tooltip. */
export function principalText<T extends HTMLElement>(node: T, principal: string, you?: string): T {
  const readable = readablePrincipal(principal, you);
  node.textContent = readable.text;
  if (readable.title === undefined) node.removeAttribute("title");
  else node.title = readable.title;
  return node;
}

/** A form field as text (a file input would give a File). */
export function field(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === "string" ? value : "";
}

export function text(value: Json | undefined): string {
  return typeof value === "string" ? value : JSON.stringify(value ?? null);
}

export function say(message: string, isError = false): void {
  const node = element("message");
  node.textContent = message;
  node.className = isError ? "error" : "";
  node.hidden = message === "";
}

export function fail(error: unknown): void {
  say(error instanceof Error ? error.message : String(error), true);
}

/** A 400's details, one line each: `body data.title: ...`. */
export function showDetails(list: HTMLElement, details: readonly Detail[], fallback: string): void {
  list.replaceChildren(
    ...(details.length > 0
      ? details.map((d) => make("li", `${[d.location, d.name].filter(Boolean).join(" ")}: ${d.description ?? ""}`))
      : [make("li", fallback)]),
  );
}
