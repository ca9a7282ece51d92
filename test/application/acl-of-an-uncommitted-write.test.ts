/**
 * Where an ACL lives apart from its record (Redis permissions, PostgreSQL storage), an update
 * writes the record inside its transaction, then the ACL, then commits. A process that dies
 * between the ACL write and the commit leaves the record at its old version and the ACL stamped
 * with a version that never committed. The record must keep the ACL it had: its owner may still
 * write it, its readers still read it, and the live feed judges the version by that ACL. Memory
 * stores; the write that never commits is one whose record write answers a version it never
 * stored, in a unit of work that never rolls back (nobody is left to do it). Clock at 100.
 */
import { expect } from "chai";
import { MemoryAccessJournal } from "../../src/adapters/memory/memory-access-journal.js";
import { MemoryPermissionStore } from "../../src/adapters/memory/memory-permission-store.js";
import { MemoryRecordStore } from "../../src/adapters/memory/memory-record-store.js";
import { MemoryScopeClocks } from "../../src/adapters/memory/scope-clocks.js";
import { DirectUnitOfWork } from "../../src/adapters/system/direct-unit-of-work.js";
import type { ObjectPermissions } from "../../src/application/ports/permission-store.js";
import type { RecordStore, Scope } from "../../src/application/ports/record-store.js";
import type { AclChange, RecordAcls } from "../../src/application/ports/shared-records.js";
import type { UnitOfWork } from "../../src/application/ports/unit-of-work.js";
import { PortableSharedRecords } from "../../src/application/shared-records/portable-shared-records.js";
import type { StoredRecord } from "../../src/domain/records.js";

const SCOPE: Scope = { collection: "articles", parentId: "" };
const ACLS: RecordAcls = { objectIdPrefix: "/articles/", permissions: ["read", "write"], readPermissions: () => ["read", "write"] };
const ALICE_ONLY = { read: ["alice"], write: ["alice"] };
const SHARED_WITH_BOB = { read: ["alice", "bob"], write: ["alice"] };

/** A transaction that commits: the record and then its ACL, as PostgreSQL storage runs them. */
const COMMITTING: UnitOfWork = { atomic: true, run: (work) => work(), afterCommit: (callback) => void callback() };

function plain(acl: ObjectPermissions | undefined): Record<string, string[]> | undefined {
  return acl && Object.fromEntries(Object.entries(acl).map(([permission, principals]) => [permission, [...principals].sort()]));
}

function stores() {
  const clocks = new MemoryScopeClocks({ now: () => 100 });
  const journal = new MemoryAccessJournal(clocks);
  const records = new MemoryRecordStore(clocks, journal);
  const permissions = new MemoryPermissionStore();
  return { journal, records, permissions, shared: new PortableSharedRecords(records, journal, permissions, COMMITTING) };
}

/** The same stores seen by a process whose record writes answer a next version but never store it (its commit never comes). */
function dyingProcess(s: ReturnType<typeof stores>, unitOfWork: UnitOfWork): PortableSharedRecords {
  const neverStored: RecordStore = Object.assign(Object.create(s.records) as RecordStore, {
    update: async (scope: Scope, id: string, data: StoredRecord["data"]) => {
      const now = await s.records.get(scope, id);
      return { id, data, lastModified: (now?.lastModified ?? 0) + 1 };
    },
  });
  return new PortableSharedRecords(neverStored, s.journal, s.permissions, unitOfWork);
}

describe("the ACL of a record whose update never committed (portable SharedRecords)", () => {
  it("keeps the record's version with the ACL it had, for reads and for the live feed, and a later update goes on from it", async () => {
    const s = stores();
    const created = await s.shared.create(SCOPE, "a1", { n: 1 }, {}, ACLS, ALICE_ONLY);
    const change: AclChange = { acl: { read: ["bob"], write: ["bob"] }, previous: ALICE_ONLY, previousVersion: created.lastModified };
    // Inside a transaction that never commits and is never rolled back: the ACL is written, the record is not.
    await dyingProcess(s, { ...COMMITTING, onRollback: () => undefined }).update(SCOPE, "a1", { n: 2 }, {}, ACLS, change);

    const read = await s.shared.read(SCOPE, "a1", ACLS, undefined);
    expect(read.record?.lastModified).to.equal(created.lastModified);
    expect(plain(read.acl)).to.deep.equal({ read: ["alice"], write: ["alice"] });
    const judged = await s.shared.aclsOfVersions([created], ACLS);
    expect(plain(judged.get("a1"))).to.deep.equal({ read: ["alice"], write: ["alice"] });

    const next = await s.shared.update(SCOPE, "a1", { n: 3 }, {}, ACLS, {
      acl: SHARED_WITH_BOB,
      previous: ALICE_ONLY,
      previousVersion: created.lastModified,
    });
    const after = await s.shared.read(SCOPE, "a1", ACLS, undefined);
    expect(after.record?.lastModified).to.equal(next.written.lastModified);
    expect(plain(after.acl)).to.deep.equal({ read: ["alice", "bob"], write: ["alice"] });
  });

  it("pairs a version with nothing while its ACL is marked in flight (no transaction), even where an older write left a copy", async () => {
    const s = stores();
    const direct = new PortableSharedRecords(s.records, s.journal, s.permissions, new DirectUnitOfWork());
    const created = await direct.create(SCOPE, "a1", { n: 1 }, {}, ACLS, ALICE_ONLY);
    // A completed update: its ACL keeps a copy of the one it replaced, stamped with the creation.
    const shared = await direct.update(SCOPE, "a1", { n: 2 }, {}, ACLS, {
      acl: SHARED_WITH_BOB,
      previous: ALICE_ONLY,
      previousVersion: created.lastModified,
    });
    // The next update marks the ACL in flight, then its record write never answers.
    const hanging = Object.assign(Object.create(s.records) as RecordStore, { update: () => new Promise<never>(() => undefined) });
    void new PortableSharedRecords(hanging, s.journal, s.permissions, new DirectUnitOfWork()).update(SCOPE, "a1", { n: 3 }, {}, ACLS, {
      acl: ALICE_ONLY,
      previous: SHARED_WITH_BOB,
      previousVersion: shared.written.lastModified,
    });
    await new Promise((resolve) => setImmediate(resolve));

    const read = await s.shared.read(SCOPE, "a1", ACLS, undefined);
    expect(read.record?.lastModified).to.equal(shared.written.lastModified);
    expect(read.acl).to.equal(undefined);
    expect((await s.shared.aclsOfVersions([shared.written], ACLS)).has("a1")).to.equal(false);
  });
});
