/**
 * A resource's write consequences (RecordServiceDeps.consequences) run around every record write
 * of RecordService, inside the write's unit of work: checked before the write with what it will
 * write, applied after it with what it wrote, and what they leave for after commit run once the
 * outermost unit of work committed, never when it failed.
 */
import { expect } from "chai";
import { ForbiddenError } from "../../src/domain/errors.js";
import { Authorizer } from "../../src/application/authorizer.js";
import { resourceKinds } from "../../src/application/kinds/resource-kinds.js";
import { PaginationTokens } from "../../src/application/pagination-token.js";
import type { UnitOfWork } from "../../src/application/ports/unit-of-work.js";
import { PortableSharedRecords } from "../../src/application/shared-records/portable-shared-records.js";
import { RecordService } from "../../src/application/record-service.js";
import { authenticatedRequester } from "../../src/application/requester.js";
import type { RecordWrite, ResourceDefinition, WriteConsequences } from "../../src/application/resources.js";
import { MemoryPermissionStore } from "../../src/adapters/memory/memory-permission-store.js";
import { memoryStorage } from "../../src/adapters/memory/memory-record-store.js";
import { expectRejection } from "../support/rejection.js";

/** Runs work as is, remembering how deep it is; after-commit callbacks wait for the outermost run to succeed. */
class RecordingUnitOfWork implements UnitOfWork {
  readonly atomic = false;
  depth = 0;
  private pending: (() => void)[] = [];

  async run<T>(work: () => Promise<T>): Promise<T> {
    this.depth++;
    let failed = true;
    try {
      const result = await work();
      failed = false;
      return result;
    } finally {
      this.depth--;
      if (this.depth === 0) {
        const callbacks = failed ? [] : this.pending;
        this.pending = [];
        for (const callback of callbacks) callback();
      }
    }
  }

  afterCommit(callback: () => void): void {
    if (this.depth === 0) callback();
    else this.pending.push(callback);
  }
}

describe("RecordService: a resource's write consequences", () => {
  let log: string[];
  let refuse: boolean;
  let unitOfWork: RecordingUnitOfWork;
  let service: RecordService;
  const alice = authenticatedRequester("alice", () => Promise.resolve(new Set<string>()));

  const describeWrites = (writes: readonly RecordWrite[]) =>
    writes.map((w) => (w.action === "delete" ? `delete ${w.id}` : `${w.action} ${w.id} ${JSON.stringify(w.after)}`)).join("; ");
  const consequences: WriteConsequences = {
    check: (writes) => {
      log.push(`check[${unitOfWork.depth}] ${describeWrites(writes)}`);
      return refuse ? Promise.reject(new ForbiddenError("refused")) : Promise.resolve();
    },
    apply: (writes) => {
      log.push(`apply[${unitOfWork.depth}] ${describeWrites(writes)}`);
      return Promise.resolve(async () => {
        log.push(`after commit[${unitOfWork.depth}]`);
      });
    },
  };
  const groups: ResourceDefinition = {
    name: "groups",
    kind: "shareable",
    permissions: ["read", "write"],
    settingsPrincipals: { create: ["system.Authenticated"] },
  };

  beforeEach(() => {
    log = [];
    refuse = false;
    const { records, journal } = memoryStorage({ now: () => Date.now() });
    const permissions = new MemoryPermissionStore();
    unitOfWork = new RecordingUnitOfWork();
    service = new RecordService({
      records,
      journal,
      kinds: resourceKinds({ authorizer: new Authorizer(permissions) }),
      shared: new PortableSharedRecords(records, journal, permissions, unitOfWork),
      unitOfWork,
      ids: { generate: () => "generated" },
      tokens: new PaginationTokens("secret"),
      consequencesOf: (resource) => (resource.name === groups.name ? consequences : undefined),
    });
  });

  it("checks, writes and applies in one unit of work, then runs what is left once it committed", async () => {
    await service.create(alice, groups, { data: { id: "g", members: ["a"] } });
    expect(log).to.deep.equal([`check[1] create g {"members":["a"]}`, `apply[1] create g {"members":["a"]}`, "after commit[0]"]);
  });

  it("gives updates with the data before and after, by PUT and by PATCH", async () => {
    await service.replace(alice, groups, "g", { data: { members: ["a"] } });
    log = [];
    await service.replace(alice, groups, "g", { data: { members: ["b"] } });
    await service.update(alice, groups, "g", { data: { members: ["c"] }, merge: false });
    const updates = log.filter((l) => l.startsWith("apply"));
    expect(updates).to.deep.equal([`apply[1] update g {"members":["b"]}`, `apply[1] update g {"members":["c"]}`]);
  });

  it("gives deletes by id, one by one and for the whole collection (known only once written)", async () => {
    for (const id of ["g1", "g2", "g3"]) await service.replace(alice, groups, id, { data: {} });
    log = [];
    await service.delete(alice, groups, "g1");
    await service.deleteAll(alice, groups, []);
    expect(log.filter((l) => !l.startsWith("after"))).to.deep.equal([
      "check[1] delete g1",
      "apply[1] delete g1",
      "check[1] ",
      "apply[1] delete g2; delete g3",
    ]);
  });

  it("writes nothing and applies nothing when the check refuses", async () => {
    refuse = true;
    await expectRejection(service.replace(alice, groups, "g", { data: {} }), ForbiddenError);
    expect(log).to.deep.equal(["check[1] create g {}"]);
    refuse = false;
    await expectRejection(service.get(alice, groups, "g"), Error);
  });

  it("runs what is left after the outermost unit of work, inside a batch's", async () => {
    await unitOfWork.run(async () => {
      await service.replace(alice, groups, "g", { data: {} });
      log.push("batch goes on");
    });
    expect(log).to.deep.equal(["check[2] create g {}", "apply[2] create g {}", "batch goes on", "after commit[0]"]);
  });
});
