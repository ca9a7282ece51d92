/**
 * AccessJournal on PostgreSQL (docs/adr/0011, 0015): the tables `lost_access` (principals that lost
 * read access to records, at the timestamps of the writes that caused it or of a group change),
 * `gained_access` (principals given read access without a record write) and `access_resyncs`
 * (changes too large to record record by record). This file is the only one that writes them;
 * the record store's listing reads them through access-journal-listing-sql.ts. A stamp of its own
 * is taken on the scope's counter (`timestamps`, the record store's collection timestamp) in the
 * same statement that records it.
 */
import type { AccessJournal, LossesWanted, RecordedLoss, StampRange } from "../../application/ports/access-journal.js";
import type { Scope } from "../../application/ports/record-store.js";
import pg from "pg";
import type { PostgresDatabase, Statement } from "./postgres-database.js";
import { SqlParams } from "./record-query-sql.js";
import { NOW_MS } from "./sql-clock.js";

/**
 * A CTE body taking `count` new timestamps of scope ($1, $2) on its counter, the highest as
 * `high`: each strictly above the counter before (the collection timestamp, however close the
 * clock), the lock of its row ordering this with the scope's writers.
 */
function takeStampsSql(count: string): string {
  return `INSERT INTO timestamps AS t (collection, parent_id, last_modified) VALUES ($1, $2, ${NOW_MS} + ${count} - 1)
      ON CONFLICT (collection, parent_id) DO UPDATE SET last_modified = GREATEST(${NOW_MS}, t.last_modified + 1) + ${count} - 1
      RETURNING t.last_modified AS high`;
}

/**
 * Losses of scope ($1, $2) at the timestamps of the writes that caused them ($5: the stamp of
 * each row): the writes have already moved the scope's counter.
 */
const RECORD_LOST_ACCESS_STAMPED: Statement = {
  name: "tessera_lost_access_record_stamped",
  text: `INSERT INTO lost_access AS l (collection, parent_id, principal, id, last_modified)
    SELECT $1, $2, u.principal, u.id, u.stamp FROM unnest($3::text[], $4::text[], $5::bigint[]) AS u(id, principal, stamp)
    ON CONFLICT (collection, parent_id, principal, id) DO UPDATE SET last_modified = EXCLUDED.last_modified`,
};

/**
 * Losses of records $4 by principal $3 without a record write (a group change): the scope's
 * counter jumps by their number and each record's loss gets its own timestamp, as the tombstones
 * of a bulk delete do, so that a tombstone's `last_modified` stays unique in the scope (pages
 * walk by it). Returns the range.
 */
const STAMP_LOST_ACCESS: Statement = {
  name: "tessera_lost_access_stamp",
  text: `WITH numbered AS (
      SELECT u.id, row_number() OVER (ORDER BY u.id) AS n FROM (SELECT DISTINCT id FROM unnest($4::text[]) AS i(id)) AS u
    ), total AS (
      SELECT GREATEST(count(*), 1) AS n FROM numbered
    ), ts AS (
      ${takeStampsSql("(SELECT n FROM total)")}
    ), lost AS (
      INSERT INTO lost_access AS l (collection, parent_id, principal, id, last_modified)
      SELECT $1, $2, $3, numbered.id, ts.high - total.n + numbered.n FROM numbered CROSS JOIN ts CROSS JOIN total
      ON CONFLICT (collection, parent_id, principal, id) DO UPDATE SET last_modified = EXCLUDED.last_modified
    )
    SELECT ts.high - total.n + 1 AS first, ts.high AS last FROM ts CROSS JOIN total`,
};

/** The ids principal $3 lost in scope ($1, $2): a primary-key range. */
const LOST_ACCESS_OF: Statement = {
  name: "tessera_lost_access_of",
  text: "SELECT id FROM lost_access WHERE collection = $1 AND parent_id = $2 AND principal = $3",
};

/**
 * Losses of scope ($1, $2) with `last_modified` above $3, one row per (record, timestamp) with
 * its principals, ascending: what the live feed reads once per burst for every restricted
 * subscriber. A row is the newest loss of its (principal, record) by construction (primary key).
 */
