/**
 * Bounded walks over `Next-Page` links: a cursor bug that loops forever fails the test at
 * `maxPages` instead of hanging the run.
 */
import { expect } from "chai";
import type { TestResponse, TestServer } from "./http.js";

/** The path and query of an absolute `Next-Page` URL, or null at the last page. */
export function nextPath(response: TestResponse): string | null {
  const header = response.headers.get("next-page");
  if (!header) return null;
  const url = new URL(header);
  return url.pathname + url.search;
}

/**
 * GETs `first` and every following page as `user`, at most `maxPages` pages, each answered 200;
 * `between` runs after each page (to write during the walk). Returns the pages in order.
 */
export async function walkNextPages(
  server: TestServer,
  first: string,
  user: string | undefined,
  maxPages: number,
  between?: (page: TestResponse, index: number) => Promise<void>,
): Promise<TestResponse[]> {
  const pages: TestResponse[] = [];
  let next: string | null = first;
  for (let index = 0; next !== null && index < maxPages; index += 1) {
    const page = await server.request("GET", next, { user });
    expect(page.status, JSON.stringify(page.body)).to.equal(200);
    pages.push(page);
    next = nextPath(page);
    if (between) await between(page, index);
  }
  expect(next, `the walk did not end within ${maxPages} pages`).to.equal(null);
  return pages;
}

/** The records of every page, in order. */
export function recordsOf<T = { id: string }>(pages: readonly TestResponse[]): T[] {
  return pages.flatMap((page) => page.body.data as T[]);
}
