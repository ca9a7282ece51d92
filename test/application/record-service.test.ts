/** The record service wired by hand with memory adapters, a fixed clock and a counting id generator. */
import { expect } from "chai";
import {
  ConflictError,
  ForbiddenError,
  PreconditionFailedError,
  RecordNotFoundError,
  UnauthenticatedError,
  ValidationError,
} from "../../src/domain/errors.js";
import { Authorizer } from "../../src/application/authorizer.js";
import { resourceKinds } from "../../src/application/kinds/resource-kinds.js";
import { PaginationTokens } from "../../src/application/pagination-token.js";
import type { AccessJournal } from "../../src/application/ports/access-journal.js";
import type { PermissionStore } from "../../src/application/ports/permission-store.js";
import type { RecordStore, Scope, WriteOptions } from "../../src/application/ports/record-store.js";
import type { UnitOfWork } from "../../src/application/ports/unit-of-work.js";
import { PortableSharedRecords } from "../../src/application/shared-records/portable-shared-records.js";
import { PostgresSharedRecords, type JoinedRecordStore } from "../../src/adapters/postgres/postgres-shared-records.js";
import type { AclEntries as RecordAclEntries } from "../../src/adapters/postgres/batched-writes.js";
import { RecordService, withTieBreaker } from "../../src/application/record-service.js";
import type { CommittedChanges, ResourceChanged } from "../../src/application/events.js";
import { anonymousRequester, authenticatedRequester, type Requester } from "../../src/application/requester.js";
import type { ResourceDefinition } from "../../src/application/resources.js";
import { MemoryPermissionStore } from "../../src/adapters/memory/memory-permission-store.js";
import { memoryStorage, type MemoryRecordStore } from "../../src/adapters/memory/memory-record-store.js";
import type { MemoryAccessJournal } from "../../src/adapters/memory/memory-access-journal.js";
import { DirectUnitOfWork } from "../../src/adapters/system/direct-unit-of-work.js";
import { expectRejection } from "../support/rejection.js";

const articles: ResourceDefinition = {
  name: "articles",
  kind: "shareable",
  permissions: ["read", "write"],
  settingsPrincipals: { create: ["system.Authenticated"] },
};
const notes: ResourceDefinition = { name: "notes", kind: "user", permissions: ["read", "write"], settingsPrincipals: {} };

/** The service as the composition root builds it over memory adapters, with ids from `nextId`. */
function serviceOver(
  { records, journal }: { records: RecordStore; journal: AccessJournal },
  permissions: PermissionStore,
  nextId: () => string,
  changes?: CommittedChanges,
): RecordService {
  const kinds = resourceKinds({ authorizer: new Authorizer(permissions) });
  const unitOfWork = new DirectUnitOfWork();
  return new RecordService({
    records,
    journal,
    kinds,
    shared: new PortableSharedRecords(records, journal, permissions, unitOfWork),
    unitOfWork,
    ids: { generate: nextId },
    tokens: new PaginationTokens("secret"),
    ...(changes ? { changes } : {}),
  });
}

