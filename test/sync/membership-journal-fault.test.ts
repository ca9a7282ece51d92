/**
 * A membership change whose journal write fails (docs/api.md, "Sync"): the change and its stamps
 * are one unit of work, so the failure leaves no silently stale `_since` copy. Bob removed from
 * the group that shares a record, the stamp of that loss failing: either the removal did not
 * happen (Bob still reads the record, the call failed), or a `_since` from before it shows the
 * record deleted or answers 410 — never the old listing while Bob may no longer read it. Then the
 * same removal, retried once the journal works, is followed as usual.
 */
import { expect } from "chai";
import { BackendError } from "../../src/domain/errors.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { userId } from "../support/http.js";
import { expectRejection } from "../support/rejection.js";
import { SYNC_BACKENDS, useSyncServer } from "./backends.js";

const ALICE = "alice:pw";
const BOB = "bob:pw";
const TEAM = "group:team";

for (const backend of SYNC_BACKENDS) {
  describe(`a membership change whose journal write fails [${backend.name}]`, function () {
    this.timeout(30_000);
    const open = useSyncServer(backend);
    const server = () => open().server;
    const memberships = () => {
      const changes = open().context.memberships;
      if (!changes) throw new Error("a permission backend is configured");
      return changes;
    };

    /** Bob's position after a full sync in which he holds `shared` through the team. */
    const bobSynced = async (): Promise<number> => {
      await memberships().add(TEAM, [userId(BOB)]);
      const put = await server().request("PUT", "/v1/articles/shared", {
        user: ALICE,
        body: { data: { title: "for the team" }, permissions: { read: [TEAM] } },
      });
      expect(put.status).to.equal(201);
      const listed = await server().request("GET", "/v1/articles", { user: BOB });
      expect(listed.body.data.map((r: { id: string }) => r.id)).to.deep.equal(["shared"]);
      return Number(listed.headers.get("etag")?.replaceAll('"', ""));
    };

    /** The journal's loss stamps fail `times` times, as a lost connection would. */
    const journalFails = async (times: number) => {
      const journal = await server().running.container.getAsync(TOKENS.AccessJournal);
      const stamp = journal.stampLostAccess.bind(journal);
      let left = times;
      journal.stampLostAccess = (...args) => (left-- > 0 ? Promise.reject(new BackendError("storage", "injected")) : stamp(...args));
      return () => (journal.stampLostAccess = stamp);
    };

    it("leaves Bob either still a reader or told of the loss, never with a stale copy", async () => {
      const position = await bobSynced();
      const restore = await journalFails(1);
      try {
        await expectRejection(memberships().remove(TEAM, [userId(BOB)]), BackendError);
      } finally {
        restore();
      }
      const read = await server().request("GET", "/v1/articles/shared", { user: BOB });
      const since = await server().request("GET", `/v1/articles?_since=${position}`, { user: BOB });
      if (read.status === 200) return; // the removal was taken back: his copy is current
      expect(read.status).to.equal(403);
      if (since.status === 410) return;
      expect(since.status).to.equal(200);
      expect(since.body.data.map((r: { id: string; deleted?: boolean }) => [r.id, r.deleted])).to.deep.include(["shared", true]);
    });

    it("takes the change back where the journal failed, and follows the same change retried", async () => {
      const position = await bobSynced();
      const restore = await journalFails(1);
      await expectRejection(memberships().remove(TEAM, [userId(BOB)]), BackendError);
      restore();
      expect((await server().request("GET", "/v1/articles/shared", { user: BOB })).status).to.equal(200);
      await memberships().remove(TEAM, [userId(BOB)]);
      expect((await server().request("GET", "/v1/articles/shared", { user: BOB })).status).to.equal(403);
      const since = await server().request("GET", `/v1/articles?_since=${position}`, { user: BOB });
      expect(since.status).to.equal(200);
      expect(since.body.data.map((r: { id: string; deleted?: boolean }) => [r.id, r.deleted])).to.deep.equal([["shared", true]]);
    });
  });
}
