/**
 * Group commit per scope on the real PostgreSQL: concurrent writes share transactions (rows
 * written by one transaction share `xmin`), timestamps stay unique and strictly increasing
 * across "processes" (separate pools, so separate groups), and each write keeps its own outcome.
 */
import { expect } from "chai";
import { PostgresDatabase } from "../../src/adapters/postgres/postgres-database.js";
import { PostgresPermissionStore } from "../../src/adapters/postgres/postgres-permission-store.js";
import { PostgresRecordStore } from "../../src/adapters/postgres/postgres-record-store.js";
import { PostgresUnitOfWork } from "../../src/adapters/postgres/postgres-unit-of-work.js";
import { ConflictError, PreconditionFailedError, RecordNotFoundError, ValidationError } from "../../src/domain/errors.js";
import { databaseUrl, ensureDatabase, withAdmin } from "../support/postgres.js";
import { requireService } from "../support/services.js";

// The contract suites' database (its own collection names here): one database fewer to drop.
const DATABASE = "tessera_test";
const POOLS = 3;
const WRITES_PER_POOL = 60;

interface Row {
  id: string;
  last_modified: string;
  xmin: string;
}

/** The scope's rows as the database has them, with the id of the transaction that wrote each. */
function rowsOf(collection: string): Promise<Row[]> {
  return withAdmin(databaseUrl(DATABASE), async (client) => {
    const result = await client.query<Row>(
      "SELECT id, last_modified, xmin::text AS xmin FROM records WHERE collection = $1 ORDER BY last_modified",
      [collection],
    );
    return result.rows;
  });
}

async function outcome(promise: Promise<unknown>): Promise<unknown> {
  try {
    return await promise;
  } catch (error) {
    return error;
  }
}

