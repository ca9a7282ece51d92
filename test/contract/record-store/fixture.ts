/** Shared helpers of the RecordStore contract: scopes, queries, seeding, keyset walking. */
import { expect } from "chai";
import type { JsonObject, JsonValue } from "../../../src/domain/json.js";
import type { RecordOrTombstone, StoredRecord } from "../../../src/domain/records.js";
import type { CountQuery, Filter, FilterOperator, ListQuery, PageCursor, SortKey } from "../../../src/application/listing.js";
import type { RecordStore, Scope } from "../../../src/application/ports/record-store.js";

/** Gives each contract file access to the store opened by the suite. */
export type StoreRef = () => RecordStore;

export function scopeOf(collection = "articles", parentId = ""): Scope {
  return { collection, parentId };
}

export const LM_ASC: SortKey = { field: "last_modified", descending: false };
export const LM_DESC: SortKey = { field: "last_modified", descending: true };

export function asc(field: string): SortKey {
  return { field, descending: false };
}

export function desc(field: string): SortKey {
  return { field, descending: true };
}

export function filter(field: string, operator: FilterOperator, value: JsonValue): Filter {
  return { field, operator, value };
}

/** A list query returning everything live, oldest first, unless overridden. */
export function listQuery(overrides: Partial<ListQuery> = {}): ListQuery {
  return { filters: [], sort: [LM_ASC], limit: 10_000, includeDeleted: false, ...overrides };
}

export function countQuery(overrides: Partial<CountQuery> = {}): CountQuery {
  return { filters: [], ...overrides };
}

/** Creates one record per entry, in order, with ids `<prefix>0`, `<prefix>1`, ... */
export async function seed(store: RecordStore, scope: Scope, items: readonly JsonObject[], prefix = "r"): Promise<StoredRecord[]> {
  const created: StoredRecord[] = [];
  for (const [i, data] of items.entries()) created.push(await store.create(scope, `${prefix}${i}`, data));
  return created;
}

export function idsOf(entries: readonly RecordOrTombstone[]): string[] {
  return entries.map((e) => e.id);
}

/** The ids of the live records a filtered listing returns, sorted so order does not matter. */
export async function matchingIds(store: RecordStore, scope: Scope, filters: readonly Filter[], includeDeleted = false): Promise<string[]> {
  return idsOf(await store.list(scope, listQuery({ filters, includeDeleted }))).sort();
}

/** The record fields only, so that optional keys (`deleted: false`) do not break deep equality. */
export function plain(record: StoredRecord | undefined): { id: string; lastModified: number; data: JsonObject } | undefined {
  return record && { id: record.id, lastModified: record.lastModified, data: record.data };
}

/** The value an entry has for a sort field, as the service reads it to build a cursor. */
export function sortValueOf(entry: RecordOrTombstone, field: string): JsonValue | undefined {
  if (field === "id") return entry.id;
  if (field === "last_modified") return entry.lastModified;
  let current: JsonValue | undefined = entry.deleted ? { deleted: true } : entry.data;
  for (const segment of field.split(".")) {
    if (typeof current !== "object" || current === null || Array.isArray(current)) return undefined;
    current = current[segment];
  }
  return current;
}

export function cursorOf(entry: RecordOrTombstone, sort: readonly SortKey[]): PageCursor {
  return { values: sort.map((key) => sortValueOf(entry, key.field)) };
}

/** Walks every page of a query with keyset cursors; `between` runs after each page. */
export async function walkPages(
  store: RecordStore,
  scope: Scope,
  query: ListQuery,
  between?: (page: number) => Promise<void>,
): Promise<RecordOrTombstone[]> {
  const seen: RecordOrTombstone[] = [];
  let after: PageCursor | undefined;
  for (let page = 0; page < 10_000; page += 1) {
    const entries = await store.list(scope, { ...query, after });
    expect(entries.length).to.be.at.most(query.limit);
    seen.push(...entries);
    if (entries.length < query.limit) return seen;
    after = cursorOf(entries[entries.length - 1]!, query.sort);
    if (between) await between(page);
  }
  throw new Error("pagination never ended");
}

/** Awaits a rejection and checks its class; returns the error for further checks. */
export async function rejection<E extends Error>(promise: Promise<unknown>, type: new (...args: never[]) => E): Promise<E> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(type);
    return error as E;
  }
  expect.fail(`expected a ${type.name}`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function expectStrictlyIncreasing(values: readonly number[]): void {
  for (let i = 1; i < values.length; i += 1) expect(values[i], `value #${i}`).to.be.greaterThan(values[i - 1]!);
}
