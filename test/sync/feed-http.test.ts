/**
 * The live change feed over HTTP (Server-Sent Events) on every backend combination: same
 * authentication and authorization as the listing, replay with `_since` or `Last-Event-ID` then
 * live without gap or duplicate, filters on records only, lost and regained access.
 */
import { expect } from "chai";
import { userId } from "../support/http.js";
import { SYNC_BACKENDS, useSyncServer } from "./backends.js";
import { SseClient, type SseEvent } from "./sse-client.js";

const ALICE = "alice:pw";
const BOB = "bob:pw";

function summary(events: readonly SseEvent[]): [string | undefined, unknown][] {
  return events.map((e) => [e.event, e.data.id]);
}

/** Event ids are the entries' timestamps: strictly increasing, equal to `last_modified`. */
function expectOrdered(events: readonly SseEvent[]): void {
  const ids = events.map((e) => Number(e.id));
  for (const [i, e] of events.entries()) expect(ids[i]).to.equal(e.data.last_modified);
  for (let i = 1; i < ids.length; i += 1) expect(ids[i], JSON.stringify(ids)).to.be.greaterThan(ids[i - 1]!);
}

for (const backend of SYNC_BACKENDS) {
  describe(`live feed over HTTP [${backend.name}]`, function () {
    this.timeout(20_000);
    const open = useSyncServer(backend);
    const server = () => open().server;
    const clients: SseClient[] = [];
    const subscribe = async (user: string | undefined, query = "", headers: Record<string, string> = {}) => {
      const client = await SseClient.open(`${server().url}/v1/articles${query}`, { user, headers });
      clients.push(client);
      return client;
    };
    const write = async (method: string, path: string, body?: unknown, user = ALICE) => {
      const res = await server().request(method, path, { user, body });
      expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 201]);
      return res.body as { data: { last_modified: number } };
    };
    afterEach(async () => {
      for (const client of clients.splice(0)) await client.close();
    });

    it("answers 401 to anonymous callers and 400 to bad filters, as the listing does, in JSON", async () => {
      const anonymous = await subscribe(undefined);
      expect(anonymous.status).to.equal(401);
      expect(anonymous.headers.get("content-type")).to.match(/application\/json/);
      const bad = await subscribe(BOB, "?_since=abc");
      expect(bad.status).to.equal(400);
      const badId = await subscribe(BOB, "", { "Last-Event-ID": "x" });
      expect(badId.status).to.equal(400);
    });

    it("replays after _since, then streams create, update and delete live, in timestamp order", async () => {
      const first = await write("PUT", "/v1/articles/f1", { data: { n: 1 }, permissions: { read: [userId(BOB)] } });
      await write("PUT", "/v1/articles/f2", { data: { n: 2 }, permissions: { read: [userId(BOB)] } });
      const bob = await subscribe(BOB, `?_since=${first.data.last_modified}`);
      expect(bob.status).to.equal(200);
      expect(bob.headers.get("content-type")).to.match(/^text\/event-stream/);
      await bob.waitFor(1);
      // Each change is awaited before the next: versions written in a burst may arrive merged
      // into the newest one, as with a `_since` sync.
      await write("PUT", "/v1/articles/f3", { data: { n: 3 }, permissions: { read: [userId(BOB)] } });
      await bob.waitFor(2);
      await write("PATCH", "/v1/articles/f3", { data: { n: 4 } });
      await bob.waitFor(3);
      await write("DELETE", "/v1/articles/f2");
      await write("PUT", "/v1/articles/hidden", { data: {} });
      const events = await bob.waitFor(4);
      // f2's version is the one its creation wrote: `create`, replayed or not.
      expect(summary(events)).to.deep.equal([
        ["create", "f2"],
        ["create", "f3"],
        ["update", "f3"],
        ["delete", "f2"],
      ]);
      expect(events[2]!.data).to.include({ n: 4 });
      expect(Object.keys(events[3]!.data).sort()).to.deep.equal(["deleted", "id", "last_modified"]);
      expectOrdered(events);
      // The hidden record never arrives, nor does anything twice.
      await write("PUT", "/v1/articles/f5", { data: {}, permissions: { read: [userId(BOB)] } });
      expect(summary(await bob.waitFor(5)).slice(4)).to.deep.equal([["create", "f5"]]);
      expect(bob.events).to.have.length(5);
    });

    it("resumes after Last-Event-ID without gap or duplicate, and starts from now without either", async () => {
      const live = await subscribe(BOB);
      await write("PUT", "/v1/articles/g1", { data: {}, permissions: { read: [userId(BOB)] } });
      const [created] = await live.waitFor(1);
      await live.close();
      await write("PUT", "/v1/articles/g2", { data: {}, permissions: { read: [userId(BOB)] } });
      await write("PATCH", "/v1/articles/g1", { data: { v: 2 } });
      const resumed = await subscribe(BOB, "?_since=0", { "Last-Event-ID": String(created!.id) });
      expect(summary(await resumed.waitFor(2))).to.deep.equal([
        ["create", "g2"],
        ["update", "g1"],
      ]);
      expectOrdered(resumed.events);
    });

    it("applies the listing's filters to records, and lets every deletion through", async () => {
      await write("PUT", "/v1/articles/h1", { data: { kind: "a" }, permissions: { read: [userId(BOB)] } });
      await write("PUT", "/v1/articles/h2", { data: { kind: "b" }, permissions: { read: [userId(BOB)] } });
      const bob = await subscribe(BOB, "?kind=a");
      await write("PATCH", "/v1/articles/h2", { data: { kind: "b", v: 2 } });
      await write("PATCH", "/v1/articles/h1", { data: { kind: "a", v: 2 } });
      await write("DELETE", "/v1/articles/h2");
      expect(summary(await bob.waitFor(2))).to.deep.equal([
        ["update", "h1"],
        ["delete", "h2"],
      ]);
    });

    it("sends lost access as delete and regained access as update", async () => {
      await write("PUT", "/v1/articles/k1", { data: { n: 1 }, permissions: { read: [userId(BOB)] } });
      const bob = await subscribe(BOB);
      await write("PATCH", "/v1/articles/k1", { permissions: { read: [] } });
      await bob.waitFor(1);
      await write("PATCH", "/v1/articles/k1", { permissions: { read: [userId(BOB)] } });
      const events = await bob.waitFor(2);
      expect(summary(events)).to.deep.equal([
        ["delete", "k1"],
        ["update", "k1"],
      ]);
      expect(events[1]!.data).to.include({ n: 1 });
      expectOrdered(events);
      // Through the extensions' ACL changes too.
      await open().context.acls?.revoke("articles", "k1", "read", userId(BOB));
      expect(summary(await bob.waitFor(3)).slice(2)).to.deep.equal([["delete", "k1"]]);
    });

    it("once live, sends lost access as delete and regained access as update through the scope's shared reads", async () => {
      const created = await write("PUT", "/v1/articles/m1", { data: { n: 1 }, permissions: { read: [userId(BOB)] } });
      const bob = await subscribe(BOB);
      // The replay is over: from here on only the shared per-burst reads deliver to Bob.
      await bob.waitUntil(() => bob.comments.includes("live"));
      await write("PUT", "/v1/articles/m2", { data: { n: 2 }, permissions: { read: [userId(BOB)] } });
      expect(summary(await bob.waitFor(1))).to.deep.equal([["create", "m2"]]);
      await write("PATCH", "/v1/articles/m1", { permissions: { read: [] } });
      const [lost] = (await bob.waitFor(2)).slice(1);
      // The tombstone's timestamp is the loss's (recorded with the ACL change), not the record's.
      expect([lost!.event, lost!.data.id, lost!.data.deleted]).to.deep.equal(["delete", "m1", true]);
      expect(Object.keys(lost!.data).sort()).to.deep.equal(["deleted", "id", "last_modified"]);
      const granted = await write("PATCH", "/v1/articles/m1", { permissions: { read: [userId(BOB)] } });
      const [regained] = (await bob.waitFor(3)).slice(2);
      expect([regained!.event, regained!.data.id, regained!.data.n]).to.deep.equal(["update", "m1", 1]);
      expect(regained!.data.last_modified).to.equal(granted.data.last_modified);
      expect(created.data.last_modified).to.be.lessThan(granted.data.last_modified);
      expectOrdered(bob.events);
      expect(bob.events).to.have.length(3);
    });

    // Last: it stops the suite's server.
    it("ends every stream cleanly when the server stops", async () => {
      const bob = await subscribe(BOB);
      await write("PUT", "/v1/articles/s1", { data: {}, permissions: { read: [userId(BOB)] } });
      await bob.waitFor(1);
      await server().running.stop();
      await bob.waitUntil(() => bob.ended);
      expect(bob.endedCleanly).to.equal(true);
    });
  });
}
