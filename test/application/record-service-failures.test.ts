/**
 * The record service when a write fails: which failures a PATCH retries (only a lost race on a
 * write without the client's own If-Match), the 503 past the contention deadline (made short
 * here, so nothing waits long), and a DELETE, PUT or PATCH whose transaction rolls back after its
 * ACL was written.
 */
import { expect } from "chai";
import { BackendError, PreconditionFailedError } from "../../src/domain/errors.js";
import type { JsonObject } from "../../src/domain/json.js";
import type { StoredRecord, Tombstone } from "../../src/domain/records.js";
import { Authorizer } from "../../src/application/authorizer.js";
import { CONTENTION_DEADLINE_MS } from "../../src/application/contention-retry.js";
import { resourceKinds } from "../../src/application/kinds/resource-kinds.js";
import { PaginationTokens } from "../../src/application/pagination-token.js";
import type { ConditionalWriteOptions, Scope } from "../../src/application/ports/record-store.js";
import type { UnitOfWork } from "../../src/application/ports/unit-of-work.js";
import { PortableSharedRecords } from "../../src/application/shared-records/portable-shared-records.js";
import { RecordService } from "../../src/application/record-service.js";
import { authenticatedRequester } from "../../src/application/requester.js";
import type { ResourceDefinition } from "../../src/application/resources.js";
import { MemoryPermissionStore } from "../../src/adapters/memory/memory-permission-store.js";
import { MemoryRecordStore, memoryStorage } from "../../src/adapters/memory/memory-record-store.js";
import type { MemoryAccessJournal } from "../../src/adapters/memory/memory-access-journal.js";
import { DirectUnitOfWork } from "../../src/adapters/system/direct-unit-of-work.js";
import { expectRejection } from "../support/rejection.js";

const articles: ResourceDefinition = {
  name: "articles",
  kind: "shareable",
  permissions: ["read", "write"],
  settingsPrincipals: { create: ["system.Authenticated"] },
};

class StoreDown extends Error {}

/**
 * A memory store whose record updates fail as told (counted), and whose updates and deletes may be
 * told not to apply (their transaction will not commit).
 */
class FaultyRecords extends MemoryRecordStore {
  updateFailure: Error | undefined;
  updates = 0;
  updatesApply = true;
  deletesApply = true;

  override async update(scope: Scope, id: string, data: JsonObject, options?: ConditionalWriteOptions): Promise<StoredRecord> {
    this.updates += 1;
    if (this.updateFailure) throw this.updateFailure;
    if (this.updatesApply) return super.update(scope, id, data, options);
    return { id, lastModified: 2_000_000, data };
  }

  override async delete(scope: Scope, id: string, options?: ConditionalWriteOptions): Promise<Tombstone> {
    if (this.deletesApply) return super.delete(scope, id, options);
    return { id, lastModified: 2_000_000, deleted: true };
  }
}

class CommitFailed extends Error {}

/** A unit of work whose commit fails after its work ran: what was registered to undo runs, then the failure. */
class FailingCommit implements UnitOfWork {
  readonly atomic = true;
  private undos: (() => Promise<void>)[] = [];

  async run<T>(work: () => Promise<T>): Promise<T> {
    await work();
    for (const undo of this.undos.splice(0)) await undo();
    throw new CommitFailed();
  }

  onRollback(undo: () => Promise<void>): void {
    this.undos.push(undo);
  }

  afterCommit(): void {}
}

