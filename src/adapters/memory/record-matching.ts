/**
 * Evaluates the typed list query of application/listing.ts over in-memory entries: field values,
 * filters, access restriction, sort order and keyset cursors. Pure functions, no state.
 */
import { jsonEqual, type JsonObject, type JsonValue } from "../../domain/json.js";
import type { RecordOrTombstone } from "../../domain/records.js";
import { wildcardMatcher } from "../../domain/wildcard.js";
import { ID_FIELD, MODIFIED_FIELD, type Filter, type PageCursor, type RecordAccess, type SortKey } from "../../application/listing.js";
import { compareJson } from "./json-ordering.js";

/** Tombstones match filters and sort as `{id, last_modified, deleted: true}`. */
const TOMBSTONE_DATA: JsonObject = Object.freeze({ deleted: true });

export type EntryPredicate = (entry: RecordOrTombstone) => boolean;
export type EntryOrder = (a: RecordOrTombstone, b: RecordOrTombstone) => number;

/** The value of a managed field or of a dotted path into data; `undefined` when missing. */
export function fieldValue(entry: RecordOrTombstone, field: string): JsonValue | undefined {
  if (field === ID_FIELD) return entry.id;
  if (field === MODIFIED_FIELD) return entry.lastModified;
  let current: JsonValue | undefined = entry.deleted ? TOMBSTONE_DATA : entry.data;
  // Paths only go through objects, as PostgreSQL's `data->'a'->'b'` does (an array yields NULL).
  for (const segment of field.split(".")) {
    if (typeof current !== "object" || current === null || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, segment)) return undefined;
    current = current[segment];
  }
  return current;
}

function listOf(value: JsonValue): readonly JsonValue[] {
  return Array.isArray(value) ? value : [value];
}

function includesEqual(items: readonly JsonValue[], value: JsonValue): boolean {
  return items.some((item) => jsonEqual(item, value));
}

/** Value-level predicate of one filter; a missing value is `undefined` (it sorts after all values). */
function valuePredicate(filter: Filter): (value: JsonValue | undefined) => boolean {
  const expected = filter.value;
  switch (filter.operator) {
    case "eq":
      return (value) => value !== undefined && jsonEqual(value, expected);
    case "not":
      return (value) => value === undefined || !jsonEqual(value, expected);
    case "in":
      return (value) => value !== undefined && includesEqual(listOf(expected), value);
    case "exclude":
      return (value) => value === undefined || !includesEqual(listOf(expected), value);
    case "lt":
      return (value) => compareJson(value, expected) < 0;
    case "max":
      return (value) => compareJson(value, expected) <= 0;
    case "gt":
      return (value) => compareJson(value, expected) > 0;
    case "min":
      return (value) => compareJson(value, expected) >= 0;
    case "like": {
      if (typeof expected !== "string") return () => false;
      const matches = wildcardMatcher(expected);
      return (value) => typeof value === "string" && matches(value);
    }
    case "has":
      return (value) => (value !== undefined) === (expected !== false);
    case "contains":
      return (value) => Array.isArray(value) && listOf(expected).every((item) => includesEqual(value, item));
    case "contains_any":
      return (value) => Array.isArray(value) && listOf(expected).some((item) => includesEqual(value, item));
  }
}

/** One predicate for all filters (ANDed), compiled once per query. */
export function compileFilters(filters: readonly Filter[]): EntryPredicate {
  const compiled = filters.map((filter) => ({ field: filter.field, test: valuePredicate(filter) }));
  return (entry) => compiled.every(({ field, test }) => test(fieldValue(entry, field)));
}

/** Only the listed ids pass. */
export function compileAccess(access: RecordAccess | undefined): EntryPredicate {
  if (access === undefined) return () => true;
  const allowed = new Set(access.ids);
  return (entry) => allowed.has(entry.id);
}

function compareOnKeys(
  sort: readonly SortKey[],
  valueOf: (key: SortKey, index: number) => [JsonValue | undefined, JsonValue | undefined],
): number {
  for (const [index, key] of sort.entries()) {
    const [a, b] = valueOf(key, index);
    const order = compareJson(a, b);
    if (order !== 0) return key.descending ? -order : order;
  }
  return 0;
}

/** The query order; descending keys are exact reversals (missing first). */
export function compileSort(sort: readonly SortKey[]): EntryOrder {
  // last_modified is unique in a scope; the fallback keeps the order total if a caller omits it.
  return (a, b) => compareOnKeys(sort, (key) => [fieldValue(a, key.field), fieldValue(b, key.field)]) || a.lastModified - b.lastModified;
}

/** Keeps entries strictly after the cursor in the query order. */
export function compileAfter(sort: readonly SortKey[], after: PageCursor | undefined): EntryPredicate {
  if (after === undefined) return () => true;
  return (entry) => compareOnKeys(sort, (key, index) => [fieldValue(entry, key.field), after.values[index]]) > 0;
}
