/**
 * If-Match under real concurrency, on every backend: two PUTs (or two DELETEs) sent with the same
 * If-Match both read the record and its ACL before either writes (a barrier in the stores' reads
 * forces this interleaving), so only the store's atomic compare-and-write can tell them apart: exactly one
 * wins, the other gets a precondition failure. Without If-Match, two racing PATCHes both land.
 */
import { expect } from "chai";
import { PreconditionFailedError } from "../../src/domain/errors.js";
import type { PermissionStore } from "../../src/application/ports/permission-store.js";
import type { RecordStore } from "../../src/application/ports/record-store.js";
import type { SharedRecords } from "../../src/application/ports/shared-records.js";
import type { RecordService } from "../../src/application/record-service.js";
import { authenticatedRequester, noGroups, type Requester } from "../../src/application/requester.js";
import type { ResourceDefinition } from "../../src/application/resources.js";
import { joinedSharedRecords } from "../support/joined-shared-records.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { holdReads } from "../support/read-barrier.js";
import { startTestServer, userId, type TestServer } from "../support/http.js";
import { permissionBackendSetups } from "../support/backend-setups.js";
import { requireService } from "../support/services.js";

const ALICE = "alice:pw";
const ARTICLES: ResourceDefinition = {
  name: "articles",
  kind: "shareable",
  permissions: ["read", "write"],
  settingsPrincipals: { create: ["system.Authenticated"] },
};

const BACKENDS = permissionBackendSetups("race");

/** Settles both, and returns them as [fulfilled values, rejection reasons]. */
async function settle<T>(racers: Array<Promise<T>>): Promise<[T[], unknown[]]> {
  const results = await Promise.allSettled(racers);
  return [
    results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : [])),
    results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : [])),
  ];
}

for (const backend of BACKENDS) {
  describe(`If-Match races (${backend.name})`, function () {
    if (backend.service) requireService(backend.service);
    this.timeout(20_000);
    let server: TestServer;
    let records: RecordStore;
    let permissions: PermissionStore | undefined;
    let together: SharedRecords | undefined;
    /** The reads of record r1 (and of its ACL) that the barrier holds. */
    const r1 = () => ({ records, id: "r1", permissions, objectId: "/articles/r1", ...(together ? { together } : {}) });
    let service: RecordService;
    let alice: Requester;

    before(async () => {
      server = await startTestServer(await backend.settings());
      const { container } = server.running;
      await (await container.getAsync(TOKENS.Migrator)).migrate();
      records = await container.getAsync(TOKENS.RecordStore);
      permissions = container.isBound(TOKENS.PermissionStore) ? await container.getAsync(TOKENS.PermissionStore) : undefined;
      together = await joinedSharedRecords(container);
      service = await server.running.container.getAsync(TOKENS.RecordService);
      alice = authenticatedRequester(userId(ALICE), noGroups);
    });
    beforeEach(async () => {
      await (await server.running.container.getAsync(TOKENS.AccessJournal)).flush();
      await records.flush();
      await permissions?.flush();
    });
    after(async () => {
      await permissions?.flush();
      await server?.stop();
    });

    it("service: of two replaces with the same If-Match, exactly one wins and the other fails the precondition", async () => {
      const created = await service.replace(alice, ARTICLES, "r1", { data: { v: 0 } });
      const ifMatch = created.record.lastModified;
      const barrier = holdReads(r1());
      try {
        const [won, lost] = await settle([1, 2].map((v) => service.replace(alice, ARTICLES, "r1", { data: { v } }, { ifMatch })));
        expect(barrier.reached).to.equal(2);
        expect(won).to.have.length(1);
        expect(lost).to.have.length(1);
        expect(lost[0]).to.be.instanceOf(PreconditionFailedError);
        expect((await service.get(alice, ARTICLES, "r1")).record.data).to.deep.equal(won[0]!.record.data);
      } finally {
        barrier.restore();
      }
    });

    it("service: of two deletes with the same If-Match, exactly one wins and the other fails the precondition", async () => {
      const created = await service.replace(alice, ARTICLES, "r1", { data: {} });
      const barrier = holdReads(r1());
      try {
        const [won, lost] = await settle([1, 2].map(() => service.delete(alice, ARTICLES, "r1", { ifMatch: created.record.lastModified })));
        expect(barrier.reached).to.equal(2);
        expect(won.map((t) => t.id)).to.deep.equal(["r1"]);
        expect(lost).to.have.length(1);
        expect(lost[0]).to.be.instanceOf(PreconditionFailedError);
      } finally {
        barrier.restore();
      }
    });

    it("HTTP: two PUTs with the same If-Match answer 200 and 412, and the winner's data stays", async () => {
      const created = await server.request("PUT", "/v1/articles/r1", { user: ALICE, body: { data: { v: 0 } } });
      const etag = created.headers.get("etag") as string;
      const barrier = holdReads(r1());
      try {
        const answers = await Promise.all(
          [1, 2].map((v) =>
            server.request("PUT", "/v1/articles/r1", { user: ALICE, body: { data: { v } }, headers: { "If-Match": etag } }),
          ),
        );
        expect(barrier.reached).to.equal(2);
        expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 412]);
        const winner = answers.find((a) => a.status === 200);
        expect((await server.request("GET", "/v1/articles/r1", { user: ALICE })).body.data).to.deep.equal(winner?.body.data);
      } finally {
        barrier.restore();
      }
    });

    it("HTTP: two DELETEs with the same If-Match answer 200 and 412", async () => {
      const created = await server.request("PUT", "/v1/articles/r1", { user: ALICE, body: { data: {} } });
      const etag = created.headers.get("etag") as string;
      const barrier = holdReads(r1());
      try {
        const answers = await Promise.all(
          [1, 2].map(() => server.request("DELETE", "/v1/articles/r1", { user: ALICE, headers: { "If-Match": etag } })),
        );
        expect(barrier.reached).to.equal(2);
        expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 412]);
      } finally {
        barrier.restore();
      }
    });

    it("HTTP: two PATCHes without If-Match that read the same version both land (re-read, not lost)", async () => {
      await server.request("PUT", "/v1/articles/r1", { user: ALICE, body: { data: {} } });
      const barrier = holdReads(r1());
      try {
        const answers = await Promise.all(
          ["a", "b"].map((key) => server.request("PATCH", "/v1/articles/r1", { user: ALICE, body: { data: { [key]: true } } })),
        );
        expect(barrier.reached).to.equal(2);
        expect(answers.map((a) => a.status)).to.deep.equal([200, 200]);
        expect((await server.request("GET", "/v1/articles/r1", { user: ALICE })).body.data).to.deep.include({ a: true, b: true });
      } finally {
        barrier.restore();
      }
    });
  });
}
