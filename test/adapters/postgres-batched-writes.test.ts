/**
 * Group commit sends the single-record creates and updates of one group as one statement per
 * run (adapters/postgres/batched-writes.ts), and a create's ACL with it (RecordWithAclWriter):
 * counted here in statements sent, with each write's own outcome and the stored rows read back
 * with plain SQL.
 */
import { expect } from "chai";
import { PostgresPermissionStore } from "../../src/adapters/postgres/postgres-permission-store.js";
import { PostgresRecordStore } from "../../src/adapters/postgres/postgres-record-store.js";
import { PostgresUnitOfWork } from "../../src/adapters/postgres/postgres-unit-of-work.js";
import { ConflictError, PreconditionFailedError, RecordNotFoundError } from "../../src/domain/errors.js";
import { databaseUrl, ensureDatabase, withAdmin } from "../support/postgres.js";
import { RecordingDatabase } from "../support/recording-database.js";
import { requireService } from "../support/services.js";

// The contract suites' database (its own collection names here): one database fewer to drop.
const DATABASE = "tessera_test";
const WRITES = 20;

async function outcome(promise: Promise<unknown>): Promise<unknown> {
  try {
    return await promise;
  } catch (error) {
    return error;
  }
}

/** The stored ACEs of an object, as sorted "permission:principal" strings (plain SQL). */
function acesOf(objectId: string): Promise<string[]> {
  return withAdmin(databaseUrl(DATABASE), async (client) => {
    const result = await client.query<{ ace: string }>(
      "SELECT permission || ':' || principal AS ace FROM access_control_entries WHERE object_id = $1 ORDER BY 1",
      [objectId],
    );
    return result.rows.map((row) => row.ace);
  });
}

