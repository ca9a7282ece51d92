/**
 * Translates a typed list query (application/listing.ts) into SQL fragments over `records r`.
 * Every value and every field path is a bound parameter; only fixed fragments become SQL text.
 *
 * JSON order (null < string < number < boolean < array < object < missing) is a type rank plus a
 * comparison inside the type: strings by code point (COLLATE "C"), numbers as numeric, the rest
 * with jsonb's own order (shorter arrays and objects with fewer keys first).
 */
import type { JsonValue } from "../../domain/json.js";
import { ID_FIELD, MODIFIED_FIELD, type Filter, type PageCursor, type SortKey } from "../../application/listing.js";
import type { JoinedGrants } from "./joined-grants.js";
import { prefixRange, wildcardToLike } from "./like-pattern.js";

/** Collects bound values and hands out their `$n` placeholders. */
export class SqlParams {
  readonly values: unknown[] = [];
  private readonly paths = new Map<string, string>();

  add(value: unknown, cast?: string): string {
    this.values.push(value);
    return cast ? `$${this.values.length}::${cast}` : `$${this.values.length}`;
  }

  /** `r.data #> $n` for a dotted field, one parameter per distinct path. */
  dataPath(field: string): string {
    let placeholder = this.paths.get(field);
    if (!placeholder) {
      placeholder = this.add(field.split("."), "text[]");
      this.paths.set(field, placeholder);
    }
    return `(r.data #> ${placeholder})`;
  }
}

type Comparison = "gt" | "lt" | "min" | "max";

type JsonTypeName = "null" | "string" | "number" | "boolean" | "array" | "object";
const RANK_OF_TYPE: Readonly<Record<JsonTypeName, number>> = { null: 0, string: 1, number: 2, boolean: 3, array: 4, object: 5 };
const MISSING_RANK = 6;

function jsonType(value: JsonValue): JsonTypeName {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value as "string" | "number" | "boolean" | "object";
}

function rankSql(x: string): string {
  return `(CASE jsonb_typeof(${x}) WHEN 'null' THEN 0 WHEN 'string' THEN 1 WHEN 'number' THEN 2 WHEN 'boolean' THEN 3 WHEN 'array' THEN 4 WHEN 'object' THEN 5 ELSE ${MISSING_RANK} END)`;
}

const SQL_OPERATOR: Readonly<Record<Comparison, string>> = { gt: ">", lt: "<", min: ">=", max: "<=" };

/** Whether rank `a` OP rank `b` holds (used when the two types differ). */
function rankHolds(op: Comparison, a: number, b: number): boolean {
  return op === "gt" || op === "min" ? a > b : a < b;
}

/** A JSON field (a data path) compared with a JSON value in the total order. */
function compareJson(params: SqlParams, x: string, op: Comparison, value: JsonValue): string {
  const type = jsonType(value);
  const operator = SQL_OPERATOR[op];
  let sameType: string;
  switch (type) {
    case "null":
      sameType = op === "min" || op === "max" ? "TRUE" : "FALSE";
      break;
    case "string":
      sameType = `((${x} #>> '{}') COLLATE "C") ${operator} ${params.add(value, "text")}`;
      break;
    case "number":
      sameType = `(${x})::numeric ${operator} ${params.add(value, "numeric")}`;
      break;
    case "boolean":
      sameType = `(${x})::boolean ${operator} ${params.add(value, "boolean")}`;
      break;
    default:
      sameType = `${x} ${operator} ${params.add(JSON.stringify(value), "jsonb")}`;
  }
  // CASE, not AND/OR: PostgreSQL does not promise to short-circuit, and a cast of another type fails.
  const rankOp = op === "gt" || op === "min" ? ">" : "<";
  return `(CASE WHEN jsonb_typeof(${x}) = '${type}' THEN ${sameType} ELSE ${rankSql(x)} ${rankOp} ${RANK_OF_TYPE[type]} END)`;
}