describe("PostgreSQL group commit", function () {
  requireService("postgresql");
  this.timeout(30_000);
  const opened: { close(): Promise<void> }[] = [];

  before(async () => {
    await ensureDatabase(DATABASE);
    const database = new PostgresDatabase({ url: databaseUrl(DATABASE) });
    await database.migrate();
    await database.close();
  });
  after(async () => {
    await Promise.all(opened.map((o) => o.close()));
  });

  /** Records, permissions and units of work on one pool (as one process has them). */
  const backends = () => {
    const database = new PostgresDatabase({ url: databaseUrl(DATABASE) });
    opened.push(database);
    return {
      recordStore: new PostgresRecordStore(database),
      permissionStore: new PostgresPermissionStore(database),
      unitOfWork: new PostgresUnitOfWork(database),
    };
  };

  it("gives concurrent writes from several pools unique stamps, each transaction's stamps one unbroken run", async () => {
    const scope = { collection: "group_concurrent", parentId: "" };
    const stores = Array.from({ length: POOLS }, () => backends().recordStore);
    await Promise.all(
      stores.flatMap((store, p) => Array.from({ length: WRITES_PER_POOL }, (_, i) => store.create(scope, `p${p}-${i}`, { p, i }))),
    );

    const rows = await rowsOf("group_concurrent");
    expect(rows).to.have.length(POOLS * WRITES_PER_POOL);
    const stamps = rows.map((r) => BigInt(r.last_modified));
    expect(new Set(stamps).size, "unique").to.equal(stamps.length);
    // Groups did form: fewer transactions than writes.
    const transactions = rows.map((r) => r.xmin);
    expect(new Set(transactions).size).to.be.lessThan(rows.length);
    // The counter row lock orders whole groups: in stamp order, a transaction never reappears.
    const runs = transactions.filter((xmin, i) => i === 0 || xmin !== transactions[i - 1]);
    expect(new Set(runs).size, "each transaction's stamps are contiguous").to.equal(runs.length);
    expect(BigInt(await stores[0]!.collectionTimestamp(scope))).to.equal(stamps[stamps.length - 1]);
  });

  it("keeps each write's own outcome: failures in a group never fail the others", async () => {
    const scope = { collection: "group_mixed", parentId: "" };
    const { recordStore, permissionStore, unitOfWork } = backends();
    const records = recordStore;
    const permissions = permissionStore;
    await records.create(scope, "taken", { v: 0 });
    const target = await records.create(scope, "target", { v: 0 });

    // The first write leads a group; everything issued in the same tick joins the next one.
    const lead = records.create(scope, "lead", {});
    const writes = {
      a: records.create(scope, "a", {}),
      conflict: records.create(scope, "taken", { v: 1 }),
      stale: records.update(scope, "target", { v: 1 }, { ifMatch: target.lastModified - 1 }),
      missing: records.update(scope, "nowhere", { v: 1 }),
      unstorable: records.create(scope, "nul", { s: "\u0000" }),
      b: records.create(scope, "b", {}),
      d: records.create(scope, "d", {}),
      // Units of work last: the writes after a savepoint carry its own transaction id.
      refusedUnit: unitOfWork.run(async () => {
        await permissions.replaceObjectPermissions("/group_mixed/refused", { write: ["alice"] });
        await records.create(scope, "refused", {});
        throw ValidationError.single("body", "x", "refused after writing");
      }, scope),
      conflictUnit: unitOfWork.run(async () => {
        await permissions.replaceObjectPermissions("/group_mixed/taken", { write: ["mallory"] });
        return records.create(scope, "taken", { v: 2 });
      }, scope),
      unit: unitOfWork.run(async () => {
        await permissions.replaceObjectPermissions("/group_mixed/c", { write: ["alice"] });
        return records.create(scope, "c", {});
      }, scope),
    };
    await lead;
    const outcomes = Object.fromEntries(
      await Promise.all(Object.entries(writes).map(async ([name, p]) => [name, await outcome(p)] as const)),
    );

    expect(outcomes.conflict).to.be.instanceOf(ConflictError);
    expect(outcomes.stale).to.be.instanceOf(PreconditionFailedError);
    expect(outcomes.missing).to.be.instanceOf(RecordNotFoundError);
    expect(outcomes.unstorable).to.be.instanceOf(ValidationError);
    expect(outcomes.refusedUnit).to.be.instanceOf(ValidationError);
    expect(outcomes.conflictUnit).to.be.instanceOf(ConflictError);
    for (const id of ["a", "b", "c", "d"]) expect(await records.get(scope, id), id).to.not.equal(undefined);
    expect((await records.get(scope, "taken"))?.data).to.deep.equal({ v: 0 });
    expect((await records.get(scope, "target"))?.data).to.deep.equal({ v: 0 });
    for (const id of ["refused", "nul"]) expect(await records.get(scope, id), id).to.equal(undefined);
    // A failed unit of work leaves no ACE behind; a successful one keeps its own.
    expect(await permissions.objectPermissions("/group_mixed/refused")).to.deep.equal({});
    expect(await permissions.objectPermissions("/group_mixed/taken")).to.deep.equal({});
    expect([...((await permissions.objectPermissions("/group_mixed/c")).write ?? [])]).to.deep.equal(["alice"]);

    // The single writes issued together were committed together (a unit of work's rows carry
    // its savepoint's own transaction id, so "c" cannot be compared this way).
    const rows = await rowsOf("group_mixed");
    const xmins = new Set(rows.filter((r) => ["a", "b", "d"].includes(r.id)).map((r) => r.xmin));
    expect(xmins.size).to.equal(1);
    const stamps = rows.map((r) => BigInt(r.last_modified));
    expect(new Set(stamps).size).to.equal(stamps.length);
    expect(BigInt(await records.collectionTimestamp(scope))).to.equal(stamps[stamps.length - 1]);
  });

  it("keeps a batch-style transaction one transaction: its writes bump the counter themselves", async () => {
    const scope = { collection: "group_batch", parentId: "" };
    const { recordStore, unitOfWork } = backends();
    const records = recordStore;
    const written = await unitOfWork.run(async () => [await records.create(scope, "x", {}), await records.create(scope, "y", {})]);
    const failed = await outcome(
      unitOfWork.run(async () => {
        await records.create(scope, "z", {});
        await records.create(scope, "x", {});
      }),
    );
    expect(failed).to.be.instanceOf(ConflictError);
    const rows = await rowsOf("group_batch");
    expect(rows.map((r) => r.id)).to.deep.equal(["x", "y"]);
    expect(new Set(rows.map((r) => r.xmin)).size).to.equal(1);
    expect(written[1]!.lastModified).to.be.greaterThan(written[0]!.lastModified);
  });
});
