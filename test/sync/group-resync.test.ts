/**
 * The bound of group changes (docs/api.md, "Sync"): a change that gives or takes more than
 * `group_change_max_records` records of a collection from a holder, or a whole collection, is not
 * followed record by record: a `_since` from before it answers 410 (errno 124) with `details`,
 * the holder's open streams get `resync`, a full listing then works and so does `_since` from its
 * ETag; nobody else's sync is refused, and a change within the bound is still followed.
 */
import { expect } from "chai";
import { userId } from "../support/http.js";
import { SYNC_BACKENDS, useSyncServer } from "./backends.js";
import { listAll } from "./client.js";
import { SseClient } from "./sse-client.js";

const ALICE = "alice:pw";
const BOB = "bob:pw";
const CAROL = "carol:pw";

for (const backend of SYNC_BACKENDS) {
  describe(`group changes past their bound [${backend.name}]`, function () {
    this.timeout(30_000);
    const open = useSyncServer(backend, { group_change_max_records: "2" });
    const server = () => open().server;
    const clients: SseClient[] = [];
    afterEach(async () => {
      for (const client of clients.splice(0)) await client.close();
    });
    const put = async (id: string, readers: string[]) => {
      const res = await server().request("PUT", `/v1/articles/${id}`, {
        user: ALICE,
        body: { data: { id }, permissions: { read: readers } },
      });
      expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 201]);
    };
    const since = (user: string, position: number) => server().request("GET", `/v1/articles?_since=${position}`, { user });
    const permissions = () => {
      const port = open().context.permissions;
      if (!port) throw new Error("a permission backend is configured");
      return port;
    };
    const memberships = () => {
      const changes = open().context.memberships;
      if (!changes) throw new Error("a permission backend is configured");
      return changes;
    };

    it("asks the holder to resync (410 on _since, resync on the stream), nobody else, when a change passes the bound", async () => {
      await memberships().add("group:big", [userId(BOB)]);
      for (const id of ["g1", "g2", "g3"]) await put(id, ["group:big"]);
      await put("b1", [userId(BOB)]);
      await put("c1", [userId(CAROL)]);
      const bob = await listAll(server(), BOB, "");
      const carol = await listAll(server(), CAROL, "");
      expect(bob.entries.map((e) => e.id).sort()).to.deep.equal(["b1", "g1", "g2", "g3"]);
      const stream = await SseClient.open(`${server().url}/v1/articles?_since=${bob.etag}`, { user: BOB });
      clients.push(stream);
      await stream.waitUntil(() => stream.comments.includes("live"));

      await memberships().remove("group:big", [userId(BOB)]);
      const refused = await since(BOB, bob.etag);
      expect(refused.status).to.equal(410);
      expect(refused.body).to.include({ code: 410, errno: 124, error: "Gone" });
      const details = refused.body.details as { location: string; name: string; since: number; timestamp: number };
      expect(details).to.include({ location: "querystring", name: "_since", since: bob.etag });
      expect(details.timestamp).to.be.above(bob.etag);
      await stream.waitUntil(() => stream.ended);
      expect(stream.events.map((e) => e.event)).to.deep.equal(["resync"]);

      // What the answer asks: a full sync, then _since from its ETag again.
      const fresh = await listAll(server(), BOB, "");
      expect(fresh.entries.map((e) => e.id)).to.deep.equal(["b1"]);
      expect(fresh.etag).to.be.at.least(details.timestamp);
      expect((await since(BOB, fresh.etag)).status).to.equal(200);
      // Carol's view did not change: her sync goes on.
      const hers = await since(CAROL, carol.etag);
      expect(hers.status).to.equal(200);
      expect(hers.body.data).to.deep.equal([]);
    });

    it("follows a change within the bound record by record, and asks for a resync for a whole collection", async () => {
      await memberships().add("group:small", [userId(BOB)]);
      await put("s1", ["group:small"]);
      await put("s2", ["group:small"]);
      const bob = await listAll(server(), BOB, "");
      await memberships().remove("group:small", [userId(BOB)]);
      const followed = await since(BOB, bob.etag);
      expect(followed.status).to.equal(200);
      expect((followed.body.data as { id: string; deleted?: boolean }[]).map((e) => [e.id, e.deleted]).sort()).to.deep.equal([
        ["s1", true],
        ["s2", true],
      ]);

      // A group that reads the whole collection (an ACE on it): its change passes any bound.
      await permissions().addPrincipalToAce("/articles", "read", "group:all");
      const before = await listAll(server(), CAROL, "");
      await memberships().add("group:all", [userId(CAROL)]);
      expect((await since(CAROL, before.etag)).status).to.equal(410);
      expect((await listAll(server(), CAROL, "")).entries.map((e) => e.id).sort()).to.deep.equal(["s1", "s2"]);
    });
  });
}
