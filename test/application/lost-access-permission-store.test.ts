/**
 * LostAccessPermissionStore over the memory adapters: who is recorded as having lost a shareable
 * record (deleted ACL, removed or replaced read grant), when a grant made through the port gives
 * the record a new timestamp, what is announced, and that everything else passes straight through.
 * The memory clock stands still at 100, so each write of the scope takes the next integer.
 */
import { expect } from "chai";
import { PreconditionFailedError, RecordNotFoundError } from "../../src/domain/errors.js";
import type { JsonObject } from "../../src/domain/json.js";
import type { StoredRecord } from "../../src/domain/records.js";
import { ChangeEvents, CommittedChanges, type ScopeTouched } from "../../src/application/events.js";
import { LostAccessPermissionStore } from "../../src/application/lost-access-permission-store.js";
import type { PermissionStore } from "../../src/application/ports/permission-store.js";
import type { ConditionalWriteOptions, Scope } from "../../src/application/ports/record-store.js";
import type { ResourceDefinition } from "../../src/application/resources.js";
import { MemoryPermissionStore } from "../../src/adapters/memory/memory-permission-store.js";
import { MemoryRecordStore } from "../../src/adapters/memory/memory-record-store.js";
import { DirectUnitOfWork } from "../../src/adapters/system/direct-unit-of-work.js";
import { expectRejection } from "../support/rejection.js";
import { reviewedVersionOf } from "../support/reviewed-resource.js";

const articles: ResourceDefinition = {
  name: "articles",
  kind: "shareable",
  permissions: ["read", "write", "share"],
  settingsPrincipals: {},
};
const scope: Scope = { collection: "articles", parentId: "" };

class Unexpected extends Error {}

/** The announcements of the scope's new timestamps. */
const touched = (...timestamps: number[]): ScopeTouched[] => timestamps.map((timestamp) => ({ scope, timestamp }));

/** A memory store whose updates can fail as told, or let another writer in first (counted). */
class ContendedRecords extends MemoryRecordStore {
  updates = 0;
  failures: Error[] = [];
  /** Runs once, just before the next update: a writer getting there first. */
  before: (() => Promise<unknown>) | undefined;

  override async update(at: Scope, id: string, data: JsonObject, options?: ConditionalWriteOptions): Promise<StoredRecord> {
    this.updates += 1;
    const failure = this.failures.shift();
    if (failure) throw failure;
    const before = this.before;
    this.before = undefined;
    await before?.();
    return super.update(at, id, data, options);
  }
}

