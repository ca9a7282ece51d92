/**
 * Group commit's rules that only a mutant showed untested (docs/mutation-testing.md, "Adapters").
 * A group's clock stamps only its own scope's writes: writes to two scopes issued together go to
 * two groups, and writes of another scope made inside a grouped unit of work (the port asks for
 * one scope per unit, the service keeps to it; a nested unit of work or a later port may not)
 * bump their own scope's counter. A write that changed nothing (refused, or rolled back) leaves
 * the collection timestamp where the others put it. A write that raises in a batched statement
 * fails alone, wherever it stands in the batch. Units of work issued together share one
 * transaction. A create's ACL may name an ACE already stored for its id.
 */
import { expect } from "chai";
import { PostgresDatabase } from "../../src/adapters/postgres/postgres-database.js";
import { PostgresPermissionStore } from "../../src/adapters/postgres/postgres-permission-store.js";
import { PostgresRecordStore } from "../../src/adapters/postgres/postgres-record-store.js";
import { PostgresUnitOfWork } from "../../src/adapters/postgres/postgres-unit-of-work.js";
import type { Scope } from "../../src/application/ports/record-store.js";
import { ConflictError, ValidationError } from "../../src/domain/errors.js";
import { databaseUrl, ensureDatabase, withAdmin } from "../support/postgres.js";
import { requireService } from "../support/services.js";

// The contract suites' database (its own collection names here): one database fewer to drop.
const DATABASE = "tessera_test";

/** The id of the transaction that wrote each of the scope's rows (plain SQL). */
function writersOf(collection: string): Promise<Map<string, string>> {
  return withAdmin(databaseUrl(DATABASE), async (client) => {
    const result = await client.query<{ id: string; xmin: string }>("SELECT id, xmin::text AS xmin FROM records WHERE collection = $1", [
      collection,
    ]);
    return new Map(result.rows.map((row) => [row.id, row.xmin]));
  });
}

async function outcome(promise: Promise<unknown>): Promise<unknown> {
  try {
    return await promise;
  } catch (error) {
    return error;
  }
}