describe("RecordService when writes fail", () => {
  const alice = (permissions: MemoryPermissionStore) => authenticatedRequester("alice", (id) => permissions.userPrincipals(id));
  let records: FaultyRecords;
  let journal: MemoryAccessJournal;
  let permissions: MemoryPermissionStore;

  function service(unitOfWork: UnitOfWork = new DirectUnitOfWork(), contentionDeadlineMs = 0): RecordService {
    return new RecordService({
      records,
      journal,
      kinds: resourceKinds({ authorizer: new Authorizer(permissions) }),
      shared: new PortableSharedRecords(records, journal, permissions, unitOfWork),
      unitOfWork,
      ids: { generate: () => "generated" },
      tokens: new PaginationTokens("secret"),
      contentionDeadlineMs,
    });
  }

  beforeEach(() => {
    ({ records, journal } = memoryStorage({ now: () => 1_000_000 }, FaultyRecords));
    permissions = new MemoryPermissionStore();
  });

  it("gives a PATCH's storage failure back as it is, without retrying it", async () => {
    const tessera = service();
    await tessera.create(alice(permissions), articles, { data: { id: "a1", n: 1 } });
    records.updateFailure = new StoreDown("storage down");
    await expectRejection(tessera.update(alice(permissions), articles, "a1", { data: { n: 2 }, merge: false }), StoreDown);
    expect(records.updates).to.equal(1);
  });

  it("gives a PATCH with If-Match the precondition failure of its write, without retrying it", async () => {
    const tessera = service();
    const created = await tessera.create(alice(permissions), articles, { data: { id: "a1", n: 1 } });
    // The record matched when read; another write got in before the conditional write.
    records.updateFailure = new PreconditionFailedError(null);
    const patch = tessera.update(
      alice(permissions),
      articles,
      "a1",
      { data: { n: 2 }, merge: false },
      { ifMatch: created.record.lastModified },
    );
    await expectRejection(patch, PreconditionFailedError);
    expect(records.updates).to.equal(1);
  });

  it("answers a PATCH that keeps losing races past the contention deadline as an overload (503), never a 412", async () => {
    const tessera = service();
    await tessera.create(alice(permissions), articles, { data: { id: "a1", n: 1 } });
    records.updateFailure = new PreconditionFailedError(null);
    const error = await expectRejection(tessera.update(alice(permissions), articles, "a1", { data: { n: 2 }, merge: false }), BackendError);
    expect(error.message).to.equal("Too many concurrent writes to this record: try again later");
    expect(records.updates).to.equal(1);
  });

  it("keeps retrying a PATCH that loses races until the deployment's own deadline, then answers 503", async function () {
    // 200 ms here; the 10 s default would outlast this test's timeout (half of it).
    this.timeout(CONTENTION_DEADLINE_MS / 2);
    const tessera = service(new DirectUnitOfWork(), 200);
    await tessera.create(alice(permissions), articles, { data: { id: "a1", n: 1 } });
    records.updateFailure = new PreconditionFailedError(null);
    await expectRejection(tessera.update(alice(permissions), articles, "a1", { data: { n: 2 }, merge: false }), BackendError);
    expect(records.updates).to.be.greaterThan(1);
  });

  it("puts a deleted record's ACL back when the DELETE's transaction rolls back after the ACL was removed", async () => {
    await service().create(alice(permissions), articles, { data: { id: "a1" }, permissions: { read: ["bob", "carol"] } });
    records.deletesApply = false;
    await expectRejection(service(new FailingCommit()).delete(alice(permissions), articles, "a1"), CommitFailed);
    const found = await service().get(alice(permissions), articles, "a1");
    expect(found.permissions).to.deep.equal({ read: ["bob", "carol"], write: ["alice"] });
  });

  it("puts a record's ACL back when the PUT or PATCH that changed it rolls back after the ACL was written", async () => {
    await service().create(alice(permissions), articles, { data: { id: "a1", n: 1 }, permissions: { read: ["bob", "carol"] } });
    records.updatesApply = false;
    const put = service(new FailingCommit()).replace(alice(permissions), articles, "a1", {
      data: { n: 2 },
      permissions: { read: ["dave"] },
    });
    await expectRejection(put, CommitFailed);
    const afterPut = await service().get(alice(permissions), articles, "a1");
    expect(afterPut.record.data).to.deep.equal({ n: 1 });
    expect(afterPut.permissions).to.deep.equal({ read: ["bob", "carol"], write: ["alice"] });
    const patch = service(new FailingCommit()).update(alice(permissions), articles, "a1", {
      data: { n: 3 },
      permissions: { read: ["erin"] },
      merge: false,
    });
    await expectRejection(patch, CommitFailed);
    const afterPatch = await service().get(alice(permissions), articles, "a1");
    expect(afterPatch.permissions).to.deep.equal({ read: ["bob", "carol"], write: ["alice"] });
  });
});
