/**
 * SQL of the `lost_access` table (docs/adr/0011): recording that principals lost read access to
 * records (at the timestamps of the writes that caused them), and the tombstones a restricted
 * listing shows for them.
 */
import type { ListQuery, RecordAccess } from "../../application/listing.js";
import type { JoinedGrants } from "./joined-grants.js";
import type { RecordedLoss } from "../../application/ports/record-store.js";
import type { Statement } from "./postgres-database.js";
import { NOW_MS } from "./sql-clock.js";
import { filterSql, grantsRecordSql, isModifiedLowerBound, keysetSql, modifiedLowerBoundSql, SqlParams } from "./record-query-sql.js";

/**
 * Losses of scope ($1, $2) at the timestamps of the writes that caused them ($5: the stamp of
 * each row): the writes have already moved the scope's counter.
 */
export const RECORD_LOST_ACCESS_STAMPED: Statement = {
  name: "tessera_lost_access_record_stamped",
  text: `INSERT INTO lost_access AS l (collection, parent_id, principal, id, last_modified)
    SELECT $1, $2, u.principal, u.id, u.stamp FROM unnest($3::text[], $4::text[], $5::bigint[]) AS u(id, principal, stamp)
    ON CONFLICT (collection, parent_id, principal, id) DO UPDATE SET last_modified = EXCLUDED.last_modified`,
};

/**
 * Losses of records $4 by principal $3 without a record write (a group change): the scope's
 * counter jumps by their number (the lock of its row orders this with the scope's writers) and
 * each record's loss gets its own timestamp, as the tombstones of a bulk delete do, so that a
 * tombstone's `last_modified` stays unique in the scope (pages walk by it). Returns the range.
 */
export const STAMP_LOST_ACCESS: Statement = {
  name: "tessera_lost_access_stamp",
  text: `WITH numbered AS (
      SELECT u.id, row_number() OVER (ORDER BY u.id) AS n FROM (SELECT DISTINCT id FROM unnest($4::text[]) AS i(id)) AS u
    ), total AS (
      SELECT GREATEST(count(*), 1) AS n FROM numbered
    ), ts AS (
      INSERT INTO timestamps AS t (collection, parent_id, last_modified) VALUES ($1, $2, ${NOW_MS} + (SELECT n FROM total) - 1)
      ON CONFLICT (collection, parent_id) DO UPDATE
        SET last_modified = GREATEST(${NOW_MS}, t.last_modified + 1) + (SELECT n FROM total) - 1
      RETURNING t.last_modified AS high
    ), lost AS (
      INSERT INTO lost_access AS l (collection, parent_id, principal, id, last_modified)
      SELECT $1, $2, $3, numbered.id, ts.high - total.n + numbered.n FROM numbered CROSS JOIN ts CROSS JOIN total
      ON CONFLICT (collection, parent_id, principal, id) DO UPDATE SET last_modified = EXCLUDED.last_modified
    )
    SELECT ts.high - total.n + 1 AS first, ts.high AS last FROM ts CROSS JOIN total`,
};

/** The ids principal $3 lost in scope ($1, $2): a primary-key range. */
export const LOST_ACCESS_OF: Statement = {
  name: "tessera_lost_access_of",
  text: "SELECT id FROM lost_access WHERE collection = $1 AND parent_id = $2 AND principal = $3",
};

/**
 * Losses of scope ($1, $2) with `last_modified` above $3, one row per (record, timestamp) with
 * its principals, ascending: what the live feed reads once per burst for every restricted
 * subscriber. A row is the newest loss of its (principal, record) by construction (primary key).
 */
export const LOST_ACCESS_AFTER: Statement = {
  name: "tessera_lost_access_after",
  text: `SELECT id, last_modified, array_agg(principal ORDER BY principal) AS principals FROM lost_access
    WHERE collection = $1 AND parent_id = $2 AND last_modified > $3
    GROUP BY id, last_modified ORDER BY last_modified, id`,
};

/**
 * RECORD_LOST_ACCESS_STAMPED's arrays for losses stamped by their writes: one row per (record,
 * principal), at the newest of its losses (a statement may not update one row twice).
 */
export function stampedLostAccessValues(losses: readonly RecordedLoss[]): { ids: string[]; principals: string[]; stamps: number[] } {
  const newest = new Map<string, { id: string; principal: string; stamp: number }>();
  for (const loss of losses) {
    for (const principal of loss.principals) {
      const key = JSON.stringify([loss.id, principal]);
      const found = newest.get(key);
      if (!found || found.stamp < loss.lastModified) newest.set(key, { id: loss.id, principal, stamp: loss.lastModified });
    }
  }
  const rows = [...newest.values()];
  return { ids: rows.map((r) => r.id), principals: rows.map((r) => r.principal), stamps: rows.map((r) => r.stamp) };
}

/** The caller's principals whose losses a listing shows, or undefined when it shows none. */
function formerReaders(query: ListQuery, grants: JoinedGrants | undefined): readonly string[] | undefined {
  if (!query.includeDeleted) return undefined;
  const principals = grants ? grants.principals : query.access?.principals;
  return principals !== undefined && principals.length > 0 ? principals : undefined;
}

/** Records the caller can read now: their losses are not shown (`l.id` is the candidate). */
function readableNowSql(params: SqlParams, access: RecordAccess | undefined, grants: JoinedGrants | undefined): string {
  // The ACE check of the granted listing: an ACE of the record granting read to the caller.
  if (grants) return grantsRecordSql(params, grants, "l.id");
  const ids = access?.ids ?? [];
  return ids.length === 0 ? "FALSE" : `l.id = ANY(${params.add([...ids], "text[]")})`;
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
      AND NOT ${readableNowSql(params, query.access, grants)}
    GROUP BY l.collection, l.parent_id, l.id`;
  const conditions = query.filters.map((f) => filterSql(params, f));
  if (query.upTo !== undefined) conditions.push(`r.last_modified <= ${params.add(query.upTo, "bigint")}`);
  if (query.after) conditions.push(keysetSql(params, query.sort, query.after));
  return `(${lost}) AS r WHERE ${conditions.length > 0 ? conditions.join(" AND ") : "TRUE"}`;
}

/** Purge of lost-access entries, in one scope or everywhere, older than a bound or all. */
export function purgeLostAccessSql(
  scope: { collection: string; parentId: string } | undefined,
  before: number | undefined,
): { text: string; values: unknown[] } {
  const params = new SqlParams();
  const conditions = ["TRUE"];
  if (scope) conditions.push(`collection = ${params.add(scope.collection)}`, `parent_id = ${params.add(scope.parentId)}`);
  if (before !== undefined) conditions.push(`last_modified < ${params.add(before, "bigint")}`);
  return {
    text: `WITH purged AS (DELETE FROM lost_access WHERE ${conditions.join(" AND ")} RETURNING 1) SELECT count(*) AS n FROM purged`,
    values: params.values,
  };
}