/** A managed column (id: a string, last_modified: an integer) compared with a JSON value. */
function compareColumn(params: SqlParams, field: string, op: Comparison, value: JsonValue): string {
  const isId = field === ID_FIELD;
  const ownRank = isId ? RANK_OF_TYPE.string : RANK_OF_TYPE.number;
  const rank = RANK_OF_TYPE[jsonType(value)];
  if (rank !== ownRank) return rankHolds(op, ownRank, rank) ? "TRUE" : "FALSE";
  if (isId) return `r.id ${SQL_OPERATOR[op]} ${params.add(value, "text")}`;
  // Keep the bound value a bigint so the (collection, parent_id, last_modified) index serves it.
  const n = value as number;
  if (Number.isInteger(n)) return `r.last_modified ${SQL_OPERATOR[op]} ${params.add(n, "bigint")}`;
  return op === "gt" || op === "min"
    ? `r.last_modified > ${params.add(Math.floor(n), "bigint")}`
    : `r.last_modified < ${params.add(Math.ceil(n), "bigint")}`;
}

function isManaged(field: string): boolean {
  return field === ID_FIELD || field === MODIFIED_FIELD;
}

/** A managed column's value when `value` has its type, else undefined (never equal). */
function columnValue(field: string, value: JsonValue): string | number | undefined {
  if (field === ID_FIELD) return typeof value === "string" ? value : undefined;
  return typeof value === "number" && Number.isInteger(value) ? value : undefined;
}

function columnOf(field: string): string {
  return field === ID_FIELD ? "r.id" : "r.last_modified";
}

function listOf(value: JsonValue): JsonValue[] {
  return Array.isArray(value) ? value : [value];
}

function filterOnColumn(params: SqlParams, f: Filter): string {
  const column = columnOf(f.field);
  const cast = f.field === ID_FIELD ? "text" : "bigint";
  switch (f.operator) {
    case "eq":
    case "not": {
      const v = columnValue(f.field, f.value);
      if (v === undefined) return f.operator === "eq" ? "FALSE" : "TRUE";
      return `${column} ${f.operator === "eq" ? "=" : "<>"} ${params.add(v, cast)}`;
    }
    case "in":
    case "exclude": {
      const items = listOf(f.value).flatMap((item) => {
        const v = columnValue(f.field, item);
        return v === undefined ? [] : [v];
      });
      const any = items.length === 0 ? "FALSE" : `${column} = ANY(${params.add(items, `${cast}[]`)})`;
      return f.operator === "in" ? any : `NOT (${any})`;
    }
    case "gt":
    case "lt":
    case "min":
    case "max":
      return compareColumn(params, f.field, f.operator, f.value);
    case "like":
      return f.field === ID_FIELD && typeof f.value === "string" ? `r.id ILIKE ${params.add(wildcardToLike(f.value), "text")}` : "FALSE";
    case "has":
      return f.value === false ? "FALSE" : "TRUE";
    case "contains":
    case "contains_any":
      return "FALSE";
  }
}

/** Filters that hold or fail whatever the record: no parameter is bound for them. */
function constantDataFilter(f: Filter): string | undefined {
  const empty = Array.isArray(f.value) && f.value.length === 0;
  if (f.operator === "in" || f.operator === "contains_any") return empty ? "FALSE" : undefined;
  if (f.operator === "exclude") return empty ? "TRUE" : undefined;
  if (f.operator === "like") return typeof f.value === "string" ? undefined : "FALSE";
  return undefined;
}

