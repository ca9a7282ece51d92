/**
 * A page of members costs the page on PostgreSQL, whatever the group's size: the statements
 * membersPage sends for `_limit=1` (and the page after a cursor) are run again under EXPLAIN
 * ANALYZE, and the rows their scans of user_principals read are counted, for a group of 20 and a
 * group of 2,000 built alike (one nested group of 3 each). Same statements, same rows: the work
 * follows the page and the nested groups, never the members. Counts, never the clock.
 */
import { expect } from "chai";
import pg from "pg";
import { PostgresPermissionStore } from "../../src/adapters/postgres/postgres-permission-store.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import type { PlanNode } from "../support/plans.js";
import { RecordingDatabase, type Sent } from "../support/recording-database.js";
import { requireService } from "../support/services.js";

const DATABASE = "tessera_members_cost_test";

interface AnalyzedNode extends PlanNode {
  "Actual Rows": number;
  "Actual Loops": number;
  "Rows Removed by Filter"?: number;
  Plans?: AnalyzedNode[];
}

/** Rows the scans of user_principals read (returned or filtered out), over every loop. */
function rowsRead(node: AnalyzedNode): number {
  const own =
    node["Relation Name"] === "user_principals" ? (node["Actual Rows"] + (node["Rows Removed by Filter"] ?? 0)) * node["Actual Loops"] : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child), 0);
}

/** A parameter as SQL text (EXECUTE takes no bind parameters under EXPLAIN): strings, numbers, lists of strings. */
function literal(value: unknown): string {
  if (typeof value === "number") return String(value);
  if (Array.isArray(value)) return `ARRAY[${value.map(literal).join(", ")}]::text[]`;
  return `'${String(value).replaceAll("'", "''")}'`;
}

function seqScans(node: AnalyzedNode): number {
  return (node["Node Type"] === "Seq Scan" ? 1 : 0) + (node.Plans ?? []).reduce((sum, child) => sum + seqScans(child), 0);
}

describe("PostgreSQL: a page of members reads a page, whatever the group's size", function () {
  requireService("postgresql");
  this.timeout(60_000);
  const database = new RecordingDatabase({ url: databaseUrl(DATABASE) });
  const permissions = new PostgresPermissionStore(database);
  let client: pg.Client;

  before(async () => {
    await ensureDatabase(DATABASE, true);
    await database.migrate();
    // Planned as the pool plans them (postgres-database.ts): generic plans, whatever the parameters.
    client = new pg.Client({ connectionString: databaseUrl(DATABASE), options: "-c plan_cache_mode=force_generic_plan" });
    await client.connect();
    await client.query("ALTER TABLE user_principals SET (autovacuum_enabled = false)");
    for (const [group, size] of [
      ["small", 20],
      ["large", 2_000],
    ] as const) {
      await client.query(
        `INSERT INTO user_principals (user_id, principal)
         SELECT 'account:' || $1 || lpad(g::text, 5, '0'), 'group:' || $1 FROM generate_series(1, $2::int) g`,
        [group, size],
      );
      await client.query(
        `INSERT INTO user_principals (user_id, principal)
         SELECT 'account:' || $1 || '-sub' || g, 'group:' || $1 || '-sub' FROM generate_series(1, 3) g
         UNION ALL SELECT 'group:' || $1 || '-sub', 'group:' || $1`,
        [group],
      );
    }
  });
  after(async () => {
    await client?.end();
    await database.close();
  });

  /** What membersPage sent for the page, and the rows those statements read, run again under EXPLAIN ANALYZE. */
  async function cost(group: string, after: string | undefined): Promise<{ ids: string[]; statements: number; rows: number }> {
    database.sent.length = 0;
    const page = await permissions.membersPage([`group:${group}`], after, 1);
    const sent: Sent[] = [...database.sent];
    let rows = 0;
    for (const statement of sent) {
      // Prepared, so that the plan is the generic one the pool runs (an EXPLAIN with parameters plans for their values).
      await client.query(`PREPARE page_statement AS ${statement.text}`);
      const values = statement.values.map(literal);
      const args = values.length === 0 ? "" : `(${values.join(", ")})`;
      const result = await client
        .query<{ "QUERY PLAN": { Plan: AnalyzedNode }[] }>(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE page_statement${args}`)
        .finally(() => client.query("DEALLOCATE page_statement"));
      const plan = result.rows[0]!["QUERY PLAN"][0]!.Plan;
      expect(seqScans(plan), statement.text).to.equal(0);
      rows += rowsRead(plan);
    }
    return { ids: page.map((m) => m.id), statements: sent.length, rows };
  }

  it("_limit=1 from the start and after a cursor: the same statements and rows for 20 and 2,000 members", async () => {
    const small = [await cost("small", undefined), await cost("small", "account:small00010")];
    const large = [await cost("large", undefined), await cost("large", "account:large01000")];
    expect(small.map((c) => c.ids)).to.deep.equal([["account:small-sub1"], ["account:small00011"]]);
    expect(large.map((c) => c.ids)).to.deep.equal([["account:large-sub1"], ["account:large01001"]]);
    expect(large.map((c) => c.statements)).to.deep.equal(small.map((c) => c.statements));
    expect(large.map((c) => c.rows)).to.deep.equal(small.map((c) => c.rows));
    expect(small[0]!.rows).to.be.below(40);
  });
});
