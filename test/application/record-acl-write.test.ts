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
  const writeRecord = async (): Promise<string> => {
    log.push("record");
    if (failing.record) throw new Error("record write refused");
    return "written";
  };
  const acl: AclWrite = {
    write: async () => {
      log.push("acl");
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
    expect(await writeRecordWithAcl(w.unitOfWork, true, w.writeRecord, w.acl, SCOPE)).to.equal("written");
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
    expect(await writeRecordWithAcl(w.unitOfWork, false, w.writeRecord, w.acl, SCOPE)).to.equal("written");
    expect(w.log).to.deep.equal(["run", "record", "undo registered", "acl", "end of run"]);
    expect(w.undos).to.have.length(1);
    expect(w.undos[0]).to.equal(w.acl.undo);
    expect(w.scopes).to.deep.equal([SCOPE]);
  });

  it("writes the record first where the unit of work is not atomic, even if the ACL would share its transaction", async () => {
    const w = world(false);
    expect(await writeRecordWithAcl(w.unitOfWork, true, w.writeRecord, w.acl, SCOPE)).to.equal("written");
    expect(w.log).to.deep.equal(["run", "record", "undo registered", "acl", "end of run"]);
    expect(w.undos).to.have.length(1);
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
    expect(await writeRecordWithAcl(w.unitOfWork, true, w.writeRecord, undefined, SCOPE)).to.equal("written");
    expect(w.log).to.deep.equal(["record"]);
  });
});
