/**
 * With the grants in Redis, a listing's bound (the collection timestamp, its ETag and the next
 * `_since`) and the ids the caller may read come from two backends. A create shared with the
 * reader is put exactly between the two reads, in whichever order the service makes them: the
 * reader syncing with `_since` must receive it on this page or the next, never miss it.
 */
import { expect } from "chai";
import type { PermissionStore } from "../../src/application/ports/permission-store.js";
import type { RecordStore } from "../../src/application/ports/record-store.js";
import type { RecordService } from "../../src/application/record-service.js";
import { authenticatedRequester, noGroups } from "../../src/application/requester.js";
import type { ResourceDefinition } from "../../src/application/resources.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { permissionBackendSetups, postgresWithRedisSetup, type BackendSetup } from "../support/backend-setups.js";
import { startTestServer, userId, type TestServer } from "../support/http.js";
import { requireService } from "../support/services.js";

const ARTICLES: ResourceDefinition = {
  name: "articles",
  kind: "shareable",
  permissions: ["read", "write"],
  settingsPrincipals: { create: ["system.Authenticated"] },
};
const BOB = userId("bob:pw");
/** How long the timestamp read waits for a grants read that the service makes after it (then never comes first). */
const GRANTS_FIRST_WAIT_MS = 300;

const BACKENDS: Array<BackendSetup & { readonly alsoNeeds?: "postgresql" }> = [
  ...permissionBackendSetups("sincegrants").filter((setup) => setup.service === "redis"),
  postgresWithRedisSetup("sincegrants"),
];

for (const backend of BACKENDS) {
  describe(`a _since sync racing a create shared with the reader (${backend.name})`, function () {
    if (backend.service) requireService(backend.service);
    if (backend.alsoNeeds) requireService(backend.alsoNeeds);
    this.timeout(20_000);
    let server: TestServer;
    let records: RecordStore;
    let permissions: PermissionStore;
    let service: RecordService;
    const alice = authenticatedRequester(userId("alice:pw"), noGroups);
    const bob = authenticatedRequester(BOB, noGroups);
    const restore: Array<() => void> = [];

    before(async () => {
      server = await startTestServer(await backend.settings());
      const { container } = server.running;
      await (await container.getAsync(TOKENS.Migrator)).migrate();
      records = await container.getAsync(TOKENS.RecordStore);
      permissions = await container.getAsync(TOKENS.PermissionStore);
      service = await container.getAsync(TOKENS.RecordService);
    });
    beforeEach(async () => {
      await (await server.running.container.getAsync(TOKENS.AccessJournal)).flush();
      await records.flush();
      await permissions.flush();
    });
    afterEach(() => restore.splice(0).forEach((undo) => undo()));
    after(async () => {
      await permissions?.flush();
      await server?.stop();
    });

    /**
     * Runs `create` once, between the next timestamp read and the next grants read, whichever
     * comes first. The timestamp read waits for a grants read in flight, so that a service
     * reading both at once is seen reading the grants first.
     */
    function createBetweenReads(create: () => Promise<void>): { readonly created: boolean } {
      const state = { created: false, timestampRead: false, grantsRead: false };
      let grantsDone!: () => void;
      const grantsSettled = new Promise<void>((resolve) => (grantsDone = resolve));
      const createOnce = async () => {
        if (state.created) return;
        state.created = true;
        await create();
      };
      const timestamp = records.collectionTimestamp.bind(records);
      let timestampHooked = false;
      records.collectionTimestamp = async (scope) => {
        if (timestampHooked || scope.collection !== "articles") return timestamp(scope);
        timestampHooked = true;
        await Promise.race([grantsSettled, new Promise((resolve) => setTimeout(resolve, GRANTS_FIRST_WAIT_MS))]);
        if (state.grantsRead) await createOnce();
        const result = await timestamp(scope);
        state.timestampRead = true;
        return result;
      };
      const grants = permissions.principalsAccessibleObjects.bind(permissions);
      let grantsHooked = false;
      permissions.principalsAccessibleObjects = async (...args) => {
        if (grantsHooked || !args[0].includes(BOB)) return grants(...args);
        grantsHooked = true;
        if (state.timestampRead) await createOnce();
        const result = await grants(...args);
        state.grantsRead = true;
        grantsDone();
        return result;
      };
      restore.push(
        () => (records.collectionTimestamp = timestamp),
        () => (permissions.principalsAccessibleObjects = grants),
      );
      return state;
    }

    const page = { sort: [], limit: 100, includeDeleted: true };

    it("receives the record on the page or with the next _since, never neither", async () => {
      await service.replace(alice, ARTICLES, "before", { data: {}, permissions: { read: [BOB] } });
      const race = createBetweenReads(async () => {
        await service.replace(alice, ARTICLES, "raced", { data: {}, permissions: { read: [BOB] } });
      });

      const first = await service.list(bob, ARTICLES, { ...page, filters: [] });
      const next = await service.list(bob, ARTICLES, {
        ...page,
        filters: [{ field: "last_modified", operator: "gt", value: first.timestamp }],
      });

      expect(race.created).to.equal(true);
      const synced = [...first.entries, ...next.entries].map((entry) => entry.id);
      expect(synced).to.include.members(["before", "raced"]);
    });
  });
}
