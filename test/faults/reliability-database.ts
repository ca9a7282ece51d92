/**
 * The one PostgreSQL database the reliability suites (fault injection, concurrent PATCH) share:
 * every database of a run costs a checkpoint to drop at its end, and none of these suites needs
 * an empty one (each writes records of its own).
 */
import { migratedDatabase } from "../support/shared-postgres.js";

export const RELIABILITY_DATABASE = "tessera_reliability";

/** Creates the database if this run has not yet, and migrates it (both idempotent); returns its URL. */
export function prepareReliabilityDatabase(): Promise<string> {
  return migratedDatabase(RELIABILITY_DATABASE);
}
