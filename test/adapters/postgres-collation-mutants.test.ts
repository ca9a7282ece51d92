/**
 * The RecordStore contract on a database whose default collation is linguistic (ICU `en-US`,
 * where "a" < "B"), as many servers are set up, instead of the test server's code-point `C.UTF-8`.
 * Strings are compared and sorted by code point whatever the database's collation: the SQL says
 * `COLLATE "C"` wherever it compares a string. On a code-point database the mutant that drops it
 * from a string filter (record-query-sql, `compareJson`'s `string` case) changes nothing; here it
 * does (docs/mutation-testing.md, "Adapters").
 */
import { expect } from "chai";
import { PostgresDatabase } from "../../src/adapters/postgres/postgres-database.js";
import { PostgresRecordStore } from "../../src/adapters/postgres/postgres-record-store.js";
import { PostgresUnitOfWork } from "../../src/adapters/postgres/postgres-unit-of-work.js";
import { PostgresAccessJournal } from "../../src/adapters/postgres/postgres-access-journal.js";
import { accessJournalContract } from "../contract/access-journal.contract.js";
import { recordStoreContract } from "../contract/record-store.contract.js";
import { databaseUrl, testDatabaseName, withAdmin } from "../support/postgres.js";
import { POSTGRES_URL, requireService } from "../support/services.js";

const LOGICAL_NAME = "tessera_linguistic";

describe("PostgreSQL adapters on a database with a linguistic collation", function () {
  requireService("postgresql");
  const name = testDatabaseName(LOGICAL_NAME);
  let database: PostgresDatabase;

  before(async function () {
    this.timeout(180_000);
    await withAdmin(POSTGRES_URL, async (admin) => {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.query(`CREATE DATABASE "${name}" TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`);
    });
    database = new PostgresDatabase({ url: databaseUrl(LOGICAL_NAME), poolSize: 5, maxOverflow: 5 });
    await database.migrate();
  });
  after(async function () {
    this.timeout(60_000);
    await database?.close();
    await withAdmin(POSTGRES_URL, (admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  });

  it("has a default collation that orders strings otherwise than by code point", async () => {
    const rows = await database.query<{ linguistic: boolean }>("storage", "SELECT 'a' < 'B' AS linguistic");
    expect(rows[0]?.linguistic).to.equal(true);
  });

  recordStoreContract(
    "postgresql, en-US collation",
    async () => {
      const port = new PostgresRecordStore(database);
      return { port, reset: () => port.flush(), close: () => port.close() };
    },
    [
      {
        name: "a scoped unit of work joining the group commit",
        run: (work, scope) => new PostgresUnitOfWork(database).run(work, scope),
      },
    ],
  );

  // Listings with lost and gained access filter and sort the journal's entries too.
  accessJournalContract("postgresql, en-US collation", async () => {
    const port = { records: new PostgresRecordStore(database), journal: new PostgresAccessJournal(database) };
    const reset = async () => {
      await port.journal.flush();
      await port.records.flush();
    };
    return { port, reset, close: () => port.records.close() };
  });
});
