/**
 * One timestamp per write: what a write of a shared record answers (`last_modified`, `ETag`) is
 * what every later read shows — the record's GET, the tombstone each former reader syncs with
 * `_since`, and the collection ETag — for deletes, plural deletes, deletes at a requested
 * timestamp, ACL changes that remove a reader, and the same inside a batch, on every backend.
 */
import { expect } from "chai";
import { userId } from "../support/http.js";
import { SYNC_BACKENDS, useSyncServer } from "./backends.js";
import { listAll, SyncClient, type Entry } from "./client.js";

const ALICE = "alice:pw";
const BOB = "bob:pw";

function etagOf(headers: Headers): number {
  return Number(headers.get("etag")?.replaceAll('"', ""));
}

for (const backend of SYNC_BACKENDS) {
  describe(`one timestamp per write of shared records [${backend.name}]`, function () {
    this.timeout(20_000);
    const open = useSyncServer(backend);
    const server = () => open().server;
    const request = async (method: string, path: string, body?: unknown, user = ALICE) => {
      const res = await server().request(method, path, { user, body });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).to.be.oneOf([200, 201]);
      return res;
    };
    const shareWithBob = (id: string) => request("PUT", `/v1/articles/${id}`, { data: { id }, permissions: { read: [userId(BOB)] } });

    /** Bob's entries since `since` by id, and the collection ETag his listing answered. */
    const bobSince = async (since: number) => {
      const { entries, etag } = await listAll(server(), BOB, `?_since=${since}`);
      return { byId: new Map(entries.map((e: Entry) => [e.id, e])), etag };
    };

    it("DELETE of one record: the answer is the tombstone's timestamp and the collection ETag", async () => {
      await shareWithBob("d1");
      const bob = new SyncClient(server, BOB);
      await bob.sync();
      const res = await request("DELETE", "/v1/articles/d1");
      const answered = res.body.data.last_modified as number;
      expect(etagOf(res.headers)).to.equal(answered);
      const seen = await bobSince(bob.since ?? 0);
      expect(seen.byId.get("d1")).to.deep.equal({ id: "d1", last_modified: answered, deleted: true });
      expect(seen.etag).to.equal(answered);
      // The writer (a former reader through `write`) syncs the same tombstone.
      const alice = await listAll(server(), ALICE, `?_since=${bob.since ?? 0}`);
      expect(alice.entries).to.deep.equal([{ id: "d1", last_modified: answered, deleted: true }]);
      expect(alice.etag).to.equal(answered);
    });

    it("DELETE of the collection: each answered tombstone is the one each former reader syncs", async () => {
      for (const id of ["m1", "m2", "m3"]) await shareWithBob(id);
      const bob = new SyncClient(server, BOB);
      await bob.sync();
      const res = await request("DELETE", "/v1/articles");
      const answered = new Map((res.body.data as Entry[]).map((e) => [e.id, e.last_modified]));
      expect([...answered.keys()].sort()).to.deep.equal(["m1", "m2", "m3"]);
      const seen = await bobSince(bob.since ?? 0);
      for (const [id, lastModified] of answered)
        expect(seen.byId.get(id), id).to.deep.equal({ id, last_modified: lastModified, deleted: true });
      expect(seen.etag).to.equal(Math.max(...answered.values()));
      expect(etagOf(res.headers)).to.equal(Math.max(...answered.values()));
    });

    it("DELETE ?last_modified=F above the collection timestamp: F is answered, stored and synced", async () => {
      await shareWithBob("f1");
      const bob = new SyncClient(server, BOB);
      await bob.sync();
      const forced = (bob.since ?? 0) + 10_000;
      const res = await request("DELETE", `/v1/articles/f1?last_modified=${forced}`);
      expect(res.body.data.last_modified).to.equal(forced);
      expect(etagOf(res.headers)).to.equal(forced);
      const seen = await bobSince(bob.since ?? 0);
      expect(seen.byId.get("f1")).to.deep.equal({ id: "f1", last_modified: forced, deleted: true });
      expect(seen.etag).to.equal(forced);
    });

    it("PATCH of permissions removing a reader: the answer is the record's, the reader's tombstone's and the ETag's", async () => {
      await shareWithBob("p1");
      const bob = new SyncClient(server, BOB);
      await bob.sync();
      const res = await request("PATCH", "/v1/articles/p1", { permissions: { read: [] } });
      const answered = res.body.data.last_modified as number;
      expect(etagOf(res.headers)).to.equal(answered);
      expect((await request("GET", "/v1/articles/p1")).body.data.last_modified).to.equal(answered);
      const seen = await bobSince(bob.since ?? 0);
      expect(seen.byId.get("p1")).to.deep.equal({ id: "p1", last_modified: answered, deleted: true });
      expect(seen.etag).to.equal(answered);
      const alice = await listAll(server(), ALICE, `?_since=${bob.since ?? 0}`);
      expect(alice.entries.map((e) => [e.id, e.last_modified])).to.deep.equal([["p1", answered]]);
      expect(alice.etag).to.equal(answered);
    });

    it("PUT replacing the permissions without the reader: the same", async () => {
      await shareWithBob("r1");
      const bob = new SyncClient(server, BOB);
      await bob.sync();
      const res = await request("PUT", "/v1/articles/r1", { data: { v: 2 }, permissions: { read: [] } });
      const answered = res.body.data.last_modified as number;
      const seen = await bobSince(bob.since ?? 0);
      expect(seen.byId.get("r1")).to.deep.equal({ id: "r1", last_modified: answered, deleted: true });
      expect(seen.etag).to.equal(answered);
    });

    it("a batch: each sub-response's timestamp is what the former reader syncs", async () => {
      for (const id of ["b1", "b2", "b3"]) await shareWithBob(id);
      const bob = new SyncClient(server, BOB);
      await bob.sync();
      const res = await request("POST", "/v1/batch", {
        requests: [
          { method: "DELETE", path: "/v1/articles/b1" },
          { method: "PATCH", path: "/v1/articles/b2", body: { permissions: { read: [] } } },
          { method: "DELETE", path: "/v1/articles/b3" },
        ],
      });
      const responses = res.body.responses as { status: number; body: { data: Entry }; headers: Record<string, string> }[];
      expect(responses.map((r) => r.status)).to.deep.equal([200, 200, 200]);
      const seen = await bobSince(bob.since ?? 0);
      for (const { body } of responses) {
        const { id, last_modified } = body.data;
        expect(seen.byId.get(id), id).to.deep.equal({ id, last_modified, deleted: true });
      }
      expect(seen.etag).to.equal(Math.max(...responses.map((r) => r.body.data.last_modified)));
    });
  });
}
