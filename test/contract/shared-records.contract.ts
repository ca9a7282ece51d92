/**
 * The SharedRecords contract: what every implementation (joined on PostgreSQL, portable over any
 * RecordStore + PermissionStore) must do with a record and its ACL. Each suite builds its ports
 * through the composition root, as a server does, so the implementation under test is the one
 * startup chooses for that backend set. Expected values are written out by hand.
 */
import { expect } from "chai";
import { pino } from "pino";
import type { Container } from "inversify";
import { SystemClock } from "../../src/adapters/system/system-clock.js";
import type { ObjectPermissions, PermissionStore } from "../../src/application/ports/permission-store.js";
import type { RecordStore, Scope } from "../../src/application/ports/record-store.js";
import type { AclEntries, Grants, RecordAcls, SharedRecords } from "../../src/application/ports/shared-records.js";
import { buildContainer } from "../../src/bootstrap/container.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { ConflictError, PreconditionFailedError } from "../../src/domain/errors.js";
import { defaultBoundPermissions } from "../../src/domain/permissions.js";
import { settingsFrom } from "../support/http.js";
import { expectRejection } from "../support/rejection.js";

const SCOPE: Scope = { collection: "articles", parentId: "" };
const ACLS: RecordAcls = { objectIdPrefix: "/articles/", permissions: ["read", "write"], readPermissions: () => ["read", "write"] };
/** The grants of a caller reading records through their own ACL: `read` or `write` on the record. */
const reading = (...principals: string[]): Grants => ({
  principals,
  permission: "read",
  boundPermissions: defaultBoundPermissions,
  permissions: ["read", "write"],
});
const writing = (...principals: string[]): Grants => ({
  principals,
  permission: "write",
  boundPermissions: defaultBoundPermissions,
  permissions: ["write"],
});
const acl = (read: string[], write: string[]): AclEntries => ({ read, write });
const plain = (stored: ObjectPermissions | undefined) =>
  stored && Object.fromEntries(Object.entries(stored).map(([permission, principals]) => [permission, [...principals].sort()]));
const since = (after: number) => ({
  filters: [{ field: "last_modified", operator: "gt" as const, value: after }],
  sort: [{ field: "last_modified", descending: false }],
  limit: 50,
  includeDeleted: true,
});

export interface SharedRecordsSetup {
  readonly name: string;
  /** Settings of the backend set (storage, permission); the chosen SharedRecords is `joined` or not. */
  settings(): Promise<Record<string, string>>;
  readonly joined: boolean;
}

