/**
 * Kinto's tree on the one engine, on memory, PostgreSQL and PostgreSQL + Redis permissions: what
 * moves access anywhere up the tree reaches `_since` as it does for flat resources (a bucket's
 * group losing a member: tombstones; an ACL edit of a collection or bucket: a 410 resync for the
 * principals it moved, none for who still reads through the bucket), a plural delete empties
 * what it deletes and a refused one deletes nothing, and a tree collection has its live feed.
 */
import { expect } from "chai";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { permissionBackendSetups, postgresWithRedisSetup, type BackendSetup } from "../support/backend-setups.js";
import { startTestServer, userId, type TestServer } from "../support/http.js";
import { requireService } from "../support/services.js";
import { SseClient } from "../sync/sse-client.js";

const ALICE = "alice:pw";
const BOB = "bob:pw";
const SETUPS: BackendSetup[] = [
  ...permissionBackendSetups("kinto_tree_sync").filter((s) => s.name !== "Redis permissions"),
  postgresWithRedisSetup("kinto_tree_sync"),
];

interface Entry {
  readonly id: string;
  readonly deleted?: boolean;
}

for (const setup of SETUPS) {
  describe(`Kinto's tree: sync, deletes and the feed [${setup.name}]`, function () {
    if (setup.service) requireService(setup.service);
    if ("alsoNeeds" in setup) requireService(setup.alsoNeeds as "postgresql");
    this.timeout(30_000);
    let server: TestServer;

    before(async () => {
      server = await startTestServer(await setup.settings());
      await (await server.running.container.getAsync(TOKENS.Migrator)).migrate();
    });
    beforeEach(async () => {
      await (await server.running.container.getAsync(TOKENS.RecordStore)).flush();
      await (await server.running.container.getAsync(TOKENS.PermissionStore)).flush();
    });
    after(async () => {
      await (await server?.running.container.getAsync(TOKENS.PermissionStore))?.flush();
      await server?.stop();
    });

    async function write(method: string, path: string, body: unknown = {}, user = ALICE) {
      const res = await server.request(method, `/v1${path}`, { user, body });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).to.be.oneOf([200, 201]);
      return res;
    }
    const RECORDS = "/buckets/b/collections/c/records";
    async function listing(user: string, query = "") {
      const res = await server.request("GET", `/v1${RECORDS}${query}`, { user });
      return {
        status: res.status,
        entries: (res.body as { data?: Entry[] }).data ?? [],
        etag: res.headers.get("etag")?.replaceAll('"', "") ?? "",
      };
    }
    async function tree(collectionAcl: object = {}) {
      await write("PUT", "/buckets/b");
      await write("PUT", "/buckets/b/collections/c", { permissions: collectionAcl });
    }

    it("a bucket's group losing a member gives them a tombstone for what it shared", async () => {
      await tree();
      await write("PUT", "/buckets/b/groups/readers", { data: { members: [userId(BOB)] } });
      await write("PUT", `${RECORDS}/r1`, { data: { n: 1 }, permissions: { read: ["/buckets/b/groups/readers"] } });
      const before = await listing(BOB);
      expect(before.entries.map((e) => e.id)).to.deep.equal(["r1"]);
      await write("PATCH", "/buckets/b/groups/readers", { data: { members: [] } });
      const after = await listing(BOB, `?_since=${before.etag}`);
      expect(after.status).to.equal(200);
      expect(after.entries).to.have.length(1);
      expect(after.entries[0]).to.include({ id: "r1", deleted: true });
    });

    it("a group named in the collection's ACL losing a member: their older syncs answer 410", async () => {
      await write("PUT", "/buckets/b");
      await write("PUT", "/buckets/b/groups/readers", { data: { members: [userId(BOB)] } });
      await write("PUT", "/buckets/b/collections/c", { permissions: { read: ["/buckets/b/groups/readers"] } });
      await write("PUT", `${RECORDS}/r1`, { data: { n: 1 } });
      const before = await listing(BOB);
      expect(before.entries.map((e) => e.id)).to.deep.equal(["r1"]);
      await write("PATCH", "/buckets/b/groups/readers", { data: { members: [] } });
      expect((await listing(BOB, `?_since=${before.etag}`)).status).to.equal(410);
    });

    it("an ACL edit of the collection: 410 for the principal it took read from, none for who reads through the bucket", async () => {
      await write("PUT", "/buckets/b", { permissions: { read: [userId("carol:pw")] } });
      await write("PUT", "/buckets/b/collections/c", { permissions: { read: [userId(BOB), userId("carol:pw")] } });
      await write("PUT", `${RECORDS}/r1`, { data: { n: 1 } });
      const bob = await listing(BOB);
      const carol = await listing("carol:pw");
      expect([bob.entries.length, carol.entries.length]).to.deep.equal([1, 1]);
      await write("PATCH", "/buckets/b/collections/c", { permissions: { read: [] } });
      expect((await listing(BOB, `?_since=${bob.etag}`)).status).to.equal(410);
      const still = await listing("carol:pw", `?_since=${carol.etag}`);
      expect(still.status).to.equal(200);
      expect(still.entries).to.deep.equal([]);
    });

    it("DELETE /buckets deletes what the caller may, contents first; a refused bucket delete deletes nothing", async () => {
      await tree({ write: [userId(BOB)] });
      await write("PUT", `${RECORDS}/r1`, { data: { n: 1 } });
      await write("PUT", "/buckets/bobs", {}, BOB);
      await write("PUT", "/buckets/bobs/collections/x", {}, BOB);
      // Bob may write alice's collection, not her bucket: it stays, with its contents.
      const refused = await server.request("DELETE", "/v1/buckets/b", { user: BOB });
      expect(refused.status).to.equal(403);
      const deleted = await server.request("DELETE", "/v1/buckets", { user: BOB });
      expect(deleted.status).to.equal(200);
      expect((deleted.body as { data: Entry[] }).data.map((e) => e.id)).to.deep.equal(["bobs"]);
      expect((await listing(ALICE)).entries.map((e) => e.id)).to.deep.equal(["r1"]);
      expect((await server.request("GET", "/v1/buckets/bobs/collections/x", { user: BOB })).status).to.equal(403);
      await write("PUT", "/buckets/bobs", {}, BOB);
      const collections = await server.request("GET", "/v1/buckets/bobs/collections", { user: BOB });
      expect((collections.body as { data: Entry[] }).data).to.deep.equal([]);
    });

    it("a collection created where a racing write left a record (its collection deleted meanwhile) starts empty", async () => {
      await write("PUT", "/buckets/b");
      // What a record create racing the deletion of its collection leaves: a record with no collection.
      const store = await server.running.container.getAsync(TOKENS.RecordStore);
      await store.create({ collection: RECORDS.slice(1), parentId: "" }, "leftover", { secret: true });
      await write("PUT", "/buckets/b/collections/c");
      const listed = await listing(ALICE);
      expect(listed.entries.filter((e) => !e.deleted)).to.deep.equal([]);
    });

    it("a burst of first requests to one user's default bucket creates it once, and answers each", async () => {
      const statuses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          i % 2 === 0
            ? server.request("GET", "/v1/buckets/default/collections/tasks/records", { user: BOB }).then((r) => r.status)
            : server
                .request("POST", "/v1/buckets/default/collections/tasks/records", { user: BOB, body: { data: { i } } })
                .then((r) => r.status),
        ),
      );
      expect(statuses.filter((s) => s === 200)).to.have.length(10);
      expect(statuses.filter((s) => s === 201)).to.have.length(10);
      const buckets = await server.request("GET", "/v1/buckets", { user: BOB });
      expect((buckets.body as { data: Entry[] }).data).to.have.length(1);
      const records = await server.request("GET", "/v1/buckets/default/collections/tasks/records", { user: BOB });
      expect((records.body as { data: Entry[] }).data).to.have.length(10);
    });

    it("a tree collection's records URL is its live feed", async () => {
      await tree({ read: [userId(BOB)] });
      const stream = await SseClient.open(`${server.url}/v1${RECORDS}`, { user: BOB });
      try {
        expect(stream.status).to.equal(200);
        await write("PUT", `${RECORDS}/streamed`, { data: { n: 1 } });
        await stream.waitUntil(() => stream.events.some((e) => e.data.id === "streamed"));
      } finally {
        await stream.close();
      }
      // Lists other than a collection's records have no feed: a stream asked for there is a 406.
      for (const path of ["/v1/buckets", "/v1/buckets/b/collections", "/v1/buckets/b/groups"]) {
        const res = await server.request("GET", path, { user: ALICE, headers: { Accept: "text/event-stream" } });
        expect(res.status, path).to.equal(406);
      }
    });
  });
}
