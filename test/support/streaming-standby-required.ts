/**
 * Suites on a streaming standby need the PostgreSQL server programs on this machine, not only a
 * reachable server. Like `requireService`: without them the suite skips loudly, or fails under CI.
 */
import { localPostgres } from "./local-postgres.js";
import { underCi } from "./services.js";

/** Call inside `describe`, before the hooks that start a pair. */
export function requireStreamingStandby(): void {
  before(async function () {
    const found = await localPostgres();
    if (typeof found !== "string") return;
    const message = `no streaming standby: ${found}`;
    if (underCi()) throw new Error(`${message} (CI=${process.env.CI}: suites needing it fail instead of skipping)`);
    console.warn(`\n  SKIPPING: ${message}. Install the PostgreSQL server packages to run these tests.\n`);
    this.skip();
  });
}
