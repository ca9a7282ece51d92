/** A sync client as a user would write one: full listing, then `_since` syncs applied to a local copy. */
import { expect } from "chai";
import type { TestServer } from "../support/http.js";

export interface Entry {
  id: string;
  last_modified: number;
  deleted?: boolean;
  [field: string]: unknown;
}

/** Every page of a listing, following Next-Page; returns the entries and the first page's ETag. */
export async function listAll(server: TestServer, user: string, query: string): Promise<{ entries: Entry[]; etag: number }> {
  let path = `/v1/articles${query}`;
  const entries: Entry[] = [];
  let etag: number | undefined;
  for (let page = 0; page < 1000; page += 1) {
    const res = await server.request("GET", path, { user });
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).to.equal(200);
    etag ??= Number(res.headers.get("etag")?.replaceAll('"', ""));
    entries.push(...(res.body.data as Entry[]));
    const next = res.headers.get("next-page");
    if (!next) return { entries, etag };
    const url = new URL(next);
    path = `${url.pathname}${url.search}`;
  }
  throw new Error("pagination never ended");
}

/** A local copy kept in sync with `_since`, as Kinto clients do. */
export class SyncClient {
  readonly records = new Map<string, Entry>();
  since: number | undefined;

  constructor(
    private readonly server: () => TestServer,
    readonly user: string,
    private readonly pageSize = 100,
  ) {}

  /** Applies the changes since the last sync; returns what came (tombstones included). */
  async sync(): Promise<Entry[]> {
    const query = this.since === undefined ? `?_limit=${this.pageSize}` : `?_since=${this.since}&_limit=${this.pageSize}`;
    const { entries, etag } = await listAll(this.server(), this.user, query);
    for (const entry of entries) {
      if (entry.deleted) this.records.delete(entry.id);
      else this.records.set(entry.id, entry);
    }
    this.since = etag;
    return entries;
  }

  ids(): string[] {
    return [...this.records.keys()].sort();
  }
}
