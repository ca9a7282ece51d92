/**
 * The typed list query: filters, sort, keyset cursor and the caller's access restriction.
 * Built from the query string by the HTTP adapter, validated there, and translated by each
 * RecordStore adapter (to SQL for PostgreSQL). Nothing here is ever spliced into a query as text.
 */
import type { JsonValue } from "../domain/json.js";

export const FILTER_OPERATORS = [
  "eq",
  "not",
  "min",
  "max",
  "gt",
  "lt",
  "in",
  "exclude",
  "like",
  "has",
  "contains_any",
  "contains",
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** `id` and `last_modified` are the managed fields; any other field is a (dotted) path into data. */
export const ID_FIELD = "id";
export const MODIFIED_FIELD = "last_modified";

/**
 * One filter. Semantics shared by every adapter:
 * - `eq`/`not`: JSON equality by type (`1` ≠ `"1"`).
 * - `min`/`max`/`gt`/`lt`: comparison in the type order null < string < number < boolean < array
 *   < object; strings compare by code point; numbers numerically.
 * - `in`/`exclude`: `value` is an array; equality with any item.
 * - `like`: `value` is a string; case-insensitive, `*` matches any run of characters; only string
 *   values match.
 * - `has`: `value` is a boolean; true keeps records where the field is present (null counts).
 * - `contains`/`contains_any`: `value` is an array; the field must be an array holding every /
 *   at least one of the items.
 * - A missing field never matches eq, in, like, lt, max, contains, contains_any; always matches
 *   not, exclude, gt, min (a missing value sorts after every value).
 */
export interface Filter {
  readonly field: string;
  readonly operator: FilterOperator;
  readonly value: JsonValue;
}

export interface SortKey {
  readonly field: string;
  readonly descending: boolean;
}

/**
 * Keyset position: the sort values of the last entry already returned, one per sort key (in the
 * same order); `undefined` for a missing field. The next page holds entries strictly after it.
 */
export interface PageCursor {
  readonly values: readonly (JsonValue | undefined)[];
}

/**
 * Restricts a query to exactly these record ids: those a caller without collection-level access
 * holds a permission on, resolved beforehand through the PermissionStore. (A store sharing its
 * database with the ACEs can do it in one query instead: see PostgresSharedRecords.)
 *
 * Former readers (docs/adr/0011): with `includeDeleted` and `principals` (the caller's), a listing
 * also holds, for every record the caller may not read now but one of their principals could read
 * before (recorded with `RecordStore.recordLostAccessAt`), a tombstone `{id, last_modified,
 * deleted: true}` whose timestamp is the newest such loss. Without `principals`, none.
 *
 * Gained access (docs/api.md, "Sync"): with `principals` and lower bounds on `last_modified`
 * (`gt`, `min`: a sync from a position), a listing also holds every live record in `ids` that one
 * of `principals` gained (`RecordStore.stampGainedAccess`) at a timestamp within those bounds
 * (and `upTo`), whatever its own `last_modified`, when the other filters and the cursor keep it:
 * the bounds then read "modified, or given to the caller, after the position".
 */
export interface RecordAccess {
  readonly ids: readonly string[];
  readonly principals?: readonly string[];
}

export interface ListQuery {
  readonly filters: readonly Filter[];
  /** Always ends with `last_modified`, which is unique in a scope: the order is total. */
  readonly sort: readonly SortKey[];
  /** Entries to return at most (the service asks for one more to know whether a page follows). */
  readonly limit: number;
  readonly after?: PageCursor;
  /** Only entries with `last_modified <= upTo`: keeps one walk over pages stable. */
  readonly upTo?: number;
  /** Include tombstones (they match filters as `{id, last_modified, deleted: true}`). */
  readonly includeDeleted: boolean;
  readonly access?: RecordAccess;
}

export interface CountQuery {
  readonly filters: readonly Filter[];
  readonly access?: RecordAccess;
}

/**
 * The position a listing syncs from: the strongest lower bound on `last_modified` (`gt`, `min`
 * on a number), as the last timestamp the client holds; undefined when the listing has none.
 */
export function syncPosition(filters: readonly Filter[]): number | undefined {
  const bounds = filters
    .filter((f) => f.field === MODIFIED_FIELD && typeof f.value === "number" && (f.operator === "gt" || f.operator === "min"))
    .map((f) => (f.operator === "gt" ? Math.floor(f.value as number) : Math.ceil(f.value as number) - 1));
  return bounds.length === 0 ? undefined : Math.max(...bounds);
}
