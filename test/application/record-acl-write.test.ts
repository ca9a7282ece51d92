/**
 * `writeRecordWithAcl` alone, over a unit of work that records what it is asked: which write goes
 * first, whether an undo is registered for a rollback, and the scope handed to `run`. The
 * expected logs are written out by hand.
 */
import { expect } from "chai";
import { writeRecordWithAcl, type AclWrite } from "../../src/application/record-acl-write.js";
import type { Scope } from "../../src/application/ports/record-store.js";
import type { UnitOfWork } from "../../src/application/ports/unit-of-work.js";
import { expectRejection } from "../support/rejection.js";

const SCOPE: Scope = { collection: "articles", parentId: "" };
/** What the record write answers: the ACL written after it is told its version. */
const WRITTEN = { lastModified: 42 };

/** Everything the unit of work, the record write and the ACL write were asked, in order. */
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
  const writeRecord = async (): Promise<typeof WRITTEN> => {
    log.push("record");
    if (failing.record) throw new Error("record write refused");
    return WRITTEN;
  };
  const acl: AclWrite = {
    write: async (version) => {
      log.push(version === undefined ? "acl" : `acl of version ${version}`);
      if (failing.acl) throw new Error("ACL write failed");
    },
    undo: async () => {
      log.push("acl undone");
    },
  };
  return { log, undos, scopes, unitOfWork, writeRecord, acl };
}

describe("writing a record and its ACL together", () => {
  it("writes the ACL first, then the record, with no undo, where the ACL shares the record's transaction", async () => {
    const w = world(true);
    expect(await writeRecordWithAcl(w.unitOfWork, true, w.writeRecord, w.acl, SCOPE)).to.equal(WRITTEN);
    expect(w.log).to.deep.equal(["run", "acl", "record", "end of run"]);
    expect(w.undos).to.deep.equal([]);
    expect(w.scopes).to.deep.equal([SCOPE]);
  });

  it("writes no record when the ACL write goes first and fails", async () => {
    const w = world(true, { acl: true });
    const error = await expectRejection(writeRecordWithAcl(w.unitOfWork, true, w.writeRecord, w.acl, SCOPE), Error);
    expect(error.message).to.equal("ACL write failed");
    expect(w.log).to.deep.equal(["run", "acl", "end of run"]);
    expect(w.undos).to.deep.equal([]);
  });

  it("writes the record first, then registers the ACL's undo and writes the ACL, where the ACL is in another backend", async () => {
    const w = world(true);
    expect(await writeRecordWithAcl(w.unitOfWork, false, w.writeRecord, w.acl, SCOPE)).to.equal(WRITTEN);
    expect(w.log).to.deep.equal(["run", "record", "undo registered", "acl of version 42", "end of run"]);
    expect(w.undos).to.have.length(1);
    expect(w.undos[0]).to.equal(w.acl.undo);
    expect(w.scopes).to.deep.equal([SCOPE]);
  });

  it("writes the record first where the unit of work is not atomic, even if the ACL would share its transaction", async () => {
    const w = world(false);
    expect(await writeRecordWithAcl(w.unitOfWork, true, w.writeRecord, w.acl, SCOPE)).to.equal(WRITTEN);
    expect(w.log).to.deep.equal(["run", "record", "undo registered", "acl of version 42", "end of run"]);
    expect(w.undos).to.have.length(1);
  });

  it("marks the ACL in flight before a record write that is visible at once (no transaction), and clears the mark if it fails", async () => {
    for (const recordFails of [false, true]) {
      const w = world(false, { record: recordFails });
      const pending = { mark: async () => void w.log.push("mark"), clear: async () => void w.log.push("clear") };
      const written = writeRecordWithAcl(w.unitOfWork, false, w.writeRecord, { ...w.acl, pending }, SCOPE);
      if (recordFails) {
        await expectRejection(written, Error);
        expect(w.log).to.deep.equal(["run", "mark", "record", "clear", "end of run"]);
      } else {
        expect(await written).to.equal(WRITTEN);
        expect(w.log).to.deep.equal(["run", "mark", "record", "undo registered", "acl of version 42", "end of run"]);
      }
    }
  });

  it("sets no mark inside a transaction, where the record becomes visible only after its ACL", async () => {
    const w = world(true);
    const pending = { mark: async () => void w.log.push("mark"), clear: async () => void w.log.push("clear") };
    await writeRecordWithAcl(w.unitOfWork, false, w.writeRecord, { ...w.acl, pending }, SCOPE);
    expect(w.log).to.deep.equal(["run", "record", "undo registered", "acl of version 42", "end of run"]);
  });

  it("leaves the ACL untouched, and registers no undo, when the record write fails first", async () => {
    const w = world(true, { record: true });
    const error = await expectRejection(writeRecordWithAcl(w.unitOfWork, false, w.writeRecord, w.acl, SCOPE), Error);
    expect(error.message).to.equal("record write refused");
    expect(w.log).to.deep.equal(["run", "record", "end of run"]);
    expect(w.undos).to.deep.equal([]);
  });

  it("writes the record alone, outside any run, when there is no ACL to write", async () => {
    const w = world(true);
    expect(await writeRecordWithAcl(w.unitOfWork, true, w.writeRecord, undefined, SCOPE)).to.equal(WRITTEN);
    expect(w.log).to.deep.equal(["record"]);
  });
});