describe("RecordService", () => {
  let now: number;
  let permissions: MemoryPermissionStore;
  let records: MemoryRecordStore;
  let journal: MemoryAccessJournal;
  let service: RecordService;
  let alice: Requester;
  let bob: Requester;

  beforeEach(() => {
    now = 1_000_000;
    let next = 0;
    permissions = new MemoryPermissionStore();
    ({ records, journal } = memoryStorage({ now: () => now }));
    service = serviceOver({ records, journal }, permissions, () => `id${++next}`);
    const groups = (id: string) => permissions.userPrincipals(id);
    alice = authenticatedRequester("alice", groups);
    bob = authenticatedRequester("bob", groups);
  });

  it("creates by POST with a generated id and makes the creator a writer", async () => {
    const result = await service.create(alice, articles, { data: { title: "a" } });
    expect(result).to.deep.include({ created: true });
    expect(result.record).to.deep.include({ id: "id1", data: { title: "a" } });
    expect(result.permissions).to.deep.equal({ write: ["alice"] });
  });

  it("answers a POST of an existing id with the stored record, unchanged", async () => {
    await service.create(alice, articles, { data: { id: "a1", title: "first" } });
    const again = await service.create(alice, articles, { data: { id: "a1", title: "second" } });
    expect(again.created).to.equal(false);
    expect(again.record.data).to.deep.equal({ title: "first" });
  });

  it("refuses a POST of an existing id to a caller who may not read it", async () => {
    await service.create(alice, articles, { data: { id: "a1" } });
    await expectRejection(service.create(bob, articles, { data: { id: "a1" } }), ForbiddenError);
  });

  it("answers a POST of an existing id with the record to a caller who reads it through a group only", async () => {
    // Every authenticated caller may create here, so a POST without id needs no group lookup; one with an id does.
    await service.create(alice, articles, { data: { id: "a1", n: 1 }, permissions: { read: ["group:readers"] } });
    await permissions.addUserPrincipal("bob", "group:readers");
    const answer = await service.create(bob, articles, { data: { id: "a1", n: 2 } });
    expect(answer.created).to.equal(false);
    expect(answer.record.data).to.deep.equal({ n: 1 });
  });

  it("creates by PUT (also over a tombstone) and replaces by PUT", async () => {
    expect((await service.replace(alice, articles, "a1", { data: { x: 1 } })).created).to.equal(true);
    expect((await service.replace(alice, articles, "a1", { data: { y: 2 } })).record.data).to.deep.equal({ y: 2 });
    await service.delete(alice, articles, "a1");
    expect((await service.replace(alice, articles, "a1", { data: { z: 3 } })).created).to.equal(true);
  });

  it("re-adds the updater to write and replaces only the permissions a PATCH names", async () => {
    await service.create(alice, articles, { data: { id: "a1" }, permissions: { read: ["carol"], write: ["bob"] } });
    const patched = await service.update(bob, articles, "a1", { permissions: { write: [] }, merge: false });
    expect(patched.permissions).to.deep.equal({ read: ["carol"], write: ["bob"] });
  });

  it("empties the permissions a PUT does not name", async () => {
    await service.create(alice, articles, { data: { id: "a1" }, permissions: { read: ["carol"] } });
    const replaced = await service.replace(alice, articles, "a1", { data: {}, permissions: { write: [] } });
    expect(replaced.permissions).to.deep.equal({ write: ["alice"] });
  });

  it("shows the ACL to writers only", async () => {
    await service.create(alice, articles, { data: { id: "a1" }, permissions: { read: ["bob"] } });
    expect((await service.get(bob, articles, "a1")).permissions).to.deep.equal({});
    expect((await service.get(alice, articles, "a1")).permissions).to.have.keys("read", "write");
  });

  it("does not write a PATCH that changes nothing", async () => {
    const created = await service.create(alice, articles, { data: { id: "a1", n: 1 } });
    now += 1000;
    const patched = await service.update(alice, articles, "a1", { data: { n: 1 }, merge: false });
    expect(patched.record.lastModified).to.equal(created.record.lastModified);
  });

  it("keeps a concurrent change when two PATCHes race (re-read, not lost)", async () => {
    await service.create(alice, articles, { data: { id: "a1", a: 0, b: 0 } });
    await Promise.all([
      service.update(alice, articles, "a1", { data: { a: 1 }, merge: false }),
      service.update(alice, articles, "a1", { data: { b: 1 }, merge: false }),
    ]);
    expect((await service.get(alice, articles, "a1")).record.data).to.deep.equal({ a: 1, b: 1 });
  });

  it("fails If-Match on a stale timestamp with the current record", async () => {
    const created = await service.create(alice, articles, { data: { id: "a1" } });
    const error = await expectRejection(
      service.update(alice, articles, "a1", { data: { x: 1 }, merge: false }, { ifMatch: created.record.lastModified - 1 }),
      PreconditionFailedError,
    );
    expect(error.existing).to.deep.include({ id: "a1" });
  });

  it("says 403 to a user and 401 to anonymous for a record they cannot read, existing or not", async () => {
    await service.create(alice, articles, { data: { id: "a1" } });
    await expectRejection(service.get(bob, articles, "a1"), ForbiddenError);
    await expectRejection(service.get(bob, articles, "missing"), ForbiddenError);
    await expectRejection(service.get(anonymousRequester(), articles, "a1"), UnauthenticatedError);
  });

  it("leaves a tombstone listed only when asked for deleted entries", async () => {
    await service.create(alice, articles, { data: { id: "a1" } });
    const tombstone = await service.delete(alice, articles, "a1");
    const reader: ResourceDefinition = { ...articles, settingsPrincipals: { read: ["alice"] } };
    expect((await service.list(alice, reader, { filters: [], sort: [], limit: 10, includeDeleted: false })).entries).to.have.length(0);
    const withDeleted = await service.list(alice, reader, {
      filters: [{ field: "last_modified", operator: "gt", value: 0 }],
      sort: [],
      limit: 10,
      includeDeleted: true,
    });
    expect(withDeleted.entries).to.deep.equal([tombstone]);
    await expectRejection(service.get(alice, reader, "a1"), RecordNotFoundError);
  });

  it("lists only the records a caller may read, and deletes only those they may write", async () => {
    await service.create(alice, articles, { data: { id: "a1" }, permissions: { read: ["bob"] } });
    await service.create(alice, articles, { data: { id: "a2" } });
    await service.create(bob, articles, { data: { id: "b1" } });
    const listed = await service.list(bob, articles, { filters: [], sort: [], limit: 10, includeDeleted: false });
    expect(listed.entries.map((e) => e.id).sort()).to.deep.equal(["a1", "b1"]);
    const deleted = await service.deleteAll(bob, articles, []);
    expect(deleted.tombstones.map((t) => t.id)).to.deep.equal(["b1"]);
  });

  it("scopes user resources to their owner: another user's id is not found", async () => {
    await service.replace(alice, notes, "n1", { data: { mine: true } });
    await expectRejection(service.get(bob, notes, "n1"), RecordNotFoundError);
    expect((await service.replace(bob, notes, "n1", { data: { bobs: true } })).created).to.equal(true);
    expect((await service.get(alice, notes, "n1")).record.data).to.deep.equal({ mine: true });
    await expectRejection(
      service.list(anonymousRequester(), notes, { filters: [], sort: [], limit: 10, includeDeleted: false }),
      UnauthenticatedError,
    );
  });

  it("validates data with the resource's validator after authorization", async () => {
    const strict: ResourceDefinition = {
      ...articles,
      validate: (data) => (typeof data.title === "string" ? [] : [{ location: "body", name: "data.title", description: "required" }]),
    };
    await expectRejection(service.create(alice, strict, { data: {} }), ValidationError);
    await expectRejection(service.create(anonymousRequester(), strict, { data: {} }), UnauthenticatedError);
  });

  it("reports a bad body only to callers allowed to write, the others get 401/403 first", async () => {
    const bad = ValidationError.single("body", "data", "Provide at least one of data or permissions");
    await expectRejection(service.create(anonymousRequester(), articles, bad), UnauthenticatedError);
    expect(await expectRejection(service.create(alice, articles, bad), ValidationError)).to.equal(bad);
    await service.create(alice, articles, { data: { id: "a1" } });
    await expectRejection(service.update(bob, articles, "a1", bad), ForbiddenError);
    await expectRejection(service.replace(bob, articles, "a1", bad), ForbiddenError);
    expect(await expectRejection(service.update(alice, articles, "a1", bad), ValidationError)).to.equal(bad);
  });

  it("refuses a PUT whose body id differs from the URL id", async () => {
    await expectRejection(service.replace(alice, articles, "a1", { data: { id: "other" } }), ValidationError);
  });

  it("refuses a POST whose body id is not a valid record id, as a bad path", async () => {
    const error = await expectRejection(service.create(alice, articles, { data: { id: "not valid!" } }), ValidationError);
    expect(error.details).to.deep.equal([{ location: "path", name: null, description: "Invalid object id" }]);
  });

  it("refuses a PATCH whose body id differs from the URL id, and accepts the same id", async () => {
    await service.create(alice, articles, { data: { id: "a1", n: 1 } });
    const error = await expectRejection(service.update(alice, articles, "a1", { data: { id: "other" }, merge: false }), ValidationError);
    expect(error.details).to.deep.equal([{ location: "body", name: "id", description: "Object id does not match existing object" }]);
    expect((await service.update(alice, articles, "a1", { data: { id: "a1", n: 2 }, merge: false })).record.data).to.deep.equal({ n: 2 });
  });

  it("writes a PATCH that changes only the permissions, or only moves last_modified forward", async () => {
    const created = await service.create(alice, articles, { data: { id: "a1", n: 1 } });
    now += 1000;
    const shared = await service.update(alice, articles, "a1", { permissions: { read: ["bob"] }, merge: false });
    expect(shared.permissions).to.deep.equal({ read: ["bob"], write: ["alice"] });
    expect(shared.record.lastModified).to.be.greaterThan(created.record.lastModified);
    expect((await service.get(bob, articles, "a1")).record.data).to.deep.equal({ n: 1 });
    const later = shared.record.lastModified + 5000;
    const moved = await service.update(alice, articles, "a1", { data: { n: 1, last_modified: later }, merge: false });
    expect(moved.record.lastModified).to.equal(later);
  });

  it("forgets the ACL of a deleted record", async () => {
    await service.create(alice, articles, { data: { id: "a1" }, permissions: { read: ["bob"] } });
    await service.delete(alice, articles, "a1");
    expect(await permissions.objectPermissions("/articles/a1")).to.deep.equal({});
  });

  it("answers a plural DELETE with the newest tombstone's timestamp, or the collection's when nothing was deleted", async () => {
    const owned: ResourceDefinition = { ...articles, settingsPrincipals: { write: ["alice"], read: ["alice"] } };
    await service.create(alice, owned, { data: { id: "a1" } });
    now += 10;
    await service.create(alice, owned, { data: { id: "a2" } });
    const empty = await service.deleteAll(alice, owned, [{ field: "id", operator: "eq", value: "none" }]);
    const { timestamp: collection } = await service.list(alice, owned, { filters: [], sort: [], limit: 10, includeDeleted: false });
    expect(empty).to.deep.equal({ tombstones: [], timestamp: collection });
    now += 10;
    const deleted = await service.deleteAll(alice, owned, []);
    expect(deleted.tombstones).to.have.length(2);
    expect(deleted.timestamp).to.equal(Math.max(...deleted.tombstones.map((t) => t.lastModified)));
    expect(deleted.timestamp).to.be.greaterThan(collection);
  });

  it("gives a restricted reader an empty page for a filter matching none of their records, and refuses one who may read none", async () => {
    const closed: ResourceDefinition = { ...articles, settingsPrincipals: {} };
    await service.replace(alice, articles, "a1", { data: { n: 1 }, permissions: { read: ["bob"] } });
    const params = { filters: [{ field: "n", operator: "eq" as const, value: 2 }], sort: [], limit: 10, includeDeleted: false };
    expect((await service.list(bob, closed, params)).entries).to.deep.equal([]);
    expect((await service.count(bob, closed, params.filters)).count).to.equal(0);
    const carol = authenticatedRequester("carol", () => Promise.resolve([]));
    await expectRejection(service.list(carol, closed, params), ForbiddenError);
    await expectRejection(service.count(carol, closed, params.filters), ForbiddenError);
  });

  it("announces each write with its action, the records before and after, and answers created only for creations", async () => {
    const events: ResourceChanged[] = [];
    const announced = serviceOver({ records, journal }, permissions, () => "gen", {
      resourceChanged: (e: ResourceChanged) => events.push(e),
    } as unknown as CommittedChanges);
    const owned: ResourceDefinition = { ...articles, settingsPrincipals: { write: ["alice"], read: ["alice"], create: ["alice"] } };
    const created = await announced.create(alice, owned, { data: { id: "a1", n: 1 } });
    expect(created.created).to.equal(true);
    const again = await announced.create(alice, owned, { data: { id: "a1", n: 9 } });
    expect(again.created).to.equal(false);
    now += 10;
    const patched = await announced.update(alice, owned, "a1", { data: { n: 2 }, merge: false });
    expect(patched.created).to.equal(false);
    const unchanged = await announced.update(alice, owned, "a1", { data: { n: 2 }, merge: false });
    expect(unchanged.created).to.equal(false);
    now += 10;
    const tombstone = await announced.delete(alice, owned, "a1");
    now += 10;
    await announced.create(alice, owned, { data: { id: "a2" } });
    now += 10;
    const all = await announced.deleteAll(alice, owned, []);
    const scope = { collection: "articles", parentId: "", userId: "alice" };
    expect(events).to.deep.equal([
      { ...scope, action: "create", timestamp: created.record.lastModified, impacted: [{ new: created.record }] },
      { ...scope, action: "update", timestamp: patched.record.lastModified, impacted: [{ old: created.record, new: patched.record }] },
      { ...scope, action: "delete", timestamp: tombstone.lastModified, impacted: [{ old: patched.record, new: tombstone }] },
      { ...scope, action: "create", timestamp: events[3]?.timestamp, impacted: events[3]?.impacted },
      { ...scope, action: "delete", timestamp: all.timestamp, impacted: all.tombstones.map((t) => ({ new: t })) },
    ]);
    expect(all.tombstones.map((t) => t.id)).to.deep.equal(["a2"]);
  });

  it("checks If-Match of a POST without an id against the collection's timestamp", async () => {
    const owned: ResourceDefinition = { ...articles, settingsPrincipals: { read: ["alice"], create: ["alice"] } };
    await service.create(alice, owned, { data: { id: "a1" } });
    const { timestamp } = await service.list(alice, owned, { filters: [], sort: [], limit: 10, includeDeleted: false });
    await expectRejection(service.create(alice, owned, { data: {} }, { ifMatch: timestamp - 1 }), PreconditionFailedError);
    expect((await service.create(alice, owned, { data: {} }, { ifMatch: timestamp })).created).to.equal(true);
  });

  it("answers a page of no entries, and no token, to a limit of 0", async () => {
    const owned: ResourceDefinition = { ...articles, settingsPrincipals: { read: ["alice"], create: ["alice"] } };
    await service.create(alice, owned, { data: { id: "a1" } });
    const page = await service.list(alice, owned, { filters: [], sort: [], limit: 0, includeDeleted: false });
    expect(page.entries).to.deep.equal([]);
    expect(page).not.to.have.property("nextToken");
    expect((await service.get(alice, owned, "a1")).created).to.equal(false);
  });

  it("checks If-Match of a POST with an id against that record, not the collection", async () => {
    const owned: ResourceDefinition = { ...articles, settingsPrincipals: { read: ["alice"], create: ["alice"] } };
    await service.create(alice, owned, { data: { id: "a1" } });
    const { timestamp } = await service.list(alice, owned, { filters: [], sort: [], limit: 10, includeDeleted: false });
    await expectRejection(service.create(alice, owned, { data: { id: "a2" } }, { ifMatch: timestamp }), PreconditionFailedError);
  });

  it("honours a client last_modified on POST, and on a JSON Patch; an unchanged one is no change", async () => {
    const far = now + 50_000;
    const created = await service.create(alice, articles, { data: { id: "a1", n: 1, last_modified: far } });
    expect(created.record.lastModified).to.equal(far);
    const same = await service.update(alice, articles, "a1", { data: { n: 1, last_modified: far }, merge: false });
    expect(same.record).to.deep.equal(created.record);
    const older = await service.update(alice, articles, "a1", { data: { n: 1, last_modified: far - 1 }, merge: false });
    expect(older.record).to.deep.equal(created.record);
    const patched = await service.update(alice, articles, "a1", {
      merge: false,
      operations: [{ op: "replace", path: "/data/last_modified", value: far + 7 }],
    });
    expect(patched.record.lastModified).to.equal(far + 7);
  });

  it("has no /permissions to patch on a user resource", async () => {
    await service.replace(alice, notes, "n1", { data: { a: 1 } });
    await expectRejection(
      service.update(alice, notes, "n1", { merge: false, operations: [{ op: "add", path: "/permissions/read/bob" }] }),
      ValidationError,
    );
  });

  it("forgets the ACLs of the records a plural DELETE removed", async () => {
    await service.create(alice, articles, { data: { id: "a1" }, permissions: { read: ["bob"] } });
    await service.create(alice, articles, { data: { id: "a2" }, permissions: { read: ["bob"] } });
    await service.deleteAll(alice, articles, []);
    expect(await permissions.objectPermissions("/articles/a1")).to.deep.equal({});
    expect(await permissions.objectPermissions("/articles/a2")).to.deep.equal({});
  });

  it("surfaces a conflict on POST when the conflicting record is gone by the time it is read back", async () => {
    const vanishing = Object.create(records) as MemoryRecordStore;
    vanishing.get = () => Promise.resolve(undefined);
    vanishing.create = () => Promise.reject(new ConflictError(null));
    const raced = serviceOver({ records: vanishing, journal }, permissions, () => "x");
    await expectRejection(raced.create(alice, articles, { data: { id: "a1" } }), ConflictError);
  });

  it("turns a creation race into the POST-of-an-existing-id answer", async () => {
    const [first, second] = await Promise.all([
      service.create(alice, articles, { data: { id: "r" } }),
      service.create(alice, articles, { data: { id: "r" } }),
    ]);
    expect([first.created, second.created].sort()).to.deep.equal([false, true]);
  });

  it("surfaces a conflict from the store on PUT creations that race", async () => {
    const racing = Object.create(records) as MemoryRecordStore;
    racing.get = () => Promise.resolve(undefined);
    racing.create = () => Promise.reject(new ConflictError(null));
    const raced = serviceOver({ records: racing, journal }, permissions, () => "x");
    await expectRejection(raced.replace(alice, articles, "a1", { data: {} }), ConflictError);
  });

  it("announces a PUT over an existing record as an update, with the record before and after", async () => {
    const events: ResourceChanged[] = [];
    const announced = serviceOver({ records, journal }, permissions, () => "gen", {
      resourceChanged: (e: ResourceChanged) => events.push(e),
    } as unknown as CommittedChanges);
    const created = await announced.replace(alice, articles, "a1", { data: { n: 1 } });
    now += 10;
    const replaced = await announced.replace(alice, articles, "a1", { data: { n: 2 } });
    expect(replaced.record).to.deep.equal({ id: "a1", lastModified: 1_000_010, data: { n: 2 } });
    const scope = { collection: "articles", parentId: "", userId: "alice" };
    expect(events).to.deep.equal([
      { ...scope, action: "create", timestamp: 1_000_000, impacted: [{ new: { id: "a1", lastModified: 1_000_000, data: { n: 1 } } }] },
      {
        ...scope,
        action: "update",
        timestamp: 1_000_010,
        impacted: [{ old: created.record, new: { id: "a1", lastModified: 1_000_010, data: { n: 2 } } }],
      },
    ]);
  });

  it("announces nothing for a plural DELETE that deletes nothing", async () => {
    const events: ResourceChanged[] = [];
    const announced = serviceOver({ records, journal }, permissions, () => "gen", {
      resourceChanged: (e: ResourceChanged) => events.push(e),
    } as unknown as CommittedChanges);
    const owned: ResourceDefinition = { ...articles, settingsPrincipals: { write: ["alice"], read: ["alice"], create: ["alice"] } };
    await announced.create(alice, owned, { data: { id: "a1" } });
    events.length = 0;
    const none = await announced.deleteAll(alice, owned, [{ field: "id", operator: "eq", value: "none" }]);
    expect(none.tombstones).to.deep.equal([]);
    expect(events).to.deep.equal([]);
  });

  describe("where ACLs share the record's transaction", () => {
    /** An atomic unit of work that records what it is asked, and the writes made inside it, in order. */
    class RecordingUnitOfWork implements UnitOfWork {
      readonly atomic = true;
      readonly journal: string[] = [];

      async run<T>(work: () => Promise<T>): Promise<T> {
        this.journal.push("run");
        const result = await work();
        this.journal.push("commit");
        return result;
      }

      onRollback(): void {
        this.journal.push("onRollback");
      }

      afterCommit(callback: () => void): void {
        callback();
      }
    }

    /** The joined SharedRecords' order (PostgreSQL's), over the memory stores: a read is the two lookups. */
    function sharedTransactionService(
      unitOfWork: RecordingUnitOfWork,
      createTogether?: Pick<JoinedRecordStore, "createWithAcl">,
    ): RecordService {
      const journaled = Object.create(records) as MemoryRecordStore;
      journaled.update = (...args) => {
        unitOfWork.journal.push("record");
        return records.update(...args);
      };
      const journaledPermissions = Object.create(permissions) as MemoryPermissionStore;
      journaledPermissions.replaceObjectPermissions = (objectId, acl) => {
        unitOfWork.journal.push(`acl ${objectId}`);
        return permissions.replaceObjectPermissions(objectId, acl);
      };
      const reader = {
        getWithAcl: async (scope: Scope, id: string, query: { objectId: string; permissions: readonly string[] }) => ({
          record: await journaled.get(scope, id),
          acl: await journaledPermissions.objectPermissions(query.objectId, query.permissions),
          principals: undefined,
        }),
      };
      const joined = Object.assign(Object.create(journaled) as MemoryRecordStore, createTogether ?? {}) as unknown as JoinedRecordStore;
      return new RecordService({
        records: journaled,
        journal,
        kinds: resourceKinds({ authorizer: new Authorizer(journaledPermissions) }),
        shared: new PostgresSharedRecords(reader, joined, journal, journaledPermissions, unitOfWork),
        unitOfWork,
        ids: { generate: () => "gen" },
        tokens: new PaginationTokens("secret"),
      });
    }

    it("writes the ACL before the record, in the record's transaction, with nothing to undo", async () => {
      await service.replace(alice, articles, "a1", { data: { n: 1 } });
      const unitOfWork = new RecordingUnitOfWork();
      const shared = sharedTransactionService(unitOfWork);
      await shared.replace(alice, articles, "a1", { data: { n: 2 }, permissions: { read: ["bob"] } });
      expect(unitOfWork.journal).to.deep.equal(["run", "acl /articles/a1", "record", "commit"]);
      unitOfWork.journal.length = 0;
      await shared.update(alice, articles, "a1", { data: { n: 3 }, permissions: { read: ["carol"] }, merge: false });
      expect(unitOfWork.journal).to.deep.equal(["run", "acl /articles/a1", "record", "commit"]);
      expect((await service.get(alice, articles, "a1")).permissions).to.deep.equal({ read: ["carol"], write: ["alice"] });
    });

    it("creates a record with its ACL in one step keeping the client's last_modified", async () => {
      const asked: { id: string; options: WriteOptions; acl: RecordAclEntries }[] = [];
      const createTogether: Pick<JoinedRecordStore, "createWithAcl"> = {
        async createWithAcl(scope, id, data, options = {}, acl) {
          asked.push({ id, options, acl });
          const record = await records.create(scope, id, data, options);
          await permissions.replaceObjectPermissions(acl.objectId, acl.permissions);
          return record;
        },
      };
      const shared = sharedTransactionService(new RecordingUnitOfWork(), createTogether);
      const created = await shared.create(alice, articles, { data: { id: "a1", n: 1, last_modified: 1_050_000 } });
      expect(created.record).to.deep.equal({ id: "a1", lastModified: 1_050_000, data: { n: 1 } });
      expect(asked).to.deep.equal([
        { id: "a1", options: { lastModified: 1_050_000 }, acl: { objectId: "/articles/a1", permissions: { read: [], write: ["alice"] } } },
      ]);
      expect((await service.get(alice, articles, "a1")).record.lastModified).to.equal(1_050_000);
    });
  });
});

describe("sort tie-breaker", () => {
  it("closes a sort with last_modified descending unless the client sorted on last_modified", () => {
    expect(withTieBreaker([])).to.deep.equal([{ field: "last_modified", descending: true }]);
    expect(withTieBreaker([{ field: "title", descending: false }])).to.deep.equal([
      { field: "title", descending: false },
      { field: "last_modified", descending: true },
    ]);
    const own = [
      { field: "last_modified", descending: false },
      { field: "title", descending: true },
    ];
    expect(withTieBreaker(own)).to.deep.equal(own);
  });
});
