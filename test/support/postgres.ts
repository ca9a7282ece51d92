/**
 * Dedicated PostgreSQL databases for test suites. Every name a suite asks for gets this run's
 * suffix, so two runs on one server (two developers, a developer and CI) never share a database;
 * the root hook in `database-cleanup.ts` drops this run's databases when the run ends.
 */
import pg from "pg";
import { POSTGRES_URL } from "./services.js";

/** Unique per test run; a run may pin it (and so reuse its databases) with TESSERA_TEST_RUN. */
export const TEST_RUN = process.env.TESSERA_TEST_RUN ?? `${process.pid}_${Date.now().toString(36)}`;
const created = new Set<string>();

/** The database this run uses for a suite's logical database name. */
export function testDatabaseName(name: string): string {
  return `${name}_${TEST_RUN}`.toLowerCase();
}

/** The test server's URL with this run's database of that name (and port, to go through a proxy). */
export function databaseUrl(name: string, port?: number): string {
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${testDatabaseName(name)}`;
  if (port !== undefined) url.port = String(port);
  return url.toString();
}

export async function withAdmin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates this run's database of that name if missing (or afresh). */
export function ensureDatabase(name: string, fresh = false): Promise<void> {
  const database = testDatabaseName(name);
  return withAdmin(POSTGRES_URL, async (admin) => {
    if (fresh) await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    created.add(database);
    if (found.rowCount !== 0) return;
    await admin.query(`CREATE DATABASE "${database}"`);
  });
}

/** Drops every database this run created (called once, after the whole run). */
export async function dropRunDatabases(): Promise<void> {
  if (created.size === 0) return;
  await withAdmin(POSTGRES_URL, async (admin) => {
    for (const database of created) await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  });
  created.clear();
}
