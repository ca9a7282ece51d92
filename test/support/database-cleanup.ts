/** Mocha root hook: drops this run's PostgreSQL databases once every suite has finished. */
import type { Context } from "mocha";
import { dropRunDatabases } from "./postgres.js";

export const mochaHooks = {
  async afterAll(this: Context): Promise<void> {
    this.timeout(120_000); // dropping a few databases on a loaded machine takes more than 10 s
    await dropRunDatabases();
  },
};
