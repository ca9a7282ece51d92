/**
 * The statements a transaction sends in the round trips of its BEGIN and COMMIT (the group
 * commit's counter lock and counter update): they run inside the transaction, the work gets what
 * the first one read, and a failing last one takes the whole transaction back.
 */
import { expect } from "chai";
import { PostgresDatabase } from "../../src/adapters/postgres/postgres-database.js";
import { PostgresRecordStore } from "../../src/adapters/postgres/postgres-record-store.js";
import { BackendError, ValidationError } from "../../src/domain/errors.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { requireService } from "../support/services.js";

const DATABASE = "tessera_test";
const TABLE = "tessera_transaction_edges_test";

describe("PostgreSQL transaction edges", function () {
  requireService("postgresql");
  this.timeout(20_000);
  let database: PostgresDatabase;

  /** The table's values with the transaction that wrote each. */
  const rows = () => database.query<{ v: number; xmin: string }>("storage", `SELECT v, xmin::text AS xmin FROM ${TABLE} ORDER BY v`);

  before(async () => {
    await ensureDatabase(DATABASE);
    database = new PostgresDatabase({ url: databaseUrl(DATABASE), poolSize: 2 });
    await database.query("storage", `DROP TABLE IF EXISTS ${TABLE}`);
    await database.query("storage", `CREATE TABLE ${TABLE} (v integer)`);
  });
  beforeEach(() => database.query("storage", `DELETE FROM ${TABLE}`));
  after(async () => {
    await database?.query("storage", `DROP TABLE IF EXISTS ${TABLE}`);
    await database?.close();
  });

  it("hands the work the rows read with BEGIN, and runs the statement sent with COMMIT in the same transaction", async () => {
    const seen = await database.transaction<unknown, { answer: number }>(
      "storage",
      async (opened) => {
        await database.query("storage", `INSERT INTO ${TABLE} VALUES (1)`);
        return opened;
      },
      { afterBegin: "SELECT 41 + 1 AS answer", beforeCommit: () => `INSERT INTO ${TABLE} VALUES (2)` },
    );
    expect(seen).to.deep.equal([{ answer: 42 }]);
    const written = await rows();
    expect(written.map((row) => row.v)).to.deep.equal([1, 2]);
    expect(written[0]?.xmin).to.equal(written[1]?.xmin);
  });

  it("runs both statements around the work of a transaction joined inside another", async () => {
    const seen = await database.transaction(
      "storage",
      () =>
        database.transaction<unknown, { answer: number }>(
          "storage",
          async (opened) => {
            await database.query("storage", `INSERT INTO ${TABLE} VALUES (6)`);
            return opened;
          },
          { afterBegin: "SELECT 6 * 7 AS answer", beforeCommit: () => `INSERT INTO ${TABLE} VALUES (7)` },
        ),
      { beforeCommit: () => `INSERT INTO ${TABLE} VALUES (8)` },
    );
    expect(seen).to.deep.equal([{ answer: 42 }]);
    const written = await rows();
    expect(written.map((row) => row.v)).to.deep.equal([6, 7, 8]);
    expect(new Set(written.map((row) => row.xmin)).size).to.equal(1);
  });

  it("takes the work back when the statement sent with COMMIT fails, and serves the next statement", async () => {
    const failed = await database
      .transaction("storage", () => database.query("storage", `INSERT INTO ${TABLE} VALUES (3)`), {
        beforeCommit: () => `INSERT INTO ${TABLE} VALUES (1 / 0)`,
      })
      .catch((error: unknown) => error);
    expect(failed).to.be.instanceOf(BackendError);
    expect(await rows()).to.deep.equal([]);
    // The connection left in a failed transaction was closed, not handed to the next caller.
    for (let i = 0; i < 3; i++) await database.query("storage", `INSERT INTO ${TABLE} VALUES (${i})`);
    expect((await rows()).map((row) => row.v)).to.deep.equal([0, 1, 2]);
  });

  it("asks for no COMMIT statement when the work failed", async () => {
    let asked = 0;
    const refused = new Error("refused");
    const failed = await database
      .transaction(
        "storage",
        async () => {
          await database.query("storage", `INSERT INTO ${TABLE} VALUES (4)`);
          throw refused;
        },
        {
          beforeCommit: () => {
            asked++;
            return `INSERT INTO ${TABLE} VALUES (5)`;
          },
        },
      )
      .catch((error: unknown) => error);
    expect(failed).to.equal(refused);
    expect(asked).to.equal(0);
    expect(await rows()).to.deep.equal([]);
  });

  it("answers a write to a scope whose key holds a NUL as a bad string (400), not an outage", async () => {
    const records = new PostgresRecordStore(database);
    const failed = await records.create({ collection: "edges", parentId: "user\u0000x" }, "r1", {}).catch((error: unknown) => error);
    expect(failed).to.be.instanceOf(ValidationError);
  });
});