function filterOnData(params: SqlParams, f: Filter): string {
  const constant = constantDataFilter(f);
  if (constant !== undefined) return constant;
  const x = params.dataPath(f.field);
  switch (f.operator) {
    case "eq":
      return `${x} = ${params.add(JSON.stringify(f.value), "jsonb")}`;
    case "not":
      return `${x} IS DISTINCT FROM ${params.add(JSON.stringify(f.value), "jsonb")}`;
    case "in":
    case "exclude": {
      const items = listOf(f.value).map((item) => JSON.stringify(item));
      const any = `${x} = ANY(${params.add(items, "jsonb[]")})`;
      return f.operator === "in" ? any : `NOT COALESCE(${any}, FALSE)`;
    }
    case "gt":
    case "lt":
    case "min":
    case "max":
      return compareJson(params, x, f.operator, f.value);
    case "like":
      return `(jsonb_typeof(${x}) = 'string' AND (${x} #>> '{}') ILIKE ${params.add(wildcardToLike(typeof f.value === "string" ? f.value : ""), "text")})`;
    case "has":
      return f.value === false ? `${x} IS NULL` : `${x} IS NOT NULL`;
    case "contains": {
      const wanted = params.add(JSON.stringify(listOf(f.value)), "jsonb");
      // `@>` is a cheap pre-check but looser (nested containment); equality of items decides.
      return `(CASE WHEN jsonb_typeof(${x}) = 'array' THEN ${x} @> ${wanted} AND NOT EXISTS (
        SELECT 1 FROM jsonb_array_elements(${wanted}) w WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements(${x}) e WHERE e = w)) ELSE FALSE END)`;
    }
    case "contains_any": {
      const items = listOf(f.value).map((item) => JSON.stringify(item));
      return `(CASE WHEN jsonb_typeof(${x}) = 'array' THEN EXISTS (SELECT 1 FROM jsonb_array_elements(${x}) e WHERE e = ANY(${params.add(items, "jsonb[]")})) ELSE FALSE END)`;
    }
  }
}

export function filterSql(params: SqlParams, f: Filter): string {
  return isManaged(f.field) ? filterOnColumn(params, f) : filterOnData(params, f);
}

/** Restriction to an explicit id list (RecordAccess). */
export function idsAccessSql(params: SqlParams, ids: readonly string[]): string {
  return ids.length === 0 ? "FALSE" : `r.id = ANY(${params.add([...ids], "text[]")})`;
}

/**
 * Ids of the records whose ACEs grant one of `permissions` to one of `principals` (JoinedGrants of
 * PostgresSharedRecords), read from the (principal, permission, object_id) index within the scope's
 * object id prefix. Undefined when nothing can match.
 *
 * One index probe per (principal, permission) pair, with equality on the index's two leading
 * columns. With `principal = ANY(…) AND permission = ANY(…)` the planner trusted the object_id
 * histogram (dominated by the biggest collection), estimated one row for a small collection's
 * range and filtered the whole range through the primary key instead. OFFSET 0 keeps the LATERAL
 * from being flattened into a join, so it runs once per pair with the pair as index keys. Arrays
 * rather than one UNION ALL branch per pair: the text stays the same whatever the number of
 * principals, so the prepared statement is shared and soon runs a cached generic plan (planning
 * six branches on every call cost more than the branches themselves).
 */
export function grantedIdsSql(params: SqlParams, access: JoinedGrants): string | undefined {
  const principals = [...new Set(access.principals)];
  const permissions = [...new Set(access.permissions)];
  if (principals.length === 0 || permissions.length === 0) return undefined;
  const { lower, upper } = prefixRange(access.objectIdPrefix);
  const start = params.add(access.objectIdPrefix.length + 1, "int");
  const range = `a.object_id >= ${params.add(lower, "text")}${upper === undefined ? "" : ` AND a.object_id < ${params.add(upper, "text")}`}`;
  return `SELECT DISTINCT substr(a.object_id, ${start}) AS id
    FROM unnest(${params.add(principals, "text[]")}) AS p(principal) CROSS JOIN unnest(${params.add(permissions, "text[]")}) AS q(permission)
    CROSS JOIN LATERAL (SELECT a.object_id FROM access_control_entries a
      WHERE a.principal = p.principal AND a.permission = q.permission AND ${range} OFFSET 0) AS a`;
}

/** Whether the filter bounds `last_modified` from below with a number (`_since`, `gt_`/`min_last_modified`). */
export function isModifiedLowerBound(f: Filter): boolean {
  return f.field === MODIFIED_FIELD && (f.operator === "gt" || f.operator === "min") && typeof f.value === "number";
}

