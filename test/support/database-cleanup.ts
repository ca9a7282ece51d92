/** Mocha root hook: drops this run's PostgreSQL databases once every suite has finished. */
import { dropRunDatabases } from "./postgres.js";

export const mochaHooks = {
  async afterAll(): Promise<void> {
    await dropRunDatabases();
  },
};
