/**
 * A GET decides on one version of a record and the ACL of that version (issue: un-share, write a
 * secret, then clean it and re-share while a reader's GET is in flight). The clean-and-re-share
 * write is put exactly between the reader's reads: after the one statement that reads record and
 * ACL together (PostgreSQL), or between the record read and the ACL read where they live in two
 * backends (memory, Redis). The reader may get 403 or the clean version, never the secret.
 */
import { expect } from "chai";
import { ForbiddenError } from "../../src/domain/errors.js";
import type { PermissionStore } from "../../src/application/ports/permission-store.js";
import type { RecordStore } from "../../src/application/ports/record-store.js";
import type { SharedRecords } from "../../src/application/ports/shared-records.js";
import type { RecordService } from "../../src/application/record-service.js";
import { authenticatedRequester, noGroups, type Requester } from "../../src/application/requester.js";
import type { ResourceDefinition } from "../../src/application/resources.js";
import { joinedSharedRecords } from "../support/joined-shared-records.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { permissionBackendSetups, postgresWithRedisSetup, type BackendSetup } from "../support/backend-setups.js";
import { startTestServer, userId, type TestServer } from "../support/http.js";
import { hookRead, type ReadHook } from "../support/read-hook.js";
import { requireService } from "../support/services.js";

const ARTICLES: ResourceDefinition = {
  name: "articles",
  kind: "shareable",
  permissions: ["read", "write"],
  settingsPrincipals: { create: ["system.Authenticated"] },
};
const BOB = userId("bob:pw");

const BACKENDS: Array<BackendSetup & { readonly alsoNeeds?: "postgresql" }> = [
  ...permissionBackendSetups("readversion"),
  postgresWithRedisSetup("readversion"),
];

for (const backend of BACKENDS) {
  describe(`a GET racing a re-share (${backend.name})`, function () {
    if (backend.service) requireService(backend.service);
    if (backend.alsoNeeds) requireService(backend.alsoNeeds);
    this.timeout(20_000);
    let server: TestServer;
    let records: RecordStore;
    let permissions: PermissionStore;
    let together: SharedRecords | undefined;
    let service: RecordService;
    const alice: Requester = authenticatedRequester(userId("alice:pw"), noGroups);
    const bob: Requester = authenticatedRequester(BOB, noGroups);
    const hooks: ReadHook[] = [];

    before(async () => {
      server = await startTestServer(await backend.settings());
      const { container } = server.running;
      await (await container.getAsync(TOKENS.Migrator)).migrate();
      records = await container.getAsync(TOKENS.RecordStore);
      permissions = await container.getAsync(TOKENS.PermissionStore);
      together = await joinedSharedRecords(container);
      service = await container.getAsync(TOKENS.RecordService);
    });
    beforeEach(async () => {
      await (await server.running.container.getAsync(TOKENS.AccessJournal)).flush();
      await records.flush();
      await permissions.flush();
    });
    afterEach(() => hooks.splice(0).forEach((hook) => hook.restore()));
    after(async () => {
      await permissions?.flush();
      await server?.stop();
    });

    /** Bob's read of r1, with `write` landing between its reads of the record and of its ACL. */
    function racingRead(write: () => Promise<void>): Promise<unknown> {
      const isR1 = (args: unknown[]) => args[1] === "r1";
      if (together) {
        hooks.push(hookRead(together, "read", isR1, "after", write));
      } else {
        const recordRead = hookRead(records, "get", isR1, "after", () => Promise.resolve());
        const aclOfR1 = (args: unknown[]) => args[0] === "/articles/r1";
        hooks.push(
          recordRead,
          hookRead(permissions, "objectPermissions", aclOfR1, "before", async () => (await recordRead.read, write())),
        );
      }
      return service.get(bob, ARTICLES, "r1").then(
        (result) => result.record.data,
        (error: unknown) => error,
      );
    }

    it("never answers the version written while the reader was not in the ACL", async () => {
      await service.replace(alice, ARTICLES, "r1", { data: { text: "public" }, permissions: { read: [BOB] } });
      await service.update(alice, ARTICLES, "r1", { permissions: { read: [] }, merge: false });
      await service.update(alice, ARTICLES, "r1", { data: { text: "secret" }, merge: false });

      const seen = await racingRead(async () => {
        await service.update(alice, ARTICLES, "r1", { data: { text: "clean" }, permissions: { read: [BOB] }, merge: false });
      });

      expect(hooks.every((hook) => hook.fired)).to.equal(true);
      if (seen instanceof ForbiddenError) return;
      expect(seen).to.deep.equal({ text: "clean" });
    });

    it("never answers a secret written together with the reader's removal, read between the record and the ACL write", async () => {
      await service.replace(alice, ARTICLES, "r1", { data: { text: "public" }, permissions: { read: [BOB] } });
      // Bob reads right after the record write returns, before its ACL is written. His read is
      // chained here, outside the writer's transaction (whose context a call made from the hook would share).
      let recordWritten!: () => void;
      const written = new Promise<void>((resolve) => (recordWritten = resolve));
      const bobRead = written
        .then(() => service.get(bob, ARTICLES, "r1"))
        .then(
          (result) => result.record.data,
          (error: unknown) => error,
        );
      const readMidWrite = async () => {
        recordWritten();
        await bobRead;
      };
      hooks.push(hookRead(records, "update", (args) => args[1] === "r1", "after", readMidWrite));

      await service.update(alice, ARTICLES, "r1", { data: { text: "secret" }, permissions: { read: [] }, merge: false });

      expect(hooks.every((hook) => hook.fired)).to.equal(true);
      const seen = await bobRead;
      if (seen instanceof ForbiddenError) return;
      expect(seen).to.deep.equal({ text: "public" });
    });

    it("still answers a reader whose grant did not change while a write raced the read", async () => {
      await service.replace(alice, ARTICLES, "r1", { data: { text: "first" }, permissions: { read: [BOB] } });

      const seen = await racingRead(async () => {
        await service.update(alice, ARTICLES, "r1", { data: { text: "second" }, merge: false });
      });

      expect(hooks.every((hook) => hook.fired)).to.equal(true);
      expect(seen).to.not.be.instanceOf(Error);
      expect(["first", "second"]).to.include((seen as { text: string }).text);
    });
  });
}
