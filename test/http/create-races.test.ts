/**
 * PUTs of one new id racing, on every backend: a barrier in the stores' reads makes every racer
 * find the record missing before any of them writes, so all of them try to create it. One
 * creates it (201); each other is decided again on the winner's record: the replace it would have
 * been (200), or 412 with `If-None-Match: *` — never a 409, also inside a batch.
 */
import { expect } from "chai";
import type { RecordStore } from "../../src/application/ports/record-store.js";
import { joinedSharedRecords } from "../support/joined-shared-records.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import type { TestResponse } from "../support/http.js";
import { holdReads } from "../support/read-barrier.js";
import { SYNC_BACKENDS, useSyncServer } from "../sync/backends.js";

const ALICE = "alice:pw";
const RACERS = 30;
/** Each batch holds a storage connection for its transaction on PostgreSQL: fewer, within the pool. */
const BATCH_RACERS = 8;

function statuses(answers: readonly TestResponse[]): number[] {
  return answers.map((a) => a.status).sort();
}

function expected(winner: number, others: number, count: number): number[] {
  return [winner, ...Array.from({ length: count - 1 }, () => others)].sort();
}

for (const backend of SYNC_BACKENDS) {
  describe(`PUTs of one new id racing (${backend.name})`, function () {
    this.timeout(30_000);
    const open = useSyncServer(backend, { storage_pool_size: String(BATCH_RACERS + 4) });
    const server = () => open().server;
    const holdN1 = async (parties: number) => {
      const { container } = server().running;
      const records: RecordStore = await container.getAsync(TOKENS.RecordStore);
      const permissions = container.isBound(TOKENS.PermissionStore) ? await container.getAsync(TOKENS.PermissionStore) : undefined;
      const together = await joinedSharedRecords(container);
      return holdReads({ records, id: "n1", permissions, objectId: "/articles/n1", ...(together ? { together } : {}) }, parties, 10_000);
    };

    const put = (v: number, headers: Record<string, string> = {}) =>
      server().request("PUT", "/v1/articles/n1", { user: ALICE, body: { data: { v } }, headers });

    it(`${RACERS} plain PUTs: one 201, the others replace it (200), and the last replace stays`, async () => {
      const barrier = await holdN1(RACERS);
      try {
        const answers = await Promise.all(Array.from({ length: RACERS }, (_, v) => put(v)));
        expect(barrier.reached).to.equal(RACERS);
        expect(statuses(answers), JSON.stringify(answers.find((a) => a.status >= 300)?.body)).to.deep.equal(expected(201, 200, RACERS));
        const newest = answers.reduce((a, b) => (a.body.data.last_modified > b.body.data.last_modified ? a : b));
        expect((await server().request("GET", "/v1/articles/n1", { user: ALICE })).body.data).to.deep.equal(newest.body.data);
      } finally {
        barrier.restore();
      }
    });

    it(`${RACERS} PUTs with If-None-Match: *: one 201, the others 412`, async () => {
      const barrier = await holdN1(RACERS);
      try {
        const answers = await Promise.all(Array.from({ length: RACERS }, (_, v) => put(v, { "If-None-Match": "*" })));
        expect(barrier.reached).to.equal(RACERS);
        expect(statuses(answers)).to.deep.equal(expected(201, 412, RACERS));
        const created = answers.find((a) => a.status === 201);
        expect((await server().request("GET", "/v1/articles/n1", { user: ALICE })).body.data).to.deep.equal(created?.body.data);
      } finally {
        barrier.restore();
      }
    });

    it(`${BATCH_RACERS} batches with a PUT each: every batch succeeds, one 201 and the others 200`, async () => {
      const barrier = await holdN1(BATCH_RACERS);
      try {
        const answers = await Promise.all(
          Array.from({ length: BATCH_RACERS }, (_, v) =>
            server().request("POST", "/v1/batch", {
              user: ALICE,
              body: { requests: [{ method: "PUT", path: "/v1/articles/n1", body: { data: { v } } }] },
            }),
          ),
        );
        expect(barrier.reached).to.equal(BATCH_RACERS);
        expect(answers.map((a) => a.status)).to.deep.equal(Array.from({ length: BATCH_RACERS }, () => 200));
        const inner = answers.map((a) => (a.body.responses as { status: number }[])[0]?.status ?? 0).sort();
        expect(inner).to.deep.equal(expected(201, 200, BATCH_RACERS));
      } finally {
        barrier.restore();
      }
    });
  });
}
