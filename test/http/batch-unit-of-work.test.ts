/**
 * A batch runs in one unit of work, on every backend: checked on memory (where the unit of work
 * is not atomic, so atomicity cannot be observed) by recording, around the server's own unit of
 * work, which outer `run` each record write happened in. PostgreSQL's rollback of a failed batch
 * is checked against the real database in postgres-backed.test.ts.
 */
import { expect } from "chai";
import { BackendError } from "../../src/domain/errors.js";
import type { RecordStore } from "../../src/application/ports/record-store.js";
import type { UnitOfWork } from "../../src/application/ports/unit-of-work.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { startTestServer, type TestServer } from "../support/http.js";

const ALICE = "alice:pw";
const WRITES = ["create", "update", "delete", "deleteMany"] as const;

describe("Batch: one unit of work per batch", () => {
  let server: TestServer;
  /** For each record write, the number of the outer `run` it happened in (0: outside any). */
  const writes: Array<{ method: string; run: number }> = [];
  let runs = 0;
  let failedRuns = 0;
  let depth = 0;
  const restore: Array<() => void> = [];

  before(async () => {
    server = await startTestServer();
    const unitOfWork: UnitOfWork = server.running.container.get(TOKENS.HttpServices).unitOfWork;
    const run = unitOfWork.run.bind(unitOfWork);
    unitOfWork.run = async <T>(work: () => Promise<T>): Promise<T> => {
      if (depth === 0) runs += 1;
      depth += 1;
      try {
        return await run(work);
      } catch (error) {
        if (depth === 1) failedRuns += 1;
        throw error;
      } finally {
        depth -= 1;
      }
    };
    restore.push(() => (unitOfWork.run = run));
    const records: RecordStore = server.running.container.get(TOKENS.RecordStore);
    for (const method of WRITES) {
      const original = records[method].bind(records) as (...args: unknown[]) => Promise<unknown>;
      (records as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        writes.push({ method, run: depth > 0 ? runs : 0 });
        return original(...args);
      };
      restore.push(() => ((records as unknown as Record<string, unknown>)[method] = original));
    }
  });
  beforeEach(() => {
    writes.length = 0;
    runs = 0;
    failedRuns = 0;
  });
  after(async () => {
    for (const undo of restore.splice(0)) undo();
    await server?.stop();
  });

  it("runs every write of a batch inside a single outer run of the unit of work", async () => {
    const res = await server.request("POST", "/v1/batch", {
      user: ALICE,
      body: {
        requests: [
          { method: "PUT", path: "/articles/a1", body: { data: { v: 1 } } },
          { method: "PUT", path: "/notes/n1", body: { data: { v: 1 } } },
          { method: "PATCH", path: "/notes/n1", body: { data: { v: 2 } } },
          { method: "DELETE", path: "/articles/a1" },
          { method: "DELETE", path: "/notes" },
        ],
      },
    });
    expect(res.status).to.equal(200);
    expect(res.body.responses.map((r: { status: number }) => r.status)).to.deep.equal([201, 201, 200, 200, 200]);
    expect(writes.map((w) => w.method)).to.deep.equal(["create", "create", "update", "delete", "deleteMany"]);
    expect(runs).to.equal(1);
    expect(
      writes.every((w) => w.run === 1),
      JSON.stringify(writes),
    ).to.equal(true);
  });

  it("lets a failing sub-request fail the unit of work (so that it can roll the batch back)", async () => {
    const records = server.running.container.get(TOKENS.RecordStore);
    const get = records.get.bind(records);
    records.get = (scope, id) => (id === "boom" ? Promise.reject(new BackendError("storage")) : get(scope, id));
    try {
      const res = await server.request("POST", "/v1/batch", {
        user: ALICE,
        body: { requests: [{ method: "PUT", path: "/notes/before", body: { data: {} } }, { path: "/notes/boom" }] },
      });
      expect(res.status).to.equal(503);
    } finally {
      records.get = get;
    }
    expect(runs).to.equal(1);
    expect(failedRuns).to.equal(1);
    expect(writes).to.deep.equal([{ method: "create", run: 1 }]);
  });
});
