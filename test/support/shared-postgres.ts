/** A PostgreSQL database that several `tessera serve` processes share, for multi-process tests. */
import { PostgresDatabase } from "../../src/adapters/postgres/postgres-database.js";
import { databaseUrl, ensureDatabase } from "./postgres.js";

/** This run's database of that name, created (afresh if asked) and migrated; returns its URL. */
export async function migratedDatabase(name: string, fresh = false): Promise<string> {
  await ensureDatabase(name, fresh);
  const url = databaseUrl(name);
  const database = new PostgresDatabase({ url });
  try {
    await database.migrate();
  } finally {
    await database.close();
  }
  return url;
}

/** Settings of a process whose storage and permissions both live in that database. */
export function sharedPostgresSettings(url: string): Record<string, string> {
  return { storage_backend: "postgresql", storage_url: url, permission_backend: "postgresql", permission_url: url };
}
