/**
 * The live feed decides on a snapshot (issue: the feed delivered versions written while the
 * subscriber had no access): each version reaches a subscriber only if the ACL written with that
 * version lets them read it. The race is forced: the scope's shared read of the changes returns
 * the hidden version, and before the feed reads anything else Alice makes the record visible again
 * (new data, Bob re-added, in one PATCH). Bob must get the loss as a delete and the visible
 * version as an update, never the hidden one, on every backend set.
 */
import { expect } from "chai";
import { joinedSharedRecords } from "../support/joined-shared-records.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { userId } from "../support/http.js";
import { holdSharedRead } from "../support/read-barrier.js";
import { SYNC_BACKENDS, useSyncServer } from "./backends.js";
import { SseClient } from "./sse-client.js";

const ALICE = "alice:pw";
const BOB = "bob:pw";

for (const backend of SYNC_BACKENDS) {
  describe(`live feed snapshot: a version judged by its own ACL [${backend.name}]`, function () {
    this.timeout(20_000);
    const open = useSyncServer(backend);
    const clients: SseClient[] = [];
    afterEach(async () => {
      for (const client of clients.splice(0)) await client.close();
    });
    const write = async (method: string, path: string, body: unknown) => {
      const res = await open().server.request(method, path, { user: ALICE, body });
      expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 201]);
      return (res.body as { data: { last_modified: number } }).data.last_modified;
    };
    const live = async (query: string) => {
      const client = await SseClient.open(`${open().server.url}/v1/articles${query}`, { user: BOB });
      clients.push(client);
      expect(client.status).to.equal(200);
      await client.waitUntil(() => client.comments.includes("live"));
      return client;
    };

    it("never sends Bob the version written while he was removed, even when the ACL read comes after the re-share", async () => {
      const { container } = open().server.running;
      const stores: object[] = [await container.getAsync(TOKENS.RecordStore)];
      const joined = await joinedSharedRecords(container);
      if (joined) stores.push(joined);
      const bob = userId(BOB);
      await write("PUT", "/v1/articles/x", { data: { state: "visible", kind: "a" }, permissions: { read: [bob] } });
      const plain = await live("");
      const filtered = await live("?kind=a");

      let hiddenAt = 0;
      // Matched by its data: the feed may read the version before the PATCH's answer tells its timestamp.
      const hidden = (e: { id: string }) => e.id === "x" && (e as { data?: { state?: unknown } }).data?.state === "hidden";
      const held = holdSharedRead(stores, (entries) => entries.some(hidden));
      try {
        hiddenAt = await write("PATCH", "/v1/articles/x", { data: { state: "hidden" }, permissions: { read: [] } });
        await held.reached;
        // The feed holds the hidden version; the re-share lands before it reads the ACL.
        const visibleAt = await write("PATCH", "/v1/articles/x", { data: { state: "visible again" }, permissions: { read: [bob] } });
        held.release();
        for (const client of [plain, filtered]) {
          await client.waitUntil(() => client.events.some((e) => e.data.last_modified === visibleAt));
          const seen = client.events.map((e) => [e.event, e.data.id, e.data.state ?? null, e.data.last_modified]);
          expect(
            seen.filter(([, , state]) => state === "hidden"),
            JSON.stringify(seen),
          ).to.deep.equal([]);
          // At the hidden write's timestamp Bob gets only his loss of access (one timestamp per write).
          expect(
            client.events.filter((e) => e.id === String(hiddenAt)).map((e) => e.event),
            JSON.stringify(seen),
          ).to.deep.equal(["delete"]);
          // The loss as a delete, then the new version.
          expect(seen.map(([event, id, state]) => [event, id, state])).to.deep.equal([
            ["delete", "x", null],
            ["update", "x", "visible again"],
          ]);
          expect(seen[1]![3]).to.equal(visibleAt);
        }
      } finally {
        held.release();
      }
    });
  });
}
