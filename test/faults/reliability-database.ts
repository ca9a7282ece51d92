/**
 * The one PostgreSQL database the reliability suites (fault injection, concurrent PATCH) share:
 * every database of a run costs a checkpoint to drop at its end, and none of these suites needs
 * an empty one (each writes records of its own).
 */
import { PostgresDatabase } from "../../src/adapters/postgres/postgres-database.js";
import { ensureDatabase } from "../support/postgres.js";

export const RELIABILITY_DATABASE = "tessera_reliability";

/** Creates the database if this run has not yet, and migrates it (both idempotent). */
export async function prepareReliabilityDatabase(url: string): Promise<void> {
  await ensureDatabase(RELIABILITY_DATABASE);
  const database = new PostgresDatabase({ url });
  try {
    await database.migrate();
  } finally {
    await database.close();
  }
}