describe("PostgreSQL group commit: one clock per scope", function () {
  requireService("postgresql");
  this.timeout(30_000);
  let database: PostgresDatabase;
  let records: PostgresRecordStore;
  let permissions: PostgresPermissionStore;

  before(async () => {
    await ensureDatabase(DATABASE);
    database = new PostgresDatabase({ url: databaseUrl(DATABASE) });
    await database.migrate();
    records = new PostgresRecordStore(database);
    permissions = new PostgresPermissionStore(database);
  });
  beforeEach(async () => {
    await records.flush();
    await permissions.flush();
  });
  after(async () => {
    await database?.close();
  });

  /** The group's scope, its counter an hour ahead of the clock: its clock's stamps are unmistakable. */
  async function groupScopeAhead(scope: Scope): Promise<number> {
    const ahead = Date.now() + 3_600_000;
    await records.create(scope, "first", {}, { lastModified: ahead });
    return ahead;
  }

  for (const [name, other] of [
    ["another collection", { collection: "clock_other", parentId: "" }],
    ["another parent of the same collection", { collection: "clock_group", parentId: "elsewhere" }],
  ] as const) {
    it(`stamps a write to ${name} inside a grouped unit of work by that scope's own counter`, async () => {
      const group: Scope = { collection: "clock_group", parentId: "" };
      const ahead = await groupScopeAhead(group);
      const before = await records.create(other, "before", {});
      const [own, foreign, again] = await new PostgresUnitOfWork(database).run(
        async () => [
          await records.create(group, "own", {}),
          await records.create(other, "foreign", {}),
          await records.update(other, "before", { v: 2 }),
        ],
        group,
      );
      expect(own.lastModified).to.equal(ahead + 1);
      // The other scope's stamps follow its own counter (the clock, here), far below the group's.
      expect(foreign.lastModified).to.be.greaterThan(before.lastModified).and.below(ahead);
      expect(again.lastModified).to.be.greaterThan(foreign.lastModified).and.below(ahead);
      expect(await records.collectionTimestamp(other)).to.equal(again.lastModified);
      expect(await records.collectionTimestamp(group)).to.equal(ahead + 1);
      // And the next write there, alone, goes on above it.
      const after = await records.create(other, "after", {});
      expect(after.lastModified).to.be.greaterThan(again.lastModified);
    });
  }

  // The first write leads a group; the writes issued in the same tick wait and form the next one.

  it("leaves the collection timestamp at the newest kept write when a group's last write is a refused create", async () => {
    const scope: Scope = { collection: "refused_last", parentId: "" };
    await records.create(scope, "taken", {});
    const lead = records.create(scope, "lead", {});
    const kept = records.create(scope, "kept", {});
    const refused = outcome(records.create(scope, "taken", { v: 2 }));
    await lead;
    expect(await refused).to.be.instanceOf(ConflictError);
    expect(await records.collectionTimestamp(scope)).to.equal((await kept).lastModified);
  });

  it("leaves the collection timestamp at the newest kept write when a group's last unit of work is rolled back", async () => {
    const scope: Scope = { collection: "rolled_back_last", parentId: "" };
    const units = new PostgresUnitOfWork(database);
    const refusedUnit = (id: string) =>
      outcome(
        units.run(async () => {
          await records.create(scope, id, {});
          throw new Error(`${id} refused after writing`);
        }, scope),
      );
    await records.create(scope, "taken", {});
    const lead = records.create(scope, "lead", {});
    const kept = records.create(scope, "kept", {});
    // The first refusal rolls the group back; its replay runs units under savepoints, and the
    // second refusal is rolled back to its own; the refused create after it writes nothing.
    const first = refusedUnit("first");
    const second = refusedUnit("second");
    const refused = outcome(records.create(scope, "taken", { v: 2 }));
    await lead;
    expect(await first).to.be.instanceOf(Error);
    expect(await second).to.be.instanceOf(Error);
    expect(await refused).to.be.instanceOf(ConflictError);
    expect(await records.get(scope, "second")).to.equal(undefined);
    expect((await records.get(scope, "taken"))?.data).to.deep.equal({});
    expect(await records.collectionTimestamp(scope)).to.equal((await kept).lastModified);
  });

  it("creates a record whose ACL names an ACE already stored for its id (left by an earlier write)", async () => {
    const scope: Scope = { collection: "left_over", parentId: "" };
    await permissions.replaceObjectPermissions("/left_over/a", { read: ["alice", "eve"] });
    // A create with an ACL is sent as a group's batched create (the ACEs in the same statement).
    const created = await records.createWithAcl(scope, "a", {}, {}, { objectId: "/left_over/a", permissions: { read: ["alice", "bob"] } });
    expect(created.id).to.equal("a");
    const acl = await permissions.objectPermissions("/left_over/a");
    expect([...(acl.read ?? [])].sort()).to.deep.equal(["alice", "bob"]);
  });

  it("sends writes to two scopes issued together to two groups, each stamped by its own counter", async () => {
    const ahead: Scope = { collection: "two_scopes_ahead", parentId: "" };
    const other: Scope = { collection: "two_scopes_other", parentId: "" };
    const start = await groupScopeAhead(ahead);
    const [mine, theirs, theirsToo] = await Promise.all([
      records.create(ahead, "a", {}),
      records.create(other, "b", {}),
      records.create(other, "c", {}),
    ]);
    expect(mine.lastModified).to.equal(start + 1);
    expect(theirs.lastModified).to.be.below(start);
    expect(theirsToo.lastModified).to.be.greaterThan(theirs.lastModified).and.below(start);
    expect(await records.collectionTimestamp(other)).to.equal(theirsToo.lastModified);
    expect(await records.collectionTimestamp(ahead)).to.equal(start + 1);
  });

  it("fails only the write that raised in a batched statement, wherever it stands in the batch", async () => {
    const scope: Scope = { collection: "raise_inside", parentId: "" };
    const lead = records.create(scope, "lead", {});
    const before = outcome(records.create(scope, "before", {}));
    const unstorable = outcome(records.create(scope, "nul", { s: "\u0000" }));
    const after = outcome(records.create(scope, "after", {}));
    await lead;
    expect(await unstorable).to.be.instanceOf(ValidationError);
    expect(await before).to.deep.include({ id: "before" });
    expect(await after).to.deep.include({ id: "after" });
    expect(await records.get(scope, "nul")).to.equal(undefined);
  });

  it("commits units of work of one scope issued together in one transaction", async () => {
    const scope: Scope = { collection: "units_together", parentId: "" };
    const units = new PostgresUnitOfWork(database);
    const unit = (id: string) => units.run(() => records.create(scope, id, {}), scope);
    const lead = unit("lead");
    const together = [unit("u1"), unit("u2"), unit("u3")];
    await Promise.all([lead, ...together]);
    const writers = await writersOf("units_together");
    expect(new Set(["u1", "u2", "u3"].map((id) => writers.get(id))).size).to.equal(1);
    expect(writers.get("lead")).to.not.equal(writers.get("u1"));
  });

  it("keeps a transaction of its own (a batch request) usable after a refused create with an ACL in it", async () => {
    const scope: Scope = { collection: "refused_in_batch", parentId: "" };
    // A create with an ACL inside another transaction locks and stores the counter around it.
    const withAcl = (id: string) =>
      records.createWithAcl(scope, id, {}, {}, { objectId: `/refused_in_batch/${id}`, permissions: { write: ["ann"] } });
    const [first, refused, next] = await new PostgresUnitOfWork(database).run(async () => {
      const x = await withAcl("x");
      const again = await outcome(withAcl("x"));
      return [x, again, await withAcl("y")] as const;
    });
    expect(refused).to.be.instanceOf(ConflictError);
    expect(await records.get(scope, "y")).to.deep.include({ id: "y" });
    expect(next.lastModified).to.be.greaterThan(first.lastModified);
    expect(await records.collectionTimestamp(scope)).to.equal(next.lastModified);
  });
});
