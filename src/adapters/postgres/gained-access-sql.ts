/**
 * SQL of the `gained_access` table (docs/api.md, "Sync"): principals given read access to records
 * without a record write (a group given to a user or a group), at a new timestamp of the scope,
 * and the records a restricted listing from a position shows for them; and of `access_resyncs`,
 * the changes too large to record record by record.
 */
import type { ListQuery, RecordAccess } from "../../application/listing.js";
import type { JoinedGrants } from "./joined-grants.js";
import type { Statement } from "./postgres-database.js";
import { filterSql, grantsRecordSql, isModifiedLowerBound, keysetSql, modifiedLowerBoundSql, SqlParams } from "./record-query-sql.js";
import { NOW_MS } from "./sql-clock.js";

/**
 * Records $4 given to principal $3 in scope ($1, $2): the scope's counter takes a new timestamp
 * (the lock of its row orders this with the scope's writers) and every gain is stamped with it,
 * in one statement. Returns the timestamp.
 */
export const STAMP_GAINED_ACCESS: Statement = {
  name: "tessera_gained_access_stamp",
  text: `WITH ts AS (
      INSERT INTO timestamps AS t (collection, parent_id, last_modified) VALUES ($1, $2, ${NOW_MS})
      ON CONFLICT (collection, parent_id) DO UPDATE SET last_modified = GREATEST(${NOW_MS}, t.last_modified + 1)
      RETURNING t.last_modified
    ), gained AS (
      INSERT INTO gained_access AS g (collection, parent_id, principal, id, last_modified)
      SELECT $1, $2, $3, u.id, ts.last_modified FROM unnest($4::text[]) AS u(id) CROSS JOIN ts
      ON CONFLICT (collection, parent_id, principal, id) DO UPDATE SET last_modified = EXCLUDED.last_modified
    )
    SELECT last_modified FROM ts`,
};

/** A resync of principal $3 in scope ($1, $2) at a new timestamp of the scope (as STAMP_GAINED_ACCESS). */
export const STAMP_RESYNC: Statement = {
  name: "tessera_access_resync_stamp",
  text: `WITH ts AS (
      INSERT INTO timestamps AS t (collection, parent_id, last_modified) VALUES ($1, $2, ${NOW_MS})
      ON CONFLICT (collection, parent_id) DO UPDATE SET last_modified = GREATEST(${NOW_MS}, t.last_modified + 1)
      RETURNING t.last_modified
    ), resync AS (
      INSERT INTO access_resyncs AS a (collection, parent_id, principal, last_modified) SELECT $1, $2, $3, ts.last_modified FROM ts
      ON CONFLICT (collection, parent_id, principal) DO UPDATE SET last_modified = EXCLUDED.last_modified
    )
    SELECT last_modified FROM ts`,
};

/** The newest resync of principals $3 in scope ($1, $2) above $4 (one primary-key probe per principal). */
export const RESYNC_AFTER: Statement = {
  name: "tessera_access_resync_after",
  text: `SELECT max(last_modified) AS last_modified FROM access_resyncs
    WHERE collection = $1 AND parent_id = $2 AND principal = ANY($3::text[]) AND last_modified > $4`,
};

/** The ids principals $3 gained in scope ($1, $2) above $4. */
export const GAINED_ACCESS_AFTER: Statement = {
  name: "tessera_gained_access_after",
  text: `SELECT DISTINCT id FROM gained_access
    WHERE collection = $1 AND parent_id = $2 AND principal = ANY($3::text[]) AND last_modified > $4`,
};

/** Whether the record `r.id` is readable by the caller now. */
function readableNowSql(params: SqlParams, access: RecordAccess | undefined, grants: JoinedGrants | undefined): string {
  if (grants) return grantsRecordSql(params, grants, "r.id");
  const ids = access?.ids ?? [];
  return ids.length === 0 ? "FALSE" : `r.id = ANY(${params.add([...ids], "text[]")})`;
}

/**
 * `(…) AS r WHERE …`: the live records one of the caller's principals gained within the listing's
 * lower bounds on `last_modified` (and `upTo`), that the caller can read now, whose own timestamp
 * is not within those bounds (those are in the listing already), with the other filters and the
 * cursor. Columns as `records` (scope $1, $2 already bound). Undefined when the listing has no
 * lower bound or is not restricted to a caller's principals.
 */
export function gainedAccessSourceSql(params: SqlParams, query: ListQuery, grants?: JoinedGrants): string | undefined {
  const principals = grants ? grants.principals : query.access?.principals;
  const bounds = query.filters.filter(isModifiedLowerBound);
  if (principals === undefined || principals.length === 0 || bounds.length === 0) return undefined;
  if (grants === undefined && query.access === undefined) return undefined;
  const named = params.add([...new Set(principals)], "text[]");
  const inside = bounds.map((f) => ` AND ${modifiedLowerBoundSql(params, f, "g.last_modified")}`);
  if (query.upTo !== undefined) inside.push(` AND g.last_modified <= ${params.add(query.upTo, "bigint")}`);
  const gained = `SELECT r.collection, r.parent_id, r.id, r.last_modified, r.data, r.deleted
    FROM (SELECT DISTINCT g.id FROM gained_access g
      WHERE g.collection = $1 AND g.parent_id = $2 AND g.principal = ANY(${named})${inside.join("")}) AS ga
    CROSS JOIN LATERAL (SELECT r.* FROM records r
      WHERE r.collection = $1 AND r.parent_id = $2 AND r.id = ga.id AND NOT r.deleted LIMIT 1) AS r`;
  const conditions = query.filters.filter((f) => !isModifiedLowerBound(f)).map((f) => filterSql(params, f));
  conditions.push(`NOT (${bounds.map((f) => filterSql(params, f)).join(" AND ")})`, readableNowSql(params, query.access, grants));
  if (query.upTo !== undefined) conditions.push(`r.last_modified <= ${params.add(query.upTo, "bigint")}`);
  if (query.after) conditions.push(keysetSql(params, query.sort, query.after));
  return `(${gained}) AS r WHERE ${conditions.join(" AND ")}`;
}

/** Purge of gained-access entries (or, `table` named, resyncs), in one scope or everywhere, older than a bound or all. */
export function purgeGainedAccessSql(
  scope: { collection: string; parentId: string } | undefined,
  before: number | undefined,
  table: "gained_access" | "access_resyncs" = "gained_access",
): { text: string; values: unknown[] } {
  const params = new SqlParams();
  const conditions = ["TRUE"];
  if (scope) conditions.push(`collection = ${params.add(scope.collection)}`, `parent_id = ${params.add(scope.parentId)}`);
  if (before !== undefined) conditions.push(`last_modified < ${params.add(before, "bigint")}`);
  return {
    text: `WITH purged AS (DELETE FROM ${table} WHERE ${conditions.join(" AND ")} RETURNING 1) SELECT count(*) AS n FROM purged`,
    values: params.values,
  };
}