describe("LostAccessPermissionStore", () => {
  let records: ContendedRecords;
  let inner: MemoryPermissionStore;
  let announced: ScopeTouched[];

  function tracking(touchOnGrant: boolean): LostAccessPermissionStore {
    const events = new ChangeEvents(() => undefined);
    events.onScopeTouched((event) => void announced.push(event));
    return new LostAccessPermissionStore(inner, {
      records,
      shareable: (collection) => (collection === "articles" ? articles : undefined),
      touchOnGrant,
      changes: new CommittedChanges(events, new DirectUnitOfWork()),
    });
  }

  /** The losses recorded, principals sorted. */
  async function losses(): Promise<{ id: string; lastModified: number; principals: string[] }[]> {
    return (await records.lostAccessAfter(scope, 0)).map((l) => ({ ...l, principals: [...l.principals].sort() }));
  }

  async function acl(id: string): Promise<Record<string, string[]>> {
    const found = await inner.objectPermissions(`/articles/${id}`);
    return Object.fromEntries(Object.entries(found).map(([p, principals]) => [p, [...principals].sort()]));
  }

  beforeEach(async () => {
    records = new ContendedRecords({ now: () => 100 });
    inner = new MemoryPermissionStore();
    announced = [];
    await records.create(scope, "a1", { n: 1 }); // 100
    await records.create(scope, "a2", { n: 2 }); // 101
    await records.create(scope, "a3", { n: 3 }); // 102
    await inner.replaceObjectPermissions("/articles/a1", { read: ["bob"], write: ["alice"], share: ["erin"] });
    await inner.replaceObjectPermissions("/articles/a2", { read: ["carol"] });
  });

  describe("deleted ACLs", () => {
    it("records every reader of each deleted record (not who held other permissions) in one write per scope, and announces it", async () => {
      await tracking(true).deleteObjectPermissions("/articles/a1", "/articles/a2", "/articles/a3");
      expect(await losses()).to.deep.equal([
        { id: "a1", lastModified: 103, principals: ["alice", "bob"] },
        { id: "a2", lastModified: 104, principals: ["carol"] },
      ]);
      expect(await acl("a1")).to.deep.equal({});
      expect(await acl("a2")).to.deep.equal({});
      expect(announced).to.deep.equal(touched(104));
    });

    it("announces nothing where the API's own writes announce themselves", async () => {
      await tracking(false).deleteObjectPermissions("/articles/a1");
      expect(await losses()).to.deep.equal([{ id: "a1", lastModified: 103, principals: ["alice", "bob"] }]);
      expect(announced).to.deep.equal([]);
    });

    it("records nothing, and announces nothing, for a record nobody read", async () => {
      await tracking(true).deleteObjectPermissions("/articles/a3");
      expect(await losses()).to.deep.equal([]);
      expect(announced).to.deep.equal([]);
      expect(await records.collectionTimestamp(scope)).to.equal(102);
    });
  });

  it("records the losses of each collection in its own scope", async () => {
    const books: ResourceDefinition = { ...articles, name: "books" };
    const bookScope: Scope = { collection: "books", parentId: "" };
    await records.create(bookScope, "b1", {}); // books: 100
    await inner.replaceObjectPermissions("/books/b1", { read: ["dave"] });
    const store = new LostAccessPermissionStore(inner, {
      records,
      shareable: (collection) => (collection === "books" ? books : collection === "articles" ? articles : undefined),
      touchOnGrant: false,
    });
    await store.deleteObjectPermissions("/articles/a2", "/books/b1");
    expect(await losses()).to.deep.equal([{ id: "a2", lastModified: 103, principals: ["carol"] }]);
    expect(await records.lostAccessAfter(bookScope, 0)).to.deep.equal([{ id: "b1", lastModified: 101, principals: ["dave"] }]);
  });

  it("touches on a grant with nobody to tell", async () => {
    const store = new LostAccessPermissionStore(inner, { records, shareable: () => articles, touchOnGrant: true });
    await store.addPrincipalToAce("/articles/a2", "read", "dave");
    expect(await records.get(scope, "a2")).to.deep.include({ lastModified: 103 });
  });

  describe("changed ACLs", () => {
    it("records a removed reader, not one who still reads through write", async () => {
      await inner.addPrincipalToAce("/articles/a1", "read", "alice");
      const store = tracking(false);
      await store.removePrincipalFromAce("/articles/a1", "read", "alice");
      await store.removePrincipalFromAce("/articles/a1", "read", "bob");
      expect(await losses()).to.deep.equal([{ id: "a1", lastModified: 103, principals: ["bob"] }]);
      expect(await acl("a1")).to.deep.equal({ share: ["erin"], write: ["alice"] });
    });

    it("with a resource's own bound permissions, records a removed reader only under a permission bound on the record itself", async () => {
      const reviewed = reviewedVersionOf(articles);
      await inner.replaceObjectPermissions("/articles/a3", { read: ["dave"], review: ["bob"] });
      const store = new LostAccessPermissionStore(inner, { records, shareable: () => reviewed, touchOnGrant: false });
      await store.removePrincipalFromAce("/articles/a3", "review", "bob"); // bob never read a3: no loss
      await store.removePrincipalFromAce("/articles/a3", "read", "dave"); // dave's loss: 103
      expect(await losses()).to.deep.equal([{ id: "a3", lastModified: 103, principals: ["dave"] }]);
      expect(await acl("a3")).to.deep.equal({});
    });

    it("records the readers a replaced ACL drops, then gives the record a new timestamp for the new reader", async () => {
      await tracking(true).replaceObjectPermissions("/articles/a1", { read: ["dave"], write: ["alice"], share: [] });
      expect(await losses()).to.deep.equal([{ id: "a1", lastModified: 103, principals: ["bob"] }]);
      expect(await records.get(scope, "a1")).to.deep.equal({ id: "a1", lastModified: 104, data: { n: 1 } });
      expect(announced).to.deep.equal(touched(103, 104));
      expect(await acl("a1")).to.deep.equal({ read: ["dave"], write: ["alice"] });
    });

    it("touches a record on a grant of read or write, not when the grantee read it already", async () => {
      const store = tracking(true);
      await store.addPrincipalToAce("/articles/a2", "write", "carol");
      expect(await records.get(scope, "a2")).to.deep.include({ lastModified: 101 });
      await store.addPrincipalToAce("/articles/a2", "write", "dave");
      expect(await records.get(scope, "a2")).to.deep.equal({ id: "a2", lastModified: 103, data: { n: 2 } });
      expect(announced).to.deep.equal(touched(103));
      expect(await losses()).to.deep.equal([]);
    });

    it("does not touch on a grant where the API's own record write does", async () => {
      await tracking(false).addPrincipalToAce("/articles/a2", "read", "dave");
      expect(await records.get(scope, "a2")).to.deep.include({ lastModified: 101 });
      expect(announced).to.deep.equal([]);
      expect(await acl("a2")).to.deep.equal({ read: ["carol", "dave"] });
    });
  });

  describe("touching a record on a grant", () => {
    const grant = (store: LostAccessPermissionStore) => store.addPrincipalToAce("/articles/a2", "read", "dave");

    it("keeps a write that got in first and touches the record after it", async () => {
      records.before = () => records.update(scope, "a2", { n: 20 }); // 103
      await grant(tracking(true));
      expect(await records.get(scope, "a2")).to.deep.equal({ id: "a2", lastModified: 104, data: { n: 20 } });
      expect(announced).to.deep.equal(touched(104));
    });

    it("tries five times, then leaves the record as it is", async () => {
      records.failures = [1, 2, 3, 4].map(() => new PreconditionFailedError(null));
      await grant(tracking(true));
      expect(records.updates).to.equal(5);
      expect(announced).to.deep.equal(touched(103));

      records.updates = 0;
      records.failures = [1, 2, 3, 4, 5].map(() => new PreconditionFailedError(null));
      await tracking(true).addPrincipalToAce("/articles/a2", "read", "erin");
      expect(records.updates).to.equal(5);
      expect(announced).to.deep.equal(touched(103));
      expect(await records.get(scope, "a2")).to.deep.include({ lastModified: 103 });
    });

    it("gives up quietly on a record deleted meanwhile, or never stored", async () => {
      records.failures = [new RecordNotFoundError("articles", "a2")];
      await grant(tracking(true));
      expect(records.updates).to.equal(1);
      await tracking(true).addPrincipalToAce("/articles/ghost", "read", "dave");
      expect(records.updates).to.equal(1);
      expect(announced).to.deep.equal([]);
      expect(await inner.objectPermissions("/articles/ghost")).to.deep.equal({ read: new Set(["dave"]) });
    });

    it("fails with any other storage failure", async () => {
      records.failures = [new Unexpected()];
      await expectRejection(grant(tracking(true)), Unexpected);
      expect(records.updates).to.equal(1);
    });
  });

  describe("everything else", () => {
    /** A permission store that records each call and answers `<method> result`. */
    function recordingInner(calls: unknown[][]): PermissionStore {
      return new Proxy({} as PermissionStore, {
        get:
          (_target, name) =>
          (...args: unknown[]) => {
            calls.push([name, ...args]);
            return Promise.resolve(`${String(name)} result`);
          },
      });
    }

    it("passes every other call through, with its arguments and answer", async () => {
      const calls: unknown[][] = [];
      const store = new LostAccessPermissionStore(recordingInner(calls), { records, shareable: () => articles, touchOnGrant: true });
      const bound = () => [];
      const passed: [string, (s: PermissionStore) => Promise<unknown>, unknown[]][] = [
        ["initializeSchema", (s) => s.initializeSchema(), []],
        ["flush", (s) => s.flush(), []],
        ["addUserPrincipal", (s) => s.addUserPrincipal("u", "g"), ["u", "g"]],
        ["removeUserPrincipal", (s) => s.removeUserPrincipal("u", "g"), ["u", "g"]],
        ["removePrincipal", (s) => s.removePrincipal("g"), ["g"]],
        ["userPrincipals", (s) => s.userPrincipals("u"), ["u"]],
        ["objectPermissionPrincipals", (s) => s.objectPermissionPrincipals("/o", "read"), ["/o", "read"]],
        ["principalsAccessibleObjects", (s) => s.principalsAccessibleObjects(["p"], "read", "/o/*", bound), [["p"], "read", "/o/*", bound]],
        ["objectPermissionAuthorizedPrincipals", (s) => s.objectPermissionAuthorizedPrincipals("/o", "read", bound), ["/o", "read", bound]],
        ["checkPermission", (s) => s.checkPermission("/o", "read", ["p"], bound), ["/o", "read", ["p"], bound]],
        ["objectPermissions", (s) => s.objectPermissions("/o", ["read"]), ["/o", ["read"]]],
        ["manyObjectPermissions", (s) => s.manyObjectPermissions(["/o"], ["read"]), [["/o"], ["read"]]],
        ["heartbeat", (s) => s.heartbeat(), []],
        ["close", (s) => s.close(), []],
      ];
      for (const [name, call, args] of passed) {
        calls.length = 0;
        expect(await call(store)).to.equal(`${name} result`);
        expect(calls).to.deep.equal([[name, ...args]]);
      }
    });

    it("passes ACL changes through untracked where no shareable record is concerned, or no read permission", async () => {
      const calls: unknown[][] = [];
      const store = new LostAccessPermissionStore(recordingInner(calls), {
        records,
        shareable: (collection) => (collection === "articles" ? articles : undefined),
        touchOnGrant: true,
      });
      const untracked = ["/articles/*", "/articles/a*", "/articles", "/articles/", "/articles/a1/x", "/notes/a1", "/other/articles/a1"];
      for (const objectId of untracked) {
        calls.length = 0;
        await store.addPrincipalToAce(objectId, "read", "p");
        await store.removePrincipalFromAce(objectId, "write", "p");
        await store.replaceObjectPermissions(objectId, { read: ["p"] });
        await store.deleteObjectPermissions(objectId);
        expect(calls, objectId).to.deep.equal([
          ["addPrincipalToAce", objectId, "read", "p"],
          ["removePrincipalFromAce", objectId, "write", "p"],
          ["replaceObjectPermissions", objectId, { read: ["p"] }],
          ["deleteObjectPermissions", objectId],
        ]);
      }
      calls.length = 0;
      await store.addPrincipalToAce("/articles/a1", "share", "p");
      await store.replaceObjectPermissions("/articles/a1", { share: ["p"] });
      expect(calls).to.deep.equal([
        ["addPrincipalToAce", "/articles/a1", "share", "p"],
        ["replaceObjectPermissions", "/articles/a1", { share: ["p"] }],
      ]);
      expect(await losses()).to.deep.equal([]);
    });
  });
});
