/** Mocha root hook: drops this run's PostgreSQL databases once every suite has finished. */
import { dropRunDatabases } from "./postgres.js";

export const mochaHooks = {
  async afterAll(this: Mocha.Context): Promise<void> {
    // Each DROP DATABASE waits for a checkpoint: seconds apiece on a busy server.
    this.timeout(60_000);
    await dropRunDatabases();
  },
};
