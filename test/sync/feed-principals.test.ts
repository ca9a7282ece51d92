/**
 * Principal changes reach open streams (issue: a user removed from a group kept receiving the
 * group's records on a feed opened before the removal). A change of a user's principals through
 * the permission backend (the extensions' port or the port itself) moves that user's open streams
 * onto the new principals before it returns, and on another process as soon as its signal
 * arrives: nothing the old principals granted is sent afterwards, and what the change took from
 * the user arrives as `delete` (docs/api.md, "Sync").
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
      const port = open().context.memberships;
      if (!port) throw new Error("a permission backend is configured");
      return port;
    };

    it("a user removed from a group gets the group's records as deleted and nothing of the group's after the removal returned; GET says 403", async () => {
      const server = open().server;
      await extensionPort().add(TEAM, [bob()]);
      await put(server, "g1", TEAM);
      await put(server, "b1", bob());
      const stream = await live(server);
      await put(server, "g2", TEAM);
      await stream.waitFor(1);

      await extensionPort().remove(TEAM, [bob()]);
      expect((await server.request("GET", "/v1/articles/g1", { user: BOB })).status).to.equal(403);
      await put(server, "g3", TEAM);
      await put(server, "b2", bob());
      await stream.waitUntil(() => stream.events.some((e) => e.data.id === "b2"));
      const [created, ...after] = summary(stream);
      expect(created).to.deep.equal(["create", "g2"]);
      // Both lost at one new timestamp (their order within it is free); b1, still Bob's, is not.
      expect(after.slice(0, 2).sort()).to.deep.equal([
        ["delete", "g1"],
        ["delete", "g2"],
      ]);
      expect(after.slice(2)).to.deep.equal([["create", "b2"]]);
      expect(stream.ended).to.equal(false);
    });

    it("a principal removed everywhere, or added to a user, through the port itself moves the streams it concerns onto the new principals", async () => {
      const server = open().server;
      const port = await server.running.container.getAsync(TOKENS.Memberships);
      await port.add(TEAM, [bob()]);
      await put(server, "t1", TEAM);
      const carol = userId("carol:pw");
      const carolStream = await SseClient.open(`${server.url}/v1/articles`, { user: "carol:pw" });
      clients.push(carolStream);
      const removed = await live(server);
      await port.removeEverywhere(TEAM);
      await removed.waitFor(1);
      expect(summary(removed)).to.deep.equal([["delete", "t1"]]);

      await port.add("group:other", [bob()]);
      await put(server, "o1", "group:other");
      await put(server, "t2", TEAM);
      await removed.waitUntil(() => removed.events.length >= 2);
      await put(server, "c1", carol);
      expect((await carolStream.waitFor(1)).map((e) => [e.event, e.data.id])).to.deep.equal([["create", "c1"]]);
      expect(summary(removed)).to.deep.equal([
        ["delete", "t1"],
        ["create", "o1"],
      ]);
      expect(removed.ended).to.equal(false);
      expect(carolStream.ended).to.equal(false);
    });

    if (backend.services.includes("postgresql")) {
      it("reaches the streams of another process on the same database", async () => {
        // Added before the other process listens: its signal must not end the stream being opened there.
        await extensionPort().add(TEAM, [bob()]);
        const other = await startTestServer(await backend.settings());
        try {
          const here = open().server;
          const stream = await live(other);
          await put(other, "p1", TEAM);
          await stream.waitFor(1);
          // Removed through this process; the stream lives on the other one.
          await (await here.running.container.getAsync(TOKENS.Memberships)).remove(TEAM, [bob()]);
          expect((await other.request("GET", "/v1/articles/p1", { user: BOB })).status).to.equal(403);
          await put(other, "p2", TEAM);
          await stream.waitFor(2);
          await new Promise((resolve) => setTimeout(resolve, 200));
          expect(summary(stream)).to.deep.equal([
            ["create", "p1"],
            ["delete", "p1"],
          ]);
          expect(stream.ended).to.equal(false);
        } finally {
          await other.stop();
        }
      });
    }
  });

  describe(`live feed: a reader who may not create loses its last records through a group [${backend.name}]`, function () {
    this.timeout(30_000);
    // Only Alice creates: a listing would refuse Bob once he reads nothing, but his stream is owed the tombstones.
    const open = useSyncServer(backend, { articles_create_principals: userId(ALICE) });

    it("gets them as deleted on its open stream, which goes on", async () => {
      const server = open().server;
      const port = open().context.memberships;
      await port?.add(TEAM, [userId(BOB)]);
      const res = await server.request("PUT", "/v1/articles/only", { user: ALICE, body: { data: {}, permissions: { read: [TEAM] } } });
      expect(res.status).to.equal(201);
      const stream = await SseClient.open(`${server.url}/v1/articles`, { user: BOB });
      try {
        await stream.waitUntil(() => stream.comments.includes("live"));
        await port?.remove(TEAM, [userId(BOB)]);
        expect((await stream.waitFor(1)).map((e) => [e.event, e.data.id])).to.deep.equal([["delete", "only"]]);
        expect(stream.ended).to.equal(false);
      } finally {
        await stream.close();
      }
    });
  });
}
