/**
 * Sync of shared records over HTTP (docs/adr/0011): every former reader of a deleted record gets
 * its tombstone, a reader who loses access gets one too, a reader who regains access gets the
 * record back, on every backend combination.
 */
import { expect } from "chai";
import { purgeStorage } from "../../src/bootstrap/purge.js";
import { userId } from "../support/http.js";
import { SYNC_BACKENDS, useSyncServer } from "./backends.js";
import { listAll, SyncClient, type Entry } from "./client.js";

const ALICE = "alice:pw";
const BOB = "bob:pw";
const CAROL = "carol:pw";

for (const backend of SYNC_BACKENDS) {
  describe(`sync of shared records [${backend.name}]`, function () {
    this.timeout(20_000);
    const open = useSyncServer(backend);
    const server = () => open().server;
    const put = async (id: string, body: unknown, user = ALICE) => {
      const res = await server().request("PUT", `/v1/articles/${id}`, { user, body });
      expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 201]);
      return res.body as { data: Entry };
    };
    const patch = async (id: string, body: unknown, user = ALICE) => {
      const res = await server().request("PATCH", `/v1/articles/${id}`, { user, body });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body as { data: Entry };
    };
    const remove = async (path: string, user = ALICE) => {
      const res = await server().request("DELETE", path, { user });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    };

    it("gives a deleted record's tombstone to a reader and to a writer through the record's ACL", async () => {
      await put("a1", { data: { title: "shared" }, permissions: { read: [userId(BOB)] } });
      const bob = new SyncClient(server, BOB);
      const alice = new SyncClient(server, ALICE);
      await bob.sync();
      await alice.sync();
      expect(bob.ids()).to.deep.equal(["a1"]);
      await remove("/v1/articles/a1");
      const came = await bob.sync();
      expect(came).to.have.length(1);
      expect(came[0]).to.include({ id: "a1", deleted: true });
      expect(Object.keys(came[0]!).sort()).to.deep.equal(["deleted", "id", "last_modified"]);
      expect(came[0]!.last_modified).to.be.greaterThan(0);
      expect(bob.ids()).to.deep.equal([]);
      expect((await alice.sync()).map((e) => [e.id, e.deleted])).to.deep.equal([["a1", true]]);
    });

    it("gives it to readers through a group and through system principals, not to strangers", async () => {
      await open().context.memberships?.add("group:editors", [userId(CAROL)]);
      await put("g1", { data: {}, permissions: { read: ["group:editors"] } });
      await put("e1", { data: {}, permissions: { read: ["system.Authenticated"] } });
      const carol = new SyncClient(server, CAROL);
      const dave = new SyncClient(server, "dave:pw");
      await carol.sync();
      await dave.sync();
      expect(carol.ids()).to.deep.equal(["e1", "g1"]);
      expect(dave.ids()).to.deep.equal(["e1"]);
      await remove("/v1/articles/g1");
      await remove("/v1/articles/e1");
      expect((await carol.sync()).map((e) => e.id).sort()).to.deep.equal(["e1", "g1"]);
      expect((await dave.sync()).map((e) => e.id)).to.deep.equal(["e1"]);
      expect(carol.ids()).to.deep.equal([]);
    });

    it("gives tombstones of a collection-wide DELETE to each former reader", async () => {
      for (const id of ["b1", "b2", "b3"]) await put(id, { data: {}, permissions: { read: id === "b3" ? [] : [userId(BOB)] } });
      const bob = new SyncClient(server, BOB);
      await bob.sync();
      await remove("/v1/articles");
      expect((await bob.sync()).map((e) => [e.id, e.deleted]).sort()).to.deep.equal([
        ["b1", true],
        ["b2", true],
      ]);
    });

    it("shows lost access as a tombstone and regained access as the record with a new timestamp", async () => {
      await put("l1", { data: { n: 1 }, permissions: { read: [userId(BOB)] } });
      const bob = new SyncClient(server, BOB);
      const alice = new SyncClient(server, ALICE);
      await bob.sync();
      await alice.sync();
      await patch("l1", { permissions: { read: [] } });
      const sinceBefore = bob.since ?? 0;
      const lost = await bob.sync();
      expect(lost.map((e) => [e.id, e.deleted])).to.deep.equal([["l1", true]]);
      expect(lost[0]!.last_modified)
        .to.be.greaterThan(sinceBefore)
        .and.at.most(bob.since ?? 0);
      expect(bob.ids()).to.deep.equal([]);
      expect(await bob.sync()).to.deep.equal([]);
      expect((await alice.sync()).map((e) => e.id)).to.deep.equal(["l1"]);
      expect(alice.ids()).to.deep.equal(["l1"]);
      const regained = await put("l1", { data: { n: 1 }, permissions: { read: [userId(BOB)] } });
      const came = await bob.sync();
      expect(came).to.deep.equal([{ id: "l1", n: 1, last_modified: regained.data.last_modified }]);
      expect(bob.ids()).to.deep.equal(["l1"]);
    });

    it("pages through lost tombstones and records with _since, _limit and _sort, and HEAD counts only live records", async () => {
      for (let i = 0; i < 7; i += 1) await put(`p${i}`, { data: { n: i }, permissions: { read: [userId(BOB)] } });
      const bob = new SyncClient(server, BOB, 2);
      await bob.sync();
      for (const i of [1, 3, 5]) await patch(`p${i}`, { permissions: { read: [] } });
      await remove("/v1/articles/p6");
      await patch("p0", { data: { n: 10 } });
      const came = await bob.sync();
      expect(came.map((e) => [e.id, e.deleted === true]).sort()).to.deep.equal([
        ["p0", false],
        ["p1", true],
        ["p3", true],
        ["p5", true],
        ["p6", true],
      ]);
      expect(bob.ids()).to.deep.equal(["p0", "p2", "p4"]);
      const sorted = await listAll(server(), BOB, `?_since=0&_sort=-n&_limit=2`);
      // Missing `n` sorts last ascending, so first descending; ties by last_modified descending.
      expect(sorted.entries.map((e) => e.id)).to.deep.equal(["p6", "p5", "p3", "p1", "p0", "p4", "p2"]);
      const before = await listAll(server(), BOB, `?_before=${came.find((e) => e.id === "p3")?.last_modified}&_since=0`);
      expect(before.entries.map((e) => e.id).sort()).to.deep.equal(["p1", "p2", "p4"]);
      const head = await server().request("HEAD", "/v1/articles", { user: BOB });
      expect(head.headers.get("total-records")).to.equal("3");
    });

    it("follows ACL changes made by extensions (context.acls): loss as a tombstone at the write's timestamp, grant as a new timestamp", async () => {
      const acls = open().context.acls;
      if (!acls) throw new Error("no permission backend");
      const created = await put("x1", { data: {}, permissions: { read: [userId(BOB)] } });
      const bob = new SyncClient(server, BOB);
      await bob.sync();
      const revoked = await acls.revoke("articles", "x1", "read", userId(BOB));
      const lost = await bob.sync();
      expect(lost.map((e) => [e.id, e.deleted])).to.deep.equal([["x1", true]]);
      expect(lost[0]!.last_modified).to.equal(revoked?.lastModified);
      await acls.grant("articles", "x1", "read", userId(BOB));
      const back = await bob.sync();
      expect(back.map((e) => [e.id, e.deleted])).to.deep.equal([["x1", undefined]]);
      expect(back[0]!.last_modified).to.be.greaterThan(created.data.last_modified);
      await acls.replace("articles", "x1", { read: [] });
      expect((await bob.sync()).map((e) => [e.id, e.deleted])).to.deep.equal([["x1", true]]);
      // The owner's write grant is kept: replace changes only the permissions it names.
      expect((await server().request("GET", "/v1/articles/x1", { user: ALICE })).status).to.equal(200);
    });

    it("removes with purge (what `tessera purge` runs) whatever keeps tombstones visible", async () => {
      await put("q1", { data: {}, permissions: { read: [userId(BOB)] } });
      await put("q2", { data: {}, permissions: { read: [userId(BOB)] } });
      await remove("/v1/articles/q1");
      await patch("q2", { permissions: { read: [] } });
      expect((await listAll(server(), BOB, "?_since=0")).entries.map((e) => e.id).sort()).to.deep.equal(["q1", "q2"]);
      expect(await purgeStorage(server().running.container, undefined)).to.be.at.least(2);
      expect((await listAll(server(), BOB, "?_since=0")).entries).to.deep.equal([]);
    });

    it("follows group membership changes: a removal's tombstones, an addition's records, their own timestamps kept, nobody else's view moved", async () => {
      const memberships = open().context.memberships;
      await memberships?.add("group:readers", [userId(CAROL)]);
      await memberships?.add("group:readers", [userId(BOB)]);
      await put("m1", { data: {}, permissions: { read: ["group:readers"] } });
      await put("m2", { data: {}, permissions: { read: [userId(CAROL), "group:readers"] } });
      const carol = new SyncClient(server, CAROL);
      const bob = new SyncClient(server, BOB);
      await carol.sync();
      await bob.sync();
      const m1 = carol.records.get("m1")?.last_modified;
      expect(carol.ids()).to.deep.equal(["m1", "m2"]);
      const before = carol.since ?? 0;

      await memberships?.remove("group:readers", [userId(CAROL)]);
      // m2 is still Carol's through her own id: only m1 is lost, at a new timestamp of the collection.
      const lost = await carol.sync();
      expect(lost.map((e) => [e.id, e.deleted])).to.deep.equal([["m1", true]]);
      expect(lost[0]?.last_modified).to.be.above(before);
      expect(carol.since).to.be.above(before);
      expect(carol.ids()).to.deep.equal(["m2"]);
      expect(await bob.sync()).to.deep.equal([]);

      await memberships?.add("group:readers", [userId(CAROL)]);
      // Given back: m1 comes with its own, older timestamp, though the client's position is newer
      // (m2, which the group grants too, may come again as it is: docs/api.md, "Sync").
      const gained = await carol.sync();
      expect(gained.filter((e) => e.id === "m1").map((e) => e.last_modified)).to.deep.equal([m1]);
      const m2 = gained.filter((e) => e.id === "m2").map((e) => e.last_modified);
      expect([[], [carol.records.get("m2")?.last_modified]]).to.deep.include(m2);
      expect(carol.ids()).to.deep.equal(["m1", "m2"]);
      expect(await bob.sync()).to.deep.equal([]);
      const res = await server().request("GET", "/v1/articles/m1", { user: CAROL });
      expect((res.body.data as { last_modified: number }).last_modified).to.equal(m1);
    });
  });

  describe(`sync of shared records by readers who may not create [${backend.name}]`, function () {
    this.timeout(20_000);
    // Only Alice creates: a reader who reads no live record any more is refused an empty listing,
    // never the tombstones it is owed.
    const open = useSyncServer(backend, { articles_create_principals: userId(ALICE) });
    const server = () => open().server;

    it("gives a reader whose every shared record was deleted or unshared its tombstones, not a 403", async () => {
      for (const id of ["d1", "u1"]) {
        const res = await server().request("PUT", `/v1/articles/${id}`, {
          user: ALICE,
          body: { data: {}, permissions: { read: [userId(BOB)] } },
        });
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
      }
      const bob = new SyncClient(server, BOB);
      await bob.sync();
      expect(bob.ids()).to.deep.equal(["d1", "u1"]);
      expect((await server().request("DELETE", "/v1/articles/d1", { user: ALICE })).status).to.equal(200);
      expect((await server().request("PATCH", "/v1/articles/u1", { user: ALICE, body: { permissions: { read: [] } } })).status).to.equal(
        200,
      );
      const came = await bob.sync();
      expect(came.map((e) => [e.id, e.deleted]).sort()).to.deep.equal([
        ["d1", true],
        ["u1", true],
      ]);
      expect(bob.ids()).to.deep.equal([]);
      // With nothing left to read or owed, the listing is refused as before.
      expect((await server().request("GET", "/v1/articles", { user: BOB })).status).to.equal(403);
    });
  });
}
