/**
 * Seeds `tessera_bench` with N records (each with its creator's write ACE, 100 of them readable by
 * alice, N/10 public grants elsewhere) and prints EXPLAIN ANALYZE of the hot queries as the
 * adapters issue them. Never part of `npm test`.
 *
 *   npx tsx bench/postgres-seed.ts 10000 100000 1000000
 */
import pg from "pg";
import type { ListQuery } from "../src/application/listing.js";
import type { JoinedGrants as Grants } from "../src/adapters/postgres/joined-grants.js";
import { PostgresDatabase, type Statement } from "../src/adapters/postgres/postgres-database.js";
import type { PostgresBackendName } from "../src/adapters/postgres/postgres-errors.js";
import { PostgresRecordStore } from "../src/adapters/postgres/postgres-record-store.js";

const SERVER = process.env.TESSERA_BENCH_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const DATABASE = "tessera_bench";

/** Runs every statement under EXPLAIN ANALYZE and keeps the plan of the last one. */
class ExplainingDatabase extends PostgresDatabase {
  lastPlan: string[] = [];

  override async query<R extends pg.QueryResultRow>(
    backend: PostgresBackendName,
    statement: Statement | string,
    values: readonly unknown[] = [],
  ): Promise<R[]> {
    const text = typeof statement === "string" ? statement : statement.text;
    const rows = await super.query<{ "QUERY PLAN": string }>(backend, `EXPLAIN (ANALYZE, BUFFERS) ${text}`, values);
    this.lastPlan = rows.map((row) => row["QUERY PLAN"]);
    return [];
  }
}

function urlOf(database: string): string {
  const url = new URL(SERVER);
  url.pathname = `/${database}`;
  return url.toString();
}

async function seed(n: number): Promise<void> {
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [DATABASE]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE}`);
  await admin.end();
  const database = new PostgresDatabase({ url: urlOf(DATABASE) });
  await database.migrate();
  await database.close();
  const client = new pg.Client({ connectionString: urlOf(DATABASE) });
  await client.connect();
  const started = Date.now();
  await client.query("TRUNCATE records, timestamps, access_control_entries, user_principals");
  await client.query(
    `INSERT INTO records (collection, parent_id, id, last_modified, data, deleted)
     SELECT 'articles', '', 'r' || g, 1700000000000 + g, jsonb_build_object('title', 'Article ' || g, 'n', g % 1000, 'tags', jsonb_build_array('a', 'b')), FALSE
     FROM generate_series(1, $1::int) g`,
    [n],
  );
  await client.query("INSERT INTO timestamps VALUES ('articles', '', $1)", [1700000000000 + n]);
  await client.query(
    `INSERT INTO access_control_entries SELECT '/articles/r' || g, 'write', 'basicauth:user' || (g % 1000) FROM generate_series(1, $1::int) g`,
    [n],
  );
  await client.query(
    `INSERT INTO access_control_entries SELECT '/articles/r' || (g * ($1::int / 100)), 'read', 'alice' FROM generate_series(1, 100) g`,
    [n],
  );
  await client.query(
    `INSERT INTO access_control_entries SELECT '/other/r' || g, 'read', 'system.Everyone' FROM generate_series(1, $1::int / 10) g`,
    [n],
  );
  await client.query("VACUUM ANALYZE records");
  await client.query("VACUUM ANALYZE access_control_entries");
  await client.end();
  console.log(`seeded ${n} records in ${Date.now() - started} ms`);
}

function executionMs(plan: readonly string[]): string {
  return plan.find((line) => line.startsWith("Execution Time"))?.replace("Execution Time: ", "") ?? "?";
}

async function explain(n: number): Promise<void> {
  const database = new ExplainingDatabase({ url: urlOf(DATABASE) });
  const store = new PostgresRecordStore(database);
  const scope = { collection: "articles", parentId: "" };
  const shared: ListQuery = {
    filters: [],
    sort: [{ field: "last_modified", descending: true }],
    limit: 101,
    includeDeleted: false,
  };
  const grants: Grants = {
    principals: ["alice", "system.Everyone", "system.Authenticated"],
    permissions: ["read", "write"],
    objectIdPrefix: "/articles/",
  };
  const cases: [string, () => Promise<unknown>][] = [
    ["list 100 shared (principals join)", () => store.list(scope, shared, grants)],
    ["list 100 shared, 2nd run", () => store.list(scope, shared, grants)],
    ["count shared", () => store.count(scope, { filters: [] }, grants)],
    [
      "list shared, a creator with N/1000 grants",
      () => store.list(scope, shared, { ...grants, principals: ["basicauth:user7", "system.Everyone", "system.Authenticated"] }),
    ],
    ["list page 2 (keyset) of everything", () => store.list(scope, { ...shared, after: { values: [1700000000000 + n - 100] } })],
    [
      "list filtered on data (n = 7, sort -n)",
      () =>
        store.list(scope, {
          ...shared,
          filters: [{ field: "n", operator: "eq", value: 7 }],
          sort: [
            { field: "n", descending: true },
            { field: "last_modified", descending: true },
          ],
        }),
    ],
    ["get by id", () => store.get(scope, `r${Math.floor(n / 2)}`)],
  ];
  for (const [label, run] of cases) {
    await run();
    console.log(`${n}\t${label}\t${executionMs(database.lastPlan)}`);
    if (process.env.VERBOSE) console.log(database.lastPlan.join("\n"));
  }
  await database.close();
}

for (const arg of process.argv.slice(2)) {
  const n = Number(arg);
  // TESSERA_BENCH_SKIP_SEED=1 explains again the data seeded by the previous run (same N).
  if (!process.env.TESSERA_BENCH_SKIP_SEED) await seed(n);
  await explain(n);
}