const LOST_ACCESS_AFTER: Statement = {
  name: "tessera_lost_access_after",
  text: `SELECT id, last_modified, array_agg(principal ORDER BY principal) AS principals FROM lost_access
    WHERE collection = $1 AND parent_id = $2 AND last_modified > $3
    GROUP BY id, last_modified ORDER BY last_modified, id LIMIT $4`,
};

/**
 * LOST_ACCESS_AFTER for some principals only, written into the statement as a constant array:
 * PostgreSQL then tests each loss against a hash of them. As a parameter (`= ANY($5)`, the plans
 * being generic) each loss was compared with every principal in turn: 600,000 losses against a
 * shared read's 3,000 principals took 20 s. A probe per principal instead (unnest, LATERAL) went
 * through the scope's index on some table sizes, walking every loss once per principal (92 s on
 * 155,000). The scope's losses after $3 are read once either way, as without principals.
 */
function lostAccessAfterOf(principals: readonly string[]): Statement {
  const wanted = [...new Set(principals)].map((p) => pg.escapeLiteral(p)).join(",");
  return {
    text: `SELECT id, last_modified, array_agg(principal ORDER BY principal) AS principals FROM lost_access
    WHERE collection = $1 AND parent_id = $2 AND last_modified > $3 AND principal = ANY(ARRAY[${wanted}]::text[])
    GROUP BY id, last_modified ORDER BY last_modified, id LIMIT $4`,
  };
}

/** Records $4 given to principal $3 in scope ($1, $2), all at one new timestamp of the scope. Returns it. */
const STAMP_GAINED_ACCESS: Statement = {
  name: "tessera_gained_access_stamp",
  text: `WITH ts AS (
      ${takeStampsSql("1")}
    ), gained AS (
      INSERT INTO gained_access AS g (collection, parent_id, principal, id, last_modified)
      SELECT $1, $2, $3, u.id, ts.high FROM unnest($4::text[]) AS u(id) CROSS JOIN ts
      ON CONFLICT (collection, parent_id, principal, id) DO UPDATE SET last_modified = EXCLUDED.last_modified
    )
    SELECT high AS last_modified FROM ts`,
};

/** A resync of principal $3 in scope ($1, $2) at a new timestamp of the scope (as STAMP_GAINED_ACCESS). */
const STAMP_RESYNC: Statement = {
  name: "tessera_access_resync_stamp",
  text: `WITH ts AS (
      ${takeStampsSql("1")}
    ), resync AS (
      INSERT INTO access_resyncs AS a (collection, parent_id, principal, last_modified) SELECT $1, $2, $3, ts.high FROM ts
      ON CONFLICT (collection, parent_id, principal) DO UPDATE SET last_modified = EXCLUDED.last_modified
    )
    SELECT high AS last_modified FROM ts`,
};

/** The newest resync of principals $3 in scope ($1, $2) above $4 (one primary-key probe per principal). */
const RESYNC_AFTER: Statement = {
  name: "tessera_access_resync_after",
  text: `SELECT max(last_modified) AS last_modified FROM access_resyncs
    WHERE collection = $1 AND parent_id = $2 AND principal = ANY($3::text[]) AND last_modified > $4`,
};

/** The ids principals $3 gained in scope ($1, $2) above $4. */
const GAINED_ACCESS_AFTER: Statement = {
  name: "tessera_gained_access_after",
  text: `SELECT DISTINCT id FROM gained_access
    WHERE collection = $1 AND parent_id = $2 AND principal = ANY($3::text[]) AND last_modified > $4`,
};

const JOURNAL_TABLES = ["lost_access", "gained_access", "access_resyncs"] as const;