describe("PostgreSQL batched writes of a group", function () {
  requireService("postgresql");
  this.timeout(30_000);
  let database: RecordingDatabase;
  let records: PostgresRecordStore;
  let permissions: PostgresPermissionStore;

  before(async () => {
    await ensureDatabase(DATABASE);
    database = new RecordingDatabase({ url: databaseUrl(DATABASE) });
    await database.migrate();
    records = new PostgresRecordStore(database);
    permissions = new PostgresPermissionStore(database);
  });
  after(async () => {
    await database?.close();
  });

  /** How many statements `work` sent whose text matches `pattern`. */
  async function statementsOf(pattern: RegExp, work: () => Promise<unknown>): Promise<number> {
    database.sent.length = 0;
    await work();
    return database.sent.filter((s) => pattern.test(s.text)).length;
  }

  it("sends the creates that wait for a group as one statement, each keeping its own outcome", async () => {
    const scope = { collection: "batch_creates", parentId: "" };
    await records.create(scope, "taken", { v: 0 });
    const results: unknown[] = [];
    const sent = await statementsOf(/INSERT INTO records/, async () => {
      // The lead runs alone; everything issued meanwhile waits and forms the next group.
      const lead = records.create(scope, "lead", {});
      const rest = Array.from({ length: WRITES }, (_, i) => records.create(scope, i === 7 ? "taken" : `c${i}`, { i }));
      results.push(...(await Promise.all([lead, ...rest].map(outcome))));
    });
    expect(sent).to.equal(2);
    expect(results.filter((r) => r instanceof ConflictError)).to.have.length(1);
    const stamps = results.filter((r): r is { lastModified: number } => !(r instanceof Error)).map((r) => r.lastModified);
    expect(stamps).to.have.length(WRITES);
    expect(new Set(stamps).size).to.equal(WRITES);
    expect((await records.get(scope, "taken"))?.data).to.deep.equal({ v: 0 });
    expect((await records.get(scope, "c19"))?.data).to.deep.equal({ i: 19 });
    expect(await records.collectionTimestamp(scope)).to.equal(Math.max(...stamps));
  });

  it("sends waiting updates as one statement; a failed If-Match or a missing record fails only its own", async () => {
    const scope = { collection: "batch_updates", parentId: "" };
    const created = await Promise.all(Array.from({ length: WRITES }, (_, i) => records.create(scope, `u${i}`, { v: 0 })));
    const results: unknown[] = [];
    const sent = await statementsOf(/UPDATE records/, async () => {
      const lead = records.update(scope, "u0", { v: 1 });
      const rest = created
        .slice(1)
        .map((record, i) =>
          i === 3
            ? records.update(scope, record.id, { v: 1 }, { ifMatch: record.lastModified - 1 })
            : records.update(scope, record.id, { v: 1 }, { ifMatch: record.lastModified }),
        );
      results.push(...(await Promise.all([lead, ...rest, records.update(scope, "nowhere", { v: 1 })].map(outcome))));
    });
    expect(sent).to.equal(2);
    expect(results[4]).to.be.instanceOf(PreconditionFailedError);
    expect(results[WRITES]).to.be.instanceOf(RecordNotFoundError);
    expect(results.filter((r) => r instanceof Error)).to.have.length(2);
    expect((await records.get(scope, "u4"))?.data).to.deep.equal({ v: 0 });
    expect((await records.get(scope, "u5"))?.data).to.deep.equal({ v: 1 });
  });

  it("never names one record twice in a statement: two updates of it in one group both apply, in order", async () => {
    const scope = { collection: "batch_same_record", parentId: "" };
    await records.create(scope, "r", { v: 0 });
    const lead = records.update(scope, "other", { v: 1 }).catch(() => undefined);
    const first = records.update(scope, "r", { v: 1 });
    const second = records.update(scope, "r", { v: 2 });
    await lead;
    const [a, b] = await Promise.all([first, second]);
    expect(b.lastModified).to.be.greaterThan(a.lastModified);
    expect(await records.get(scope, "r")).to.deep.equal({ id: "r", lastModified: b.lastModified, data: { v: 2 } });
  });

  it("creates a record and replaces its ACL in the same statement, the ACLs of a group each to its own record", async () => {
    const scope = { collection: "batch_acl", parentId: "" };
    // Left over on an id without a record: the named permissions are replaced, not merged.
    await permissions.replaceObjectPermissions("/batch_acl/a0", { read: ["eve"], write: ["mallory"] });
    const sent = await statementsOf(/INSERT INTO access_control_entries/, async () => {
      const lead = records.createWithAcl(scope, "lead", {}, {}, { objectId: "/batch_acl/lead", permissions: { write: ["x"] } });
      const rest = Array.from({ length: WRITES }, (_, i) =>
        records.createWithAcl(
          scope,
          `a${i}`,
          { i },
          {},
          { objectId: `/batch_acl/a${i}`, permissions: { read: [`r${i}`], write: [`w${i}`] } },
        ),
      );
      await Promise.all([lead, ...rest]);
    });
    expect(sent).to.equal(2);
    expect(await acesOf("/batch_acl/a0")).to.deep.equal(["read:r0", "write:w0"]);
    expect(await acesOf("/batch_acl/a13")).to.deep.equal(["read:r13", "write:w13"]);
    expect((await records.get(scope, "a13"))?.data).to.deep.equal({ i: 13 });
  });

  it("empties a permission named without principals, and leaves the ACL alone when the create is refused", async () => {
    const scope = { collection: "batch_acl_refused", parentId: "" };
    await permissions.replaceObjectPermissions("/batch_acl_refused/e", { read: ["eve"], write: ["mallory"] });
    await records.createWithAcl(scope, "e", {}, {}, { objectId: "/batch_acl_refused/e", permissions: { read: [], write: ["alice"] } });
    expect(await acesOf("/batch_acl_refused/e")).to.deep.equal(["write:alice"]);

    const refused = await outcome(
      records.createWithAcl(scope, "e", { v: 2 }, {}, { objectId: "/batch_acl_refused/e", permissions: { write: ["mallory"] } }),
    );
    expect(refused).to.be.instanceOf(ConflictError);
    expect(await acesOf("/batch_acl_refused/e")).to.deep.equal(["write:alice"]);
    expect((await records.get(scope, "e"))?.data).to.deep.equal({});
  });

  it("inside a transaction of its own (a batch request), commits or rolls back the record and its ACL together", async () => {
    const scope = { collection: "batch_acl_transaction", parentId: "" };
    const unitOfWork = new PostgresUnitOfWork(database);
    const created = await unitOfWork.run(() =>
      records.createWithAcl(scope, "kept", {}, {}, { objectId: "/batch_acl_transaction/kept", permissions: { write: ["alice"] } }),
    );
    expect(await records.collectionTimestamp(scope)).to.equal(created.lastModified);
    const failed = await outcome(
      unitOfWork.run(async () => {
        await records.createWithAcl(scope, "gone", {}, {}, { objectId: "/batch_acl_transaction/gone", permissions: { write: ["alice"] } });
        throw new Error("a later sub-request failed");
      }),
    );
    expect(failed).to.be.instanceOf(Error);
    expect(await acesOf("/batch_acl_transaction/kept")).to.deep.equal(["write:alice"]);
    expect(await acesOf("/batch_acl_transaction/gone")).to.deep.equal([]);
    expect(await records.get(scope, "gone")).to.equal(undefined);
  });
});
