/**
 * The shared contracts against the PostgreSQL adapters, in a dedicated database (`tessera_test`)
 * so that other suites using `test` are not disturbed. PostgreSQL-only behaviour lives in
 * postgres-*.test.ts.
 */
import { PostgresAccessJournal } from "../../src/adapters/postgres/postgres-access-journal.js";
import { PostgresCache } from "../../src/adapters/postgres/postgres-cache.js";
import { PostgresDatabase } from "../../src/adapters/postgres/postgres-database.js";
import { PostgresPermissionStore } from "../../src/adapters/postgres/postgres-permission-store.js";
import { PostgresRecordStore } from "../../src/adapters/postgres/postgres-record-store.js";
import { PostgresUnitOfWork } from "../../src/adapters/postgres/postgres-unit-of-work.js";
import { accessJournalContract } from "../contract/access-journal.contract.js";
import { cacheContract } from "../contract/cache.contract.js";
import { permissionStoreContract } from "../contract/permission-store.contract.js";
import { recordStoreContract } from "../contract/record-store.contract.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { requireService } from "../support/services.js";

const TEST_DATABASE = "tessera_test";

describe("PostgreSQL adapters", function () {
  requireService("postgresql");
  let database: PostgresDatabase;

  before(async function () {
    this.timeout(180_000);
    await ensureDatabase(TEST_DATABASE);
    database = new PostgresDatabase({ url: databaseUrl(TEST_DATABASE), poolSize: 5, maxOverflow: 5 });
    await database.migrate();
  });
  after(async () => {
    await database?.close();
  });

  // The three ways the compositions run a unit of work: a batch (no scope: one plain transaction),
  // a unit of the portable SharedRecords (permissions in another backend, as Redis: it names no
  // scope, so it has its own transaction, each write bumping the counter) and one of
  // PostgresSharedRecords, which names its scope and so joins the scope's group commit.
  const units = {
    plain: (): PostgresUnitOfWork => new PostgresUnitOfWork(database),
    grouped: (): PostgresUnitOfWork => new PostgresUnitOfWork(database),
  };
  recordStoreContract(
    "postgresql",
    async () => {
      const port = new PostgresRecordStore(database);
      return { port, reset: () => port.flush(), close: () => port.close() };
    },
    [
      { name: "a batch's transaction (no group clock)", run: (work) => units.plain().run(work) },
      {
        name: "a scoped unit of work with permissions elsewhere, as Redis (no group clock)",
        run: (work) => units.plain().run(work),
      },
      { name: "a scoped unit of work joining the group commit", run: (work, scope) => units.grouped().run(work, scope) },
    ],
  );

  accessJournalContract("postgresql", async () => {
    const port = { records: new PostgresRecordStore(database), journal: new PostgresAccessJournal(database) };
    const reset = async () => {
      await port.journal.flush();
      await port.records.flush();
    };
    return { port, reset, close: () => port.records.close() };
  });

  permissionStoreContract("postgresql", async (options) => {
    const port = new PostgresPermissionStore(database, options?.groupMaxDepth);
    return { port, reset: () => port.flush(), close: () => port.close() };
  });

  cacheContract("postgresql", async (options) => {
    const port = new PostgresCache(database, options?.prefix !== undefined ? { prefix: options.prefix } : {});
    return { port, reset: () => port.flush(), close: () => port.close() };
  });
});
