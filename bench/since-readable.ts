/**
 * The cost of a restricted `_since` with nothing changed since the position, as the number of
 * records the caller may read grows: 100 / 10,000 / 100,000 readable records, each in a scope of
 * its own in one database whose tables are never analyzed (autovacuum off), read through the
 * PostgreSQL record store as a listing restricted to the caller's grants. Prints the median and
 * p95 of each size and its ratio to the smallest, measured in the same run (the machine may be
 * shared: compare the ratios, not the milliseconds). Never part of `npm test`.
 *
 *   node dist/bench/since-readable.js [rounds=200] [sizes=100,10000,100000]
 */
import pg from "pg";
import type { ListQuery } from "../src/application/listing.js";
import type { JoinedGrants as Grants } from "../src/adapters/postgres/joined-grants.js";
import { PostgresDatabase } from "../src/adapters/postgres/postgres-database.js";
import { PostgresRecordStore } from "../src/adapters/postgres/postgres-record-store.js";

const SERVER = process.env.TESSERA_BENCH_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const DATABASE = "tessera_bench_since";
const READER = "account:reader";

function urlOf(database: string): string {
  const url = new URL(SERVER);
  url.pathname = `/${database}`;
  return url.toString();
}

/** A fresh database with `size` records readable by the reader in scope `since<size>`, at 1..size. */
async function seed(client: pg.Client, size: number): Promise<void> {
  const collection = `since${size}`;
  await client.query(
    `INSERT INTO records (collection, parent_id, id, last_modified, data, deleted)
     SELECT $1, '', 'r' || g, g, jsonb_build_object('n', g), FALSE FROM generate_series(1, $2::int) g`,
    [collection, size],
  );
  await client.query(
    `INSERT INTO access_control_entries (object_id, permission, principal)
     SELECT '/' || $1 || '/r' || g, p, $3 FROM generate_series(1, $2::int) g, unnest(ARRAY['read', 'write']) p`,
    [collection, size, READER],
  );
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 200);
  const sizes = (process.argv[3] ?? "100,10000,100000").split(",").map(Number);
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  await admin.end();
  const database = new PostgresDatabase({ url: urlOf(DATABASE) });
  await database.migrate();
  const client = new pg.Client({ connectionString: urlOf(DATABASE) });
  await client.connect();
  for (const table of ["records", "access_control_entries", "lost_access"])
    await client.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
  for (const size of sizes) {
    const started = Date.now();
    await seed(client, size);
    console.log(`seeded ${size} readable records in ${Date.now() - started} ms`);
  }
  await client.end();

  const store = new PostgresRecordStore(database);
  const results: { size: number; median: number; p95: number }[] = [];
  for (const size of sizes) {
    const scope = { collection: `since${size}`, parentId: "" };
    const grants: Grants = {
      principals: [READER, "system.Authenticated"],
      permissions: ["read", "write"],
      objectIdPrefix: `/since${size}/`,
    };
    const query: ListQuery = {
      filters: [{ field: "last_modified", operator: "gt", value: size }],
      sort: [{ field: "last_modified", descending: true }],
      limit: 101,
      includeDeleted: true,
      upTo: size,
    };
    for (let i = 0; i < 20; i++) await store.list(scope, query, grants); // warm-up: the prepared statement settles
    const times: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const start = process.hrtime.bigint();
      const entries = await store.list(scope, query, grants);
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
      if (entries.length !== 0) throw new Error(`a _since at the newest change answered ${entries.length} entries`);
    }
    times.sort((a, b) => a - b);
    results.push({ size, median: percentile(times, 50), p95: percentile(times, 95) });
  }
  await database.close();
  const base = results[0]?.median ?? 1;
  console.log("readable records | median ms | p95 ms | median / smallest");
  for (const r of results) console.log(`${r.size} | ${r.median.toFixed(3)} | ${r.p95.toFixed(3)} | ${(r.median / base).toFixed(2)}`);
}

await main();
