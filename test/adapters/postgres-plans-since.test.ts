/**
 * A restricted `_since` costs what changed, not what the caller may read: 10,000 records readable
 * by the caller, 2,000 records it lost, on tables never analyzed (autovacuum off), and a `_since`
 * at the newest change. The rows the statement reads (EXPLAIN ANALYZE: rows out of every node,
 * and rows a filter threw away, times loops) are counted in its custom plan and in the generic
 * plan a prepared statement settles on: a count, not a time.
 */
import { expect } from "chai";
import pg from "pg";
import type { ListQuery } from "../../src/application/listing.js";
import type { JoinedGrants as Grants } from "../../src/adapters/postgres/joined-grants.js";
import { PostgresRecordStore } from "../../src/adapters/postgres/postgres-record-store.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { statementOf } from "../support/plans.js";
import { RecordingDatabase, type Sent } from "../support/recording-database.js";
import { requireService } from "../support/services.js";

const DATABASE = "tessera_plans_since_test";
const scope = { collection: "since", parentId: "" };
const READABLE = 10_000;
const LOST = 2_000;
/** The newest change: records 1..READABLE at 1000 + n, losses below them. */
const NEWEST = 1000 + READABLE;
const GRANTS: Grants = {
  principals: ["account:reader", "system.Authenticated"],
  permissions: ["read", "write"],
  objectIdPrefix: "/since/",
};

interface AnalyzedNode {
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: AnalyzedNode[];
}

/** Rows every node produced or filtered out, times its loops. */
function rowsRead(node: AnalyzedNode): number {
  const loops = node["Actual Loops"] ?? 1;
  const own = ((node["Actual Rows"] ?? 0) + (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0)) * loops;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child), 0);
}

describe("a restricted _since on never-analyzed tables", function () {
  requireService("postgresql");
  this.timeout(60_000);
  const database = new RecordingDatabase({ url: databaseUrl(DATABASE) });
  const store = new PostgresRecordStore(database);
  let client: pg.Client;

  before(async () => {
    await ensureDatabase(DATABASE, true);
    await database.migrate();
    client = new pg.Client({ connectionString: databaseUrl(DATABASE) });
    await client.connect();
    for (const table of ["records", "access_control_entries", "lost_access"])
      await client.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
    await client.query(
      `INSERT INTO records (collection, parent_id, id, last_modified, data, deleted)
       SELECT 'since', '', 'r' || g, 1000 + g, '{}'::jsonb, FALSE FROM generate_series(1, ${READABLE}) g`,
    );
    await client.query(
      `INSERT INTO access_control_entries (object_id, permission, principal)
       SELECT '/since/r' || g, p, 'account:reader' FROM generate_series(1, ${READABLE}) g, unnest(ARRAY['read', 'write']) p`,
    );
    await client.query(
      `INSERT INTO lost_access (collection, parent_id, principal, id, last_modified)
       SELECT 'since', '', 'account:reader', 'gone' || g, g FROM generate_series(1, ${LOST}) g`,
    );
  });
  after(async () => {
    await client?.end();
    await database.close();
  });

  /** Rows read by the statement's custom plan and by its generic plan. */
  async function rowsOf(sent: Sent): Promise<{ custom: number; generic: number }> {
    const analyze = async (text: string, values: readonly unknown[]) => {
      const result = await client.query<{ "QUERY PLAN": { Plan: AnalyzedNode }[] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, [...values]);
      return rowsRead(result.rows[0]!["QUERY PLAN"][0]!.Plan);
    };
    const custom = await analyze(sent.text, sent.values);
    await client.query(`PREPARE since_planned AS ${sent.text}`);
    try {
      await client.query("SET plan_cache_mode = force_generic_plan");
      const literal = (value: unknown): string => {
        if (value === null) return "NULL";
        if (typeof value === "number") return String(value);
        if (Array.isArray(value)) return client.escapeLiteral(`{${value.map((v) => `"${String(v as string)}"`).join(",")}}`);
        return client.escapeLiteral(typeof value === "string" ? value : JSON.stringify(value));
      };
      const literals = sent.values.map(literal);
      const generic = await analyze(`EXECUTE since_planned(${literals.join(", ")})`, []);
      return { custom, generic };
    } finally {
      await client.query("RESET plan_cache_mode");
      await client.query("DEALLOCATE since_planned");
    }
  }

  const since = (includeDeleted: boolean): ListQuery => ({
    filters: [{ field: "last_modified", operator: "gt", value: NEWEST }],
    sort: [{ field: "last_modified", descending: true }],
    limit: 101,
    includeDeleted,
    upTo: NEWEST,
  });

  it("reads a handful of rows when nothing changed since, however many records the caller may read", async () => {
    const sent = await statementOf(database, /FROM records/, () => store.list(scope, since(false), GRANTS));
    const rows = await rowsOf(sent);
    expect(Math.max(rows.custom, rows.generic), sent.text).to.be.below(20);
  });

  it("checks only the losses since the position, each through the ACE primary key", async () => {
    const sent = await statementOf(database, /FROM records/, () => store.list(scope, since(true), GRANTS));
    const rows = await rowsOf(sent);
    // The losses are read through the caller's entries (no index leads with their time): linear, one ACE probe for none of them.
    expect(Math.max(rows.custom, rows.generic), sent.text).to.be.below(LOST + 20);
  });

  it("answers the changes above the position, each checked against the caller's ACEs", async () => {
    const changed = await store.list(
      scope,
      { ...since(true), filters: [{ field: "last_modified", operator: "gt", value: NEWEST - 3 }] },
      GRANTS,
    );
    expect(changed.map((entry) => entry.id)).to.deep.equal([`r${READABLE}`, `r${READABLE - 1}`, `r${READABLE - 2}`]);
    const stranger = { ...GRANTS, principals: ["account:stranger"] };
    expect(
      await store.list(scope, { ...since(true), filters: [{ field: "last_modified", operator: "gt", value: NEWEST - 3 }] }, stranger),
    ).to.deep.equal([]);
  });
});