export function sharedRecordsContract(setup: SharedRecordsSetup): void {
  describe(`SharedRecords contract (${setup.name})`, function () {
    this.timeout(20_000);
    let container: Container;
    let shared: SharedRecords;
    let records: RecordStore;
    let permissions: PermissionStore;

    before(async () => {
      container = buildContainer(settingsFrom(await setup.settings()), { logger: pino({ level: "silent" }), clock: new SystemClock() });
      await (await container.getAsync(TOKENS.Migrator)).migrate();
      shared = await container.getAsync(TOKENS.SharedRecords);
      records = await container.getAsync(TOKENS.RecordStore);
      permissions = await container.getAsync(TOKENS.PermissionStore);
    });
    beforeEach(async () => {
      await (await container.getAsync(TOKENS.AccessJournal)).flush();
      await records.flush();
      await permissions.flush();
    });
    after(async () => {
      await permissions?.flush();
      await container?.unbindAllAsync();
    });

    it("is the implementation startup chooses for this backend set", () => {
      expect(shared.aclMayTrailRecord).to.equal(!setup.joined);
    });

    it("reads a record, the ACL of that version and the user's principals; a missing record with no ACL", async () => {
      await permissions.addUserPrincipal("bob", "group:staff");
      const created = await shared.create(SCOPE, "a1", { title: "t" }, {}, ACLS, acl(["bob"], ["alice"]));
      const read = await shared.read(SCOPE, "a1", ACLS, "bob");
      expect(read.record).to.deep.equal({ id: "a1", lastModified: created.lastModified, data: { title: "t" } });
      expect(plain(read.acl)).to.deep.equal({ read: ["bob"], write: ["alice"] });
      expect([...(read.principals ?? [])]).to.include("group:staff");
      const missing = await shared.read(SCOPE, "nope", ACLS, undefined);
      expect(missing.record).to.equal(undefined);
      expect(plain(missing.acl)).to.deep.equal({});
      expect(missing.principals).to.equal(undefined);
    });

    it("reads, when asked, the ACLs of objects above the record with it: every permission asked named, empty when none holds it", async () => {
      await permissions.replaceObjectPermissions("/buckets/b/collections/c", { read: ["bob", "group:staff"], write: ["alice"] });
      const inheriting: RecordAcls = {
        ...ACLS,
        objectIdPrefix: "/buckets/b/collections/c/records/",
        inherited: [
          { objectId: "/buckets/b/collections/c", permission: "read" },
          { objectId: "/buckets/b/collections/c", permission: "record:create" },
          { objectId: "/buckets/b", permission: "read" },
        ],
      };
      const scope = { collection: "buckets/b/collections/c/records", parentId: "" };
      await shared.create(scope, "r1", {}, {}, inheriting, acl([], ["alice"]));
      const read = await shared.read(scope, "r1", inheriting, undefined);
      const above = new Map([...(read.inherited ?? new Map<string, ObjectPermissions>())].map(([id, acl]) => [id, plain(acl)]));
      expect(above).to.deep.equal(
        new Map([
          ["/buckets/b/collections/c", { read: ["bob", "group:staff"], "record:create": [] }],
          ["/buckets/b", { read: [] }],
        ]),
      );
      expect((await shared.read(SCOPE, "r1", ACLS, undefined)).inherited).to.equal(undefined);
    });

    it("refuses a create over a live record and leaves its ACL as it was", async () => {
      await shared.create(SCOPE, "a1", {}, {}, ACLS, acl([], ["alice"]));
      await expectRejection(shared.create(SCOPE, "a1", {}, {}, ACLS, acl([], ["mallory"])), ConflictError);
      expect(plain((await shared.read(SCOPE, "a1", ACLS, undefined)).acl)).to.deep.equal({ write: ["alice"] });
    });

    it("stamps who lost read with the write's own timestamp, and a restricted _since shows it as a tombstone there", async () => {
      const created = await shared.create(SCOPE, "a1", { v: 1 }, {}, ACLS, acl(["bob", "carol"], ["alice"]));
      const change = { acl: acl(["carol"], ["alice"]), previous: acl(["bob", "carol"], ["alice"]), previousVersion: created.lastModified };
      const { written, lost } = await shared.update(SCOPE, "a1", { v: 2 }, { ifMatch: created.lastModified }, ACLS, change);
      expect(lost).to.deep.equal(["bob"]);
      expect(plain((await shared.read(SCOPE, "a1", ACLS, undefined)).acl)).to.deep.equal({ read: ["carol"], write: ["alice"] });
      const bobSees = await (await shared.select(ACLS, reading("bob"))).list(SCOPE, since(0));
      expect(bobSees).to.deep.equal([{ id: "a1", lastModified: written.lastModified, deleted: true }]);
      const carolSees = await (await shared.select(ACLS, reading("carol"))).list(SCOPE, since(0));
      expect(carolSees.map((e) => [e.id, e.lastModified, e.deleted === true])).to.deep.equal([["a1", written.lastModified, false]]);
    });

    it("leaves the ACL as it was when the record write is refused (If-Match)", async () => {
      const created = await shared.create(SCOPE, "a1", {}, {}, ACLS, acl(["bob"], ["alice"]));
      const change = { acl: acl([], ["mallory"]), previous: acl(["bob"], ["alice"]), previousVersion: created.lastModified };
      await expectRejection(shared.update(SCOPE, "a1", {}, { ifMatch: created.lastModified - 1 }, ACLS, change), PreconditionFailedError);
      expect(plain((await shared.read(SCOPE, "a1", ACLS, undefined)).acl)).to.deep.equal({ read: ["bob"], write: ["alice"] });
      const bobSees = await (await shared.select(ACLS, reading("bob"))).list(SCOPE, since(0));
      expect(bobSees.map((e) => e.deleted === true)).to.deep.equal([false]);
    });

    it("deletes a record with its ACL: every reader lost it at the tombstone's timestamp", async () => {
      const created = await shared.create(SCOPE, "a1", {}, {}, ACLS, acl(["bob"], ["alice"]));
      const { written, lost } = await shared.delete(SCOPE, "a1", {}, ACLS, { acl: acl(["bob"], ["alice"]), version: created.lastModified });
      expect(written).to.deep.equal({ id: "a1", lastModified: written.lastModified, deleted: true });
      expect([...lost].sort()).to.deep.equal(["alice", "bob"]);
      expect(plain((await shared.read(SCOPE, "a1", ACLS, undefined)).acl)).to.deep.equal({});
      for (const reader of ["alice", "bob"]) {
        const seen = await (await shared.select(ACLS, reading(reader))).list(SCOPE, since(0));
        expect(seen, reader).to.deep.equal([{ id: "a1", lastModified: written.lastModified, deleted: true }]);
      }
    });

    it("lists, counts and deletes only what the grants reach; a bulk delete removes the ACLs and records the losses", async () => {
      await shared.create(SCOPE, "r1", { n: 1 }, {}, ACLS, acl(["bob"], ["alice"]));
      await shared.create(SCOPE, "r2", { n: 2 }, {}, ACLS, acl([], ["bob"]));
      await shared.create(SCOPE, "r3", { n: 3 }, {}, ACLS, acl([], ["alice"]));
      const bob = await shared.select(ACLS, reading("bob", "group:x"));
      const live = { ...since(0), includeDeleted: false };
      expect((await bob.list(SCOPE, live)).map((e) => e.id)).to.deep.equal(["r1", "r2"]);
      expect(await bob.count(SCOPE, { filters: [] })).to.equal(2);
      expect(await (await shared.select(ACLS, undefined)).count(SCOPE, { filters: [] })).to.equal(3);
      const deleted = await (await shared.select(ACLS, writing("bob"))).deleteMany(SCOPE, { filters: [] });
      expect(deleted.map((t) => t.id)).to.deep.equal(["r2"]);
      expect(plain((await shared.read(SCOPE, "r2", ACLS, undefined)).acl)).to.deep.equal({});
      const bobNow = await (await shared.select(ACLS, reading("bob"))).list(SCOPE, since(0));
      expect(bobNow.map((e) => [e.id, e.deleted === true])).to.deep.equal([
        ["r1", false],
        ["r2", true],
      ]);
      expect(bobNow.find((e) => e.id === "r2")?.lastModified).to.equal(deleted[0]?.lastModified);
    });

    it("reads a burst of changes, ascending, each version with its ACL; without ACLs when not asked", async () => {
      const first = await shared.create(SCOPE, "r1", {}, {}, ACLS, acl(["bob"], ["alice"]));
      const second = await shared.create(SCOPE, "r2", {}, {}, ACLS, acl([], ["carol"]));
      const range = { after: 0, upTo: second.lastModified, limit: 10 };
      const page = await shared.changes(SCOPE, range, ACLS, true);
      expect(page.entries.map((e) => [e.id, e.lastModified])).to.deep.equal([
        ["r1", first.lastModified],
        ["r2", second.lastModified],
      ]);
      expect(plain(page.acls.get("r1"))).to.deep.equal({ read: ["bob"], write: ["alice"] });
      expect(plain(page.acls.get("r2"))).to.deep.equal({ write: ["carol"] });
      const bare = await shared.changes(SCOPE, { ...range, after: first.lastModified }, ACLS, false);
      expect(bare.entries.map((e) => e.id)).to.deep.equal(["r2"]);
      expect(bare.acls.size).to.equal(0);
      expect(plain((await shared.currentAcls(["r1", "none"], ACLS)).get("r1"))).to.deep.equal({ read: ["bob"], write: ["alice"] });
      expect(plain((await shared.aclsOfVersions([first], ACLS)).get("r1"))).to.deep.equal({ read: ["bob"], write: ["alice"] });
    });

    it("reads, for restricted readers who read a page at most, only the changes their ACEs grant them", async () => {
      await shared.create(SCOPE, "r1", {}, {}, ACLS, acl(["bob"], ["alice"]));
      await shared.create(SCOPE, "r2", {}, {}, ACLS, acl([], ["alice"]));
      await shared.create(SCOPE, "r3", {}, {}, ACLS, acl([], ["group:b"]));
      await shared.create(SCOPE, "r4", {}, {}, ACLS, acl(["carol"], ["alice"]));
      const last = await shared.create(SCOPE, "r5", {}, {}, ACLS, acl(["bob"], []));
      await shared.delete(SCOPE, "r5", {}, ACLS, { acl: acl(["bob"], []), version: last.lastModified });
      const readers = { principals: ["bob", "group:b"], permissions: ["read", "write"] };
      // A page of two: r2 (nobody of theirs) does not take r3's place; r5's tombstone has no ACL left.
      const page = await shared.changes(SCOPE, { after: 0, upTo: Number.MAX_SAFE_INTEGER, limit: 2 }, ACLS, true, readers);
      expect(page.entries.map((e) => e.id)).to.deep.equal(["r1", "r3"]);
      expect(page.narrowed).to.equal(true);
      expect(plain(page.acls.get("r3"))).to.deep.equal({ write: ["group:b"] });
    });
  });
}
