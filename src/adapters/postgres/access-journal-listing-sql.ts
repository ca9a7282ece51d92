/**
 * The access journal's tables as the PostgreSQL listing reads them (docs/adr/0011, api.md
 * "Sync"): SQL fragments that PostgresRecordStore's listing statement joins to the page, in one
 * statement (work proportional to the page). Written beside the journal's adapter
 * (postgres-access-journal.ts, the only writer of these tables), so that their shape is known in
 * one place: `lost_access` as tombstones for former readers, `gained_access` as records given to
 * the caller after the listing's position.
 */
import type { ListQuery, RecordAccess } from "../../application/listing.js";
import type { JoinedGrants } from "./joined-grants.js";
import { filterSql, grantsRecordSql, isModifiedLowerBound, keysetSql, modifiedLowerBoundSql, SqlParams } from "./record-query-sql.js";

/** The caller's principals whose losses a listing shows, or undefined when it shows none. */
function formerReaders(query: ListQuery, grants: JoinedGrants | undefined): readonly string[] | undefined {
  if (!query.includeDeleted) return undefined;
  const principals = grants ? grants.principals : query.access?.principals;
  return principals !== undefined && principals.length > 0 ? principals : undefined;
}

/** Whether the record `column` names is readable by the caller now (a loss is then not shown, a gain is). */
function readableNowSql(params: SqlParams, access: RecordAccess | undefined, grants: JoinedGrants | undefined, column: string): string {
  // The ACE check of the granted listing: an ACE of the record granting read to the caller.
  if (grants) return grantsRecordSql(params, grants, column);
  const ids = access?.ids ?? [];
  return ids.length === 0 ? "FALSE" : `${column} = ANY(${params.add([...ids], "text[]")})`;
}

/**
 * `(…) AS r WHERE …`: one tombstone per record a principal of the caller lost and the caller
 * cannot read now, at the newest loss, with the listing's filters, bound and cursor. Columns as
 * `records` (scope $1, $2 already bound). Undefined when the listing shows no losses: only
 * listings restricted to the caller's records (ids with principals, or grants) show them.
 */
export function lostAccessSourceSql(params: SqlParams, query: ListQuery, grants?: JoinedGrants): string | undefined {
  if (grants === undefined && query.access === undefined) return undefined;
  const readers = formerReaders(query, grants);
  if (readers === undefined) return undefined;
  const principals = params.add([...new Set(readers)], "text[]");
  // A record's newest loss is above a lower bound exactly when one of its losses is: the bound
  // goes inside, so that only the losses since it are checked.
  const since = query.filters.filter(isModifiedLowerBound).map((f) => ` AND ${modifiedLowerBoundSql(params, f, "l.last_modified")}`);
  const lost = `SELECT l.collection, l.parent_id, l.id, max(l.last_modified) AS last_modified, '{"deleted":true}'::jsonb AS data, TRUE AS deleted
    FROM lost_access l WHERE l.collection = $1 AND l.parent_id = $2 AND l.principal = ANY(${principals})${since.join("")}
      AND NOT ${readableNowSql(params, query.access, grants, "l.id")}
    GROUP BY l.collection, l.parent_id, l.id`;
  const conditions = query.filters.map((f) => filterSql(params, f));
  if (query.upTo !== undefined) conditions.push(`r.last_modified <= ${params.add(query.upTo, "bigint")}`);
  if (query.after) conditions.push(keysetSql(params, query.sort, query.after));
  return `(${lost}) AS r WHERE ${conditions.length > 0 ? conditions.join(" AND ") : "TRUE"}`;
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
  conditions.push(`NOT (${bounds.map((f) => filterSql(params, f)).join(" AND ")})`, readableNowSql(params, query.access, grants, "r.id"));
  if (query.upTo !== undefined) conditions.push(`r.last_modified <= ${params.add(query.upTo, "bigint")}`);
  if (query.after) conditions.push(keysetSql(params, query.sort, query.after));
  return `(${gained}) AS r WHERE ${conditions.join(" AND ")}`;
}
