/**
 * Fail-closed authorization, end to end on every permission backend: a caller whose only grant
 * is a collection ACE (so the decision needs `checkPermission`, or on PostgreSQL for a listing
 * the statement that reads principals and checks together) gets 503 when only that call fails, never 200; a caller with no grant at all gets 503 too. The real adapter keeps answering
 * every other call, so the 503 can only come from the Authorizer's handling of that failure.
 */
import { expect } from "chai";
import { BackendError } from "../../src/domain/errors.js";
import type { PermissionStore } from "../../src/application/ports/permission-store.js";
import type { PrincipalsWithCheck } from "../../src/application/ports/principals-with-check.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { startTestServer, userId, type TestServer } from "../support/http.js";
import { permissionBackendSetups } from "../support/backend-setups.js";
import { requireService } from "../support/services.js";
import { flushStorage } from "../support/storage-reset.js";

const ALICE = "alice:pw";
const BOB = "bob:pw";
const CAROL = "carol:pw";

const BACKENDS = permissionBackendSetups("fail_closed");

/** Requests a collection-level grant must decide: reads and writes of a record, and the list. */
const REQUESTS: Array<{ name: string; method: string; path: string; body?: unknown }> = [
  { name: "GET a record", method: "GET", path: "/v1/articles/r1" },
  { name: "PATCH a record", method: "PATCH", path: "/v1/articles/r1", body: { data: { changed: true } } },
  { name: "PUT a record", method: "PUT", path: "/v1/articles/r1", body: { data: { replaced: true } } },
  { name: "DELETE a record", method: "DELETE", path: "/v1/articles/r1" },
  { name: "GET the collection", method: "GET", path: "/v1/articles" },
];

for (const backend of BACKENDS) {
  describe(`Fail-closed authorization when only checkPermission fails (${backend.name})`, function () {
    if (backend.service) requireService(backend.service);
    this.timeout(20_000);
    let server: TestServer;
    let permissions: PermissionStore;
    let realCheck: PermissionStore["checkPermission"];
    let combined: PrincipalsWithCheck | undefined;
    let realCombined: PrincipalsWithCheck["principalsAndCheck"] | undefined;
    let checks = 0;

    function restoreChecks(): void {
      if (permissions) permissions.checkPermission = realCheck;
      if (combined && realCombined) combined.principalsAndCheck = realCombined;
    }

    before(async () => {
      server = await startTestServer(await backend.settings());
      await (await server.running.container.getAsync(TOKENS.Migrator)).migrate();
      permissions = await server.running.container.getAsync(TOKENS.PermissionStore);
      realCheck = permissions.checkPermission.bind(permissions);
      const { container } = server.running;
      combined = container.isBound(TOKENS.PrincipalsWithCheck) ? await container.getAsync(TOKENS.PrincipalsWithCheck) : undefined;
      realCombined = combined?.principalsAndCheck.bind(combined);
    });
    beforeEach(async () => {
      await flushStorage(server.running.container);
      await permissions.flush();
      restoreChecks();
      checks = 0;
      await server.request("PUT", "/v1/articles/r1", { user: ALICE, body: { data: { original: true } } });
      // Bob may read and write every article through the collection's ACEs only.
      await permissions.replaceObjectPermissions("/articles", { read: [userId(BOB)], write: [userId(BOB)] });
    });
    after(async () => {
      restoreChecks();
      await permissions?.flush();
      await server?.stop();
    });

    /** From now on only the permission checks fail, as the real adapter would on a lost connection. */
    function failCheckPermission(): void {
      const fail = () => {
        checks += 1;
        return Promise.reject(new BackendError("permission"));
      };
      permissions.checkPermission = fail;
      if (combined) combined.principalsAndCheck = fail;
    }

    for (const request of REQUESTS) {
      it(`${request.name}: 200 with the backend up, 503 (not 200) for the collection grantee when checkPermission fails`, async () => {
        const control = await server.request("GET", request.path, { user: BOB });
        expect(control.status, "control: the collection ACE grants Bob").to.equal(200);
        failCheckPermission();
        const answer = await server.request(request.method, request.path, { user: BOB, body: request.body });
        expect(answer.status).to.equal(503);
        expect(answer.body.details).to.deep.equal({ backend: "permission" });
        expect(answer.headers.get("retry-after")).to.match(/^\d+$/);
        expect(checks).to.be.greaterThan(0);
        restoreChecks();
        const after = await server.request("GET", "/v1/articles/r1", { user: ALICE });
        expect(after.status, "the refused write left the record alone").to.equal(200);
        expect(after.body.data).to.deep.include({ original: true });
      });
    }

    it("a caller with no grant at all gets 503, not 200, on a record and on the list", async () => {
      failCheckPermission();
      for (const path of ["/v1/articles/r1", "/v1/articles"]) {
        const answer = await server.request("GET", path, { user: CAROL });
        expect(answer.status, path).to.equal(503);
      }
    });
  });
}