/** That lower bound on another table's `last_modified` column (as filterSql puts it on `r`). */
export function modifiedLowerBoundSql(params: SqlParams, f: Filter, column: string): string {
  const n = f.value as number;
  if (Number.isInteger(n)) return `${column} ${SQL_OPERATOR[f.operator as Comparison]} ${params.add(n, "bigint")}`;
  return `${column} > ${params.add(Math.floor(n), "bigint")}`;
}

/**
 * Whether the record whose id is `id` (an SQL expression) has an ACE granting one of
 * `permissions` to one of `principals`: one probe of the ACE primary key per row. OFFSET 0 keeps
 * the planner from turning the EXISTS into a join over every ACE, which it did on tables without
 * statistics (a scan of the ACEs per row: quadratic).
 */
export function grantsRecordSql(params: SqlParams, access: JoinedGrants, id: string): string {
  const principals = [...new Set(access.principals)];
  const permissions = [...new Set(access.permissions)];
  if (principals.length === 0 || permissions.length === 0) return "FALSE";
  return `EXISTS (SELECT 1 FROM access_control_entries a WHERE a.object_id = ${params.add(access.objectIdPrefix, "text")} || ${id}
    AND a.permission = ANY(${params.add(permissions, "text[]")}) AND a.principal = ANY(${params.add(principals, "text[]")}) OFFSET 0)`;
}

/** ORDER BY terms: a managed column as is, a data field as (rank, string, number, other JSON). */
export function orderSql(params: SqlParams, sort: readonly SortKey[]): string {
  return sort
    .flatMap((key) => {
      const direction = key.descending ? " DESC" : "";
      if (isManaged(key.field)) return [`${columnOf(key.field)}${direction}`];
      const x = params.dataPath(key.field);
      return [
        `${rankSql(x)}${direction}`,
        `(CASE WHEN jsonb_typeof(${x}) = 'string' THEN ${x} #>> '{}' END) COLLATE "C"${direction}`,
        `(CASE WHEN jsonb_typeof(${x}) = 'number' THEN (${x})::numeric END)${direction}`,
        `(CASE WHEN jsonb_typeof(${x}) IN ('boolean', 'array', 'object') THEN ${x} END)${direction}`,
      ];
    })
    .join(", ");
}

/** Equality in the sort order with a cursor value (undefined = missing). */
function sameAs(params: SqlParams, field: string, value: JsonValue | undefined): string {
  if (isManaged(field)) {
    const v = value === undefined ? undefined : columnValue(field, value);
    return v === undefined ? "FALSE" : `${columnOf(field)} = ${params.add(v, field === ID_FIELD ? "text" : "bigint")}`;
  }
  const x = params.dataPath(field);
  return value === undefined ? `${x} IS NULL` : `${x} = ${params.add(JSON.stringify(value), "jsonb")}`;
}

/** Strictly after a cursor value in the key's direction (missing sorts last ascending). */
function afterValue(params: SqlParams, key: SortKey, value: JsonValue | undefined): string {
  const op: Comparison = key.descending ? "lt" : "gt";
  if (isManaged(key.field)) {
    return value === undefined ? (key.descending ? "TRUE" : "FALSE") : compareColumn(params, key.field, op, value);
  }
  if (value === undefined) return key.descending ? `${params.dataPath(key.field)} IS NOT NULL` : "FALSE";
  return compareJson(params, params.dataPath(key.field), op, value);
}

/** Keyset condition: for some k, keys before k equal the cursor and key k is strictly after it. */
export function keysetSql(params: SqlParams, sort: readonly SortKey[], cursor: PageCursor): string {
  const branches = sort.map((key, k) => {
    const equal = sort.slice(0, k).map((previous, i) => sameAs(params, previous.field, cursor.values[i]));
    return `(${[...equal, afterValue(params, key, cursor.values[k])].join(" AND ")})`;
  });
  return branches.length === 0 ? "TRUE" : `(${branches.join(" OR ")})`;
}
