/**
 * Contract: every stamp the journal takes itself (stampLostAccess's range, stampGainedAccess,
 * stampResync) is strictly greater than the scope's collection timestamp when taken, also right
 * after a record write in the same millisecond. The counter is first put ahead of every clock (a
 * client-requested future timestamp), so that a clock reading never hides a counter that did not
 * move: a stamp equal to the last write's would be missed by a client that synced up to it.
 */
import { expect } from "chai";
import type { RecordAccess } from "../../../src/application/listing.js";
import { filter, listQuery, plain, scopeOf, seed } from "../record-store/fixture.js";
import type { JournalRef } from "./fixture.js";

/** An hour ahead of every clock: the counter stays ahead of the clock for the whole test. */
function aheadOfClock(): number {
  return Date.now() + 3_600_000;
}

export function stampOrderCases({ store, journal }: JournalRef): void {
  const articles = scopeOf("articles");
  const since = (position: number) => [filter("last_modified", "gt", position)];
  const bob = (ids: string[]): RecordAccess => ({ ids, principals: ["bob"] });

  describe("stamps above the collection timestamp", () => {
    it("takes a loss range above a counter ahead of the clock, and a client synced up to it sees the tombstones", async () => {
      await seed(store(), articles, [{}]);
      const ahead = aheadOfClock();
      const written = await store().create(articles, "r1", {}, { lastModified: ahead });
      expect(written.lastModified).to.equal(ahead);
      // The client's sync answered the collection timestamp: its next `_since`.
      const position = await store().collectionTimestamp(articles);
      expect(position).to.equal(ahead);
      const { first, last } = await journal().stampLostAccess(articles, "bob", ["r0", "r1"]);
      expect(first).to.be.above(position);
      expect(last).to.equal(first + 1);
      expect(await store().collectionTimestamp(articles)).to.equal(last);
      const page = await store().list(articles, listQuery({ access: bob([]), includeDeleted: true, filters: since(position) }));
      expect(page).to.deep.equal([
        { id: "r0", lastModified: first, deleted: true },
        { id: "r1", lastModified: last, deleted: true },
      ]);
    });

    it("takes a loss of nothing above the counter too (one timestamp, nothing recorded)", async () => {
      const ahead = aheadOfClock();
      await store().create(articles, "r0", {}, { lastModified: ahead });
      const { first, last } = await journal().stampLostAccess(articles, "bob", []);
      expect(first).to.be.above(ahead);
      expect(last).to.equal(first);
      expect(await journal().lostAccessAfter(articles, 0)).to.deep.equal([]);
    });

    it("takes a gain above a counter ahead of the clock, and a client synced up to it gets the records gained", async () => {
      const [older] = await seed(store(), articles, [{ t: "old" }]);
      const ahead = aheadOfClock();
      await store().create(articles, "r1", {}, { lastModified: ahead });
      const position = await store().collectionTimestamp(articles);
      const stamp = await journal().stampGainedAccess(articles, "bob", ["r0"]);
      expect(stamp).to.be.above(position);
      expect(await store().collectionTimestamp(articles)).to.equal(stamp);
      expect(await journal().gainedAccessAfter(articles, ["bob"], position)).to.deep.equal(["r0"]);
      expect(await store().list(articles, listQuery({ access: bob(["r0"]), filters: since(position) }))).to.deep.equal([plain(older)]);
    });

    it("takes a resync above a counter ahead of the clock, found from a position at the collection timestamp", async () => {
      const ahead = aheadOfClock();
      await store().create(articles, "r0", {}, { lastModified: ahead });
      const position = await store().collectionTimestamp(articles);
      const stamp = await journal().stampResync(articles, "bob");
      expect(stamp).to.be.above(position);
      expect(await store().collectionTimestamp(articles)).to.equal(stamp);
      expect(await journal().resyncAfter(articles, ["bob"], position)).to.equal(stamp);
    });

    it("keeps writes and stamps taken back to back strictly increasing, each stamp above the write before it", async () => {
      await seed(store(), articles, [{}]);
      let previous = await store().collectionTimestamp(articles);
      const stamp = async (round: number): Promise<number> => {
        if (round % 3 === 0) {
          const { first, last } = await journal().stampLostAccess(articles, "bob", ["x"]);
          expect(last, "one record, one timestamp").to.equal(first);
          return first;
        }
        if (round % 3 === 1) return journal().stampGainedAccess(articles, "bob", ["r0"]);
        return journal().stampResync(articles, "bob");
      };
      for (let round = 0; round < 30; round += 1) {
        const written = (await store().update(articles, "r0", { round })).lastModified;
        expect(written, `write of round ${round}`).to.be.above(previous);
        const stamped = await stamp(round);
        expect(stamped, `stamp of round ${round}`).to.be.above(written);
        previous = stamped;
      }
    });
  });
}