/** Purge of one journal table, in one scope or everywhere, older than a bound or all; answers how many rows. */
function purgeSql(
  table: (typeof JOURNAL_TABLES)[number],
  scope: Scope | undefined,
  before: number | undefined,
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

export class PostgresAccessJournal implements AccessJournal {
  /** The database belongs to whoever opened it (PostgresDatabases), which closes it; a unit of work's transaction is joined. */
  constructor(private readonly database: PostgresDatabase) {}

  /** The journal's tables come with the storage's migrations (one chain: the tables are unchanged). */
  async initializeSchema(): Promise<void> {
    await this.database.migrate("storage");
  }

  async recordLostAccessAt(scope: Scope, losses: readonly RecordedLoss[]): Promise<void> {
    const { ids, principals, stamps } = stampedLostAccessValues(losses);
    if (ids.length === 0) return;
    await this.run(RECORD_LOST_ACCESS_STAMPED, [scope.collection, scope.parentId, ids, principals, stamps]);
  }

  async lostAccessAfter(scope: Scope, after: number, only: LossesWanted = {}): Promise<RecordedLoss[]> {
    // A NULL limit is no limit.
    const values: unknown[] = [scope.collection, scope.parentId, after, only.limit ?? null];
    const { principals } = only;
    const rows = await this.read<{ id: string; last_modified: string; principals: string[] }>(
      principals === undefined ? LOST_ACCESS_AFTER : lostAccessAfterOf(principals),
      values,
    );
    return rows.map((row) => ({ id: row.id, lastModified: Number(row.last_modified), principals: row.principals }));
  }

  async stampLostAccess(scope: Scope, principal: string, lost: readonly string[]): Promise<StampRange> {
    const rows = await this.run<{ first: string; last: string }>(STAMP_LOST_ACCESS, [
      scope.collection,
      scope.parentId,
      principal,
      [...lost],
    ]);
    return { first: Number(rows[0]?.first), last: Number(rows[0]?.last) };
  }

  async lostAccessOf(scope: Scope, principal: string): Promise<string[]> {
    const rows = await this.read<{ id: string }>(LOST_ACCESS_OF, [scope.collection, scope.parentId, principal]);
    return rows.map((row) => row.id);
  }

  async stampGainedAccess(scope: Scope, principal: string, gained: readonly string[]): Promise<number> {
    const rows = await this.run<{ last_modified: string }>(STAMP_GAINED_ACCESS, [
      scope.collection,
      scope.parentId,
      principal,
      [...new Set(gained)],
    ]);
    return Number(rows[0]?.last_modified);
  }

  async stampResync(scope: Scope, principal: string): Promise<number> {
    const rows = await this.run<{ last_modified: string }>(STAMP_RESYNC, [scope.collection, scope.parentId, principal]);
    return Number(rows[0]?.last_modified);
  }

  async resyncAfter(scope: Scope, principals: readonly string[], after: number): Promise<number | undefined> {
    const rows = await this.read<{ last_modified: string | null }>(RESYNC_AFTER, [
      scope.collection,
      scope.parentId,
      [...new Set(principals)],
      after,
    ]);
    const found = rows[0]?.last_modified;
    return found === null || found === undefined ? undefined : Number(found);
  }

  async gainedAccessAfter(scope: Scope, principals: readonly string[], after: number): Promise<string[]> {
    const rows = await this.read<{ id: string }>(GAINED_ACCESS_AFTER, [scope.collection, scope.parentId, [...new Set(principals)], after]);
    return rows.map((row) => row.id);
  }

  async purge(scope: Scope | undefined, before?: number): Promise<number> {
    let counted = 0;
    for (const table of JOURNAL_TABLES) {
      const { text, values } = purgeSql(table, scope, before);
      const rows = await this.run<{ n: string }>(text, values);
      // Resync marks are not entries of a record: not counted.
      if (table !== "access_resyncs") counted += Number(rows[0]?.n ?? 0);
    }
    return counted;
  }

  async flush(): Promise<void> {
    for (const table of JOURNAL_TABLES) await this.run(`DELETE FROM ${table}`);
  }

  private run<R extends Record<string, unknown>>(statement: Statement | string, values: readonly unknown[] = []): Promise<R[]> {
    return this.database.query<R>("storage", statement, values);
  }

  /** A plain SELECT: a replica that has replayed every acknowledged write may answer it (PostgresDatabase.read). */
  private read<R extends Record<string, unknown>>(statement: Statement | string, values: readonly unknown[] = []): Promise<R[]> {
    return this.database.read<R>("storage", statement, values);
  }
}
