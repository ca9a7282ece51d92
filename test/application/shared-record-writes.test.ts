/**
 * The order of a record write and its ACL write in each SharedRecords, over stores and a unit of
 * work that record what they are asked: which write goes first, whether an undo is registered for
 * a rollback, the marks of an ACL in flight, and the scope handed to `run` (only the joined one
 * names it, to join the scope's group commit). The expected logs are written out by hand.
 */
import { expect } from "chai";
import { PostgresSharedRecords, type JoinedRecordStore } from "../../src/adapters/postgres/postgres-shared-records.js";
import type { AccessJournal } from "../../src/application/ports/access-journal.js";
import type { PermissionStore } from "../../src/application/ports/permission-store.js";
import type { RecordStore, Scope } from "../../src/application/ports/record-store.js";
import type { AclChange, RecordAcls, SharedRecords } from "../../src/application/ports/shared-records.js";
import type { UnitOfWork } from "../../src/application/ports/unit-of-work.js";
import { PortableSharedRecords } from "../../src/application/shared-records/portable-shared-records.js";
import { expectRejection } from "../support/rejection.js";

const SCOPE: Scope = { collection: "articles", parentId: "" };
const ACLS: RecordAcls = { objectIdPrefix: "/articles/", permissions: ["read", "write"], readPermissions: () => ["read", "write"] };
const CHANGE: AclChange = { acl: { read: ["bob"], write: ["alice"] }, previous: { read: [], write: ["alice"] }, previousVersion: 41 };
/** What the record write answers: the ACL written after it is told its version. */
const WRITTEN = { id: "a1", lastModified: 42, data: {} };
const STAMP = "tessera:acl_version";

/** Everything the unit of work, the record store and the permission store were asked, in order. */
function world(atomic: boolean, failing: { record?: boolean; acl?: boolean } = {}) {
  const log: string[] = [];
  const undos: Array<() => Promise<void>> = [];
  const scopes: Array<Scope | undefined> = [];
  const unitOfWork: UnitOfWork = {
    atomic,
    async run<T>(work: () => Promise<T>, scope?: Scope): Promise<T> {
      log.push("run");
      scopes.push(scope);
      try {
        return await work();
      } finally {
        log.push("end of run");
      }
    },
    onRollback(undo) {
      log.push("undo registered");
      undos.push(undo);
    },
    afterCommit(callback) {
      callback();
    },
  };
  const records = {
    update: async () => {
      log.push("record");
      if (failing.record) throw new Error("record write refused");
      return WRITTEN;
    },
  } as unknown as RecordStore & JoinedRecordStore;
  const journal = {
    recordLostAccessAt: async () => void log.push("loss"),
  } as unknown as AccessJournal;
  const permissions = {
    replaceObjectPermissions: async (_objectId: string, acl: Record<string, readonly string[]>) => {
      const stamp = acl[STAMP];
      // The stamps and the copy of a replaced ACL are Tessera's own entries, not permissions.
      const named = Object.keys(acl).filter((p) => !p.startsWith("tessera:"));
      if (named.length === 0) log.push(stamp?.[0] === String(Number.MAX_SAFE_INTEGER) ? "mark" : "clear");
      else log.push(stamp === undefined ? "acl" : `acl of version ${stamp[0] ?? "none"}`);
      if (failing.acl && named.length > 0) throw new Error("ACL write failed");
    },
  } as unknown as PermissionStore;
  const joined: SharedRecords = new PostgresSharedRecords(
    { getWithAcl: () => Promise.reject(new Error("no read")) },
    records,
    journal,
    permissions,
    unitOfWork,
  );
  const portable: SharedRecords = new PortableSharedRecords(records, journal, permissions, unitOfWork);
  const update = (shared: SharedRecords, change: AclChange | null = CHANGE) =>
    shared.update(SCOPE, "a1", {}, {}, ACLS, change ?? undefined);
  return { log, undos, scopes, joined, portable, update };
}

describe("writing a record and its ACL together (SharedRecords)", () => {
  it("joined: writes the ACL first, then the record, then the loss, with no undo, in the scope's unit of work", async () => {
    const w = world(true);
    expect(await w.update(w.joined)).to.deep.equal({ written: WRITTEN, lost: [] });
    expect(w.log).to.deep.equal(["run", "acl", "record", "end of run"]);
    expect(w.undos).to.deep.equal([]);
    expect(w.scopes).to.deep.equal([SCOPE]);
  });

  it("joined: writes no record when the ACL write goes first and fails", async () => {
    const w = world(true, { acl: true });
    const error = await expectRejection(w.update(w.joined), Error);
    expect(error.message).to.equal("ACL write failed");
    expect(w.log).to.deep.equal(["run", "acl", "end of run"]);
    expect(w.undos).to.deep.equal([]);
  });

  it("portable: writes the record first, then registers the ACL's undo and writes the ACL stamped with the version", async () => {
    const w = world(true);
    expect((await w.update(w.portable)).written).to.equal(WRITTEN);
    expect(w.log).to.deep.equal(["run", "record", "undo registered", "acl of version 42", "end of run"]);
    expect(w.undos).to.have.length(1);
    // No scope: with permissions elsewhere a unit of work keeps its own transaction (no group commit).
    expect(w.scopes).to.deep.equal([undefined]);
  });

  it("portable: records who lost read at the record write's timestamp", async () => {
    const w = world(true);
    const removal: AclChange = { acl: CHANGE.previous, previous: CHANGE.acl, previousVersion: 41 };
    expect((await w.update(w.portable, removal)).lost).to.deep.equal(["bob"]);
    expect(w.log).to.deep.equal(["run", "record", "undo registered", "acl of version 42", "loss", "end of run"]);
  });

  it("portable: marks the ACL in flight before a record write visible at once (no transaction), and clears the mark if it fails", async () => {
    for (const recordFails of [false, true]) {
      const w = world(false, { record: recordFails });
      const written = w.update(w.portable);
      if (recordFails) {
        await expectRejection(written, Error);
        expect(w.log).to.deep.equal(["run", "mark", "record", "clear", "end of run"]);
      } else {
        await written;
        expect(w.log).to.deep.equal(["run", "mark", "record", "undo registered", "acl of version 42", "end of run"]);
      }
    }
  });

  it("portable: sets no mark inside a transaction, where the record becomes visible only after its ACL", async () => {
    const w = world(true);
    await w.update(w.portable);
    expect(w.log).to.deep.equal(["run", "record", "undo registered", "acl of version 42", "end of run"]);
  });

  it("portable: leaves the ACL untouched, and registers no undo, when the record write fails first", async () => {
    const w = world(true, { record: true });
    const error = await expectRejection(w.update(w.portable), Error);
    expect(error.message).to.equal("record write refused");
    expect(w.log).to.deep.equal(["run", "record", "end of run"]);
    expect(w.undos).to.deep.equal([]);
  });

  it("both: write the record alone, outside any run, when there is no ACL change", async () => {
    for (const shared of ["joined", "portable"] as const) {
      const w = world(true);
      expect((await w.update(w[shared], null)).written).to.equal(WRITTEN);
      expect(w.log, shared).to.deep.equal(["record"]);
    }
  });
});
