/** Dedicated PostgreSQL databases for test suites, so parallel suites never share tables. */
import pg from "pg";
import { POSTGRES_URL } from "./services.js";

/** The test server's URL with another database name. */
export function databaseUrl(name: string): string {
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Creates the database if missing (or afresh), tolerating a parallel run creating it too. */
export async function ensureDatabase(name: string, fresh = false): Promise<void> {
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  try {
    if (fresh) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.rowCount === 0) {
      await admin.query(`CREATE DATABASE "${name}"`).catch((err: { code?: string }) => {
        if (err.code !== "42P04" && err.code !== "23505") throw err;
      });
    }
  } finally {
    await admin.end();
  }
}
