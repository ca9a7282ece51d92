/**
 * Principal changes reach open streams (issue: a user removed from a group kept receiving the
 * group's records on a feed opened before the removal). A change of a user's principals through
 * the permission backend (the extensions' port or the port itself) ends that user's open streams
 * with `event: resync` before it returns, and on another process as soon as its signal arrives:
 * nothing the old principals granted is sent afterwards.
 */
import { expect } from "chai";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { startTestServer, userId, type TestServer } from "../support/http.js";
import { SYNC_BACKENDS, useSyncServer } from "./backends.js";
import { SseClient } from "./sse-client.js";

const ALICE = "alice:pw";
const BOB = "bob:pw";
const TEAM = "group:team";

function summary(client: SseClient): [string | undefined, unknown][] {
  return client.events.map((e) => [e.event, e.data.id]);
}

for (const backend of SYNC_BACKENDS) {
  describe(`live feed: principal changes reach open streams [${backend.name}]`, function () {
    this.timeout(30_000);
    const open = useSyncServer(backend);
    const clients: SseClient[] = [];
    afterEach(async () => {
      for (const client of clients.splice(0)) await client.close();
    });
    const bob = () => userId(BOB);
    const put = async (server: TestServer, id: string, reader: string) => {
      const res = await server.request("PUT", `/v1/articles/${id}`, {
        user: ALICE,
        body: { data: { id }, permissions: { read: [reader] } },
      });
      expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 201]);
    };
    const live = async (server: TestServer) => {
      const client = await SseClient.open(`${server.url}/v1/articles`, { user: BOB });
      clients.push(client);
      expect(client.status).to.equal(200);
      await client.waitUntil(() => client.comments.includes("live"));
      return client;
    };
    const extensionPort = () => {
      const port = open().context.permissions;
      if (!port) throw new Error("a permission backend is configured");
      return port;
    };

    it("a user removed from a group gets resync at once and nothing of the group's after the removal returned; GET says 403", async () => {
      const server = open().server;
      await extensionPort().addUserPrincipal(bob(), TEAM);
      await put(server, "g1", TEAM);
      const stream = await live(server);
      await put(server, "g2", TEAM);
      await stream.waitFor(1);

      await extensionPort().removeUserPrincipal(bob(), TEAM);
      expect((await server.request("GET", "/v1/articles/g1", { user: BOB })).status).to.equal(403);
      await put(server, "g3", TEAM);
      await stream.waitUntil(() => stream.ended);
      expect(summary(stream)).to.deep.equal([
        ["create", "g2"],
        ["resync", undefined],
      ]);
      expect(stream.events[1]!.id).to.equal(undefined);
      expect(stream.endedCleanly).to.equal(true);
    });

    it("a principal removed everywhere, or added to a user, through the port itself ends the streams it concerns, not the others", async () => {
      const server = open().server;
      const port = await server.running.container.getAsync(TOKENS.PermissionStore);
      await port.addUserPrincipal(bob(), TEAM);
      const carol = userId("carol:pw");
      const carolStream = await SseClient.open(`${server.url}/v1/articles`, { user: "carol:pw" });
      clients.push(carolStream);
      const removed = await live(server);
      await port.removePrincipal(TEAM);
      await removed.waitUntil(() => removed.ended);
      expect(summary(removed)).to.deep.equal([["resync", undefined]]);

      const added = await live(server);
      await port.addUserPrincipal(bob(), "group:other");
      await added.waitUntil(() => added.ended);
      expect(summary(added)).to.deep.equal([["resync", undefined]]);
      // Carol's principals did not change: her stream goes on.
      await put(server, "c1", carol);
      expect((await carolStream.waitFor(1)).map((e) => [e.event, e.data.id])).to.deep.equal([["create", "c1"]]);
      expect(carolStream.ended).to.equal(false);
    });

    if (backend.services.includes("postgresql")) {
      it("reaches the streams of another process on the same database", async () => {
        // Added before the other process listens: its signal must not end the stream being opened there.
        await extensionPort().addUserPrincipal(bob(), TEAM);
        const other = await startTestServer(await backend.settings());
        try {
          const here = open().server;
          const stream = await live(other);
          await put(other, "p1", TEAM);
          await stream.waitFor(1);
          // Removed through this process; the stream lives on the other one.
          await (await here.running.container.getAsync(TOKENS.PermissionStore)).removeUserPrincipal(bob(), TEAM);
          expect((await other.request("GET", "/v1/articles/p1", { user: BOB })).status).to.equal(403);
          await stream.waitUntil(() => stream.ended);
          await put(other, "p2", TEAM);
          expect(summary(stream)).to.deep.equal([
            ["create", "p1"],
            ["resync", undefined],
          ]);
        } finally {
          await other.stop();
        }
      });
    }
  });
}
