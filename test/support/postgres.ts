/** Dedicated PostgreSQL databases for test suites, so parallel suites never share tables. */
import pg from "pg";
import { POSTGRES_URL } from "./services.js";

/** The test server's URL with another database name (and port, to go through a proxy). */
export function databaseUrl(name: string, port?: number): string {
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
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

/** Creates the database if missing (or afresh), tolerating a parallel run creating it too. */
export function ensureDatabase(name: string, fresh = false): Promise<void> {
  return withAdmin(POSTGRES_URL, async (admin) => {
    if (fresh) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.rowCount !== 0) return;
    await admin.query(`CREATE DATABASE "${name}"`).catch((err: { code?: string }) => {
      if (err.code !== "42P04" && err.code !== "23505") throw err;
    });
  });
}

/**
 * Test runs of several developers share one server: each run of the PostgreSQL suites holds this
 * advisory lock (on its own connection) so that they take turns instead of flushing each other's data.
 */
const SUITE_LOCK_KEY = 7_364_211_094;

export async function lockSuite(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query("SELECT pg_advisory_lock($1)", [SUITE_LOCK_KEY]);
  return client;
}

export async function unlockSuite(client: pg.Client | undefined): Promise<void> {
  await client?.end(); // ending the session releases its advisory lock
}
