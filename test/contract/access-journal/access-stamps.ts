/**
 * Contract: access that changed without a record write (a group change, docs/api.md "Sync").
 * stampLostAccess and stampGainedAccess take a new timestamp of the scope (the records' own stay),
 * and a restricted listing from a position then shows the lost records as tombstones and the
 * gained ones as they are, to the principals named, with filters, bounds and keyset pages.
 */
import { expect } from "chai";
import type { RecordAccess } from "../../../src/application/listing.js";
import { cursorOf, filter, idsOf, LM_ASC, listQuery, plain, scopeOf, seed } from "../record-store/fixture.js";
import type { JournalRef } from "./fixture.js";

export function accessStampCases({ store, journal }: JournalRef): void {
  const articles = scopeOf("articles");
  const notes = scopeOf("notes");
  const as = (ids: string[], principals = ["bob", "system.Everyone"]): RecordAccess => ({ ids, principals });
  const since = (position: number) => [filter("last_modified", "gt", position)];

  describe("access stamps (group changes)", () => {
    it("stamps each record's loss at its own new timestamp of the scope, leaving the records' own timestamps", async () => {
      const seeded = await seed(store(), articles, [{}, {}]);
      const position = await store().collectionTimestamp(articles);
      const { first, last } = await journal().stampLostAccess(articles, "group:g", ["r1", "r0", "r1"]);
      expect(first).to.be.above(position);
      expect(last).to.equal(first + 1);
      expect(await store().collectionTimestamp(articles)).to.equal(last);
      expect(plain(await store().get(articles, "r0"))).to.deep.equal(plain(seeded[0]));
      // r1 is still readable (its id is granted): only r0 shows, at its own stamp.
      const page = await store().list(
        articles,
        listQuery({ access: as(["r1"], ["group:g"]), includeDeleted: true, filters: since(position) }),
      );
      expect(page).to.deep.equal([{ id: "r0", lastModified: first, deleted: true }]);
      expect(
        await store().list(articles, listQuery({ access: as([], ["carol"]), includeDeleted: true, filters: since(position) })),
      ).to.deep.equal([]);
      expect((await journal().lostAccessAfter(articles, position)).map((l) => [l.id, l.lastModified, l.principals])).to.deep.equal([
        ["r0", first, ["group:g"]],
        ["r1", last, ["group:g"]],
      ]);
    });

    it("lists the ids a principal lost, in its scope only", async () => {
      await seed(store(), articles, [{}, {}]);
      await journal().stampLostAccess(articles, "group:g", ["r0", "r1"]);
      await journal().stampLostAccess(articles, "bob", ["r1"]);
      expect((await journal().lostAccessOf(articles, "group:g")).sort()).to.deep.equal(["r0", "r1"]);
      expect(await journal().lostAccessOf(articles, "carol")).to.deep.equal([]);
      expect(await journal().lostAccessOf(notes, "group:g")).to.deep.equal([]);
    });

    it("walks many losses of one change page by page by their timestamps, none skipped", async () => {
      await seed(store(), articles, [{}, {}, {}, {}, {}]);
      const position = await store().collectionTimestamp(articles);
      await journal().stampLostAccess(articles, "bob", ["r0", "r1", "r2", "r3", "r4"]);
      const seen: string[] = [];
      let cursor = position;
      for (let page = 0; page < 10; page++) {
        const entries = await store().list(articles, listQuery({ access: as([]), includeDeleted: true, filters: since(cursor), limit: 2 }));
        if (entries.length === 0) break;
        seen.push(...idsOf(entries));
        cursor = entries.at(-1)?.lastModified ?? cursor;
      }
      expect(seen).to.deep.equal(["r0", "r1", "r2", "r3", "r4"]);
    });

    it("stamps a gain: a listing from a position before it shows the readable records gained, whatever their own timestamps", async () => {
      const seeded = await seed(store(), articles, [{ t: "a" }, { t: "b" }, { t: "c" }]);
      await seed(store(), notes, [{}]);
      const position = await store().collectionTimestamp(articles);
      const stamp = await journal().stampGainedAccess(articles, "bob", ["r0", "r1", "r2"]);
      expect(stamp).to.be.above(position);
      expect(await store().collectionTimestamp(articles)).to.equal(stamp);
      expect(
        await journal()
          .gainedAccessAfter(articles, ["bob"], position)
          .then((ids) => ids.sort()),
      ).to.deep.equal(["r0", "r1", "r2"]);
      expect(await journal().gainedAccessAfter(articles, ["bob"], stamp)).to.deep.equal([]);
      expect(await journal().gainedAccessAfter(notes, ["bob"], position)).to.deep.equal([]);
      const readable = as(["r0", "r2"]);
      // Not readable now (r1), not named (carol), not after the gain, or without a position: not shown.
      expect(await store().list(articles, listQuery({ access: readable, filters: since(position) }))).to.deep.equal(
        [seeded[0], seeded[2]].map(plain),
      );
      expect(await store().list(articles, listQuery({ access: readable, includeDeleted: true, filters: since(position) }))).to.deep.equal(
        [seeded[0], seeded[2]].map(plain),
      );
      expect(await store().list(articles, listQuery({ access: as(["r0"], ["carol"]), filters: since(position) }))).to.deep.equal([]);
      expect(await store().list(articles, listQuery({ access: readable, filters: since(stamp) }))).to.deep.equal([]);
      expect(await store().list(articles, listQuery({ access: readable, filters: [filter("last_modified", "min", stamp)] }))).to.deep.equal(
        [seeded[0], seeded[2]].map(plain),
      );
      expect(await store().list(articles, listQuery({ access: readable, filters: since(position), upTo: stamp - 1 }))).to.deep.equal([]);
      // The other filters still apply; keyset pages walk them in the listing's order.
      expect(
        idsOf(await store().list(articles, listQuery({ access: readable, filters: [...since(position), filter("t", "eq", "c")] }))),
      ).to.deep.equal(["r2"]);
      const first = await store().list(articles, listQuery({ access: readable, filters: since(position), limit: 1 }));
      expect(idsOf(first)).to.deep.equal(["r0"]);
      const next = await store().list(
        articles,
        listQuery({ access: readable, filters: since(position), limit: 5, after: cursorOf(first[0]!, [LM_ASC]) }),
      );
      expect(idsOf(next)).to.deep.equal(["r2"]);
    });

    it("shows a gained record once, when it was also written after the position", async () => {
      await seed(store(), articles, [{}]);
      const position = await store().collectionTimestamp(articles);
      await journal().stampGainedAccess(articles, "bob", ["r0"]);
      const updated = await store().update(articles, "r0", { v: 2 });
      expect(await store().list(articles, listQuery({ access: as(["r0"]), filters: since(position) }))).to.deep.equal([plain(updated)]);
    });

    it("stamps a resync at a new timestamp of the scope, found by the principals named after a position before it", async () => {
      await seed(store(), articles, [{}]);
      const position = await store().collectionTimestamp(articles);
      expect(await journal().resyncAfter(articles, ["bob"], position)).to.equal(undefined);
      const first = await journal().stampResync(articles, "group:g");
      const stamp = await journal().stampResync(articles, "bob");
      expect(stamp).to.be.above(first);
      expect(await store().collectionTimestamp(articles)).to.equal(stamp);
      expect(await journal().resyncAfter(articles, ["bob", "group:g"], position)).to.equal(stamp);
      expect(await journal().resyncAfter(articles, ["group:g"], position)).to.equal(first);
      expect(await journal().resyncAfter(articles, ["bob"], stamp)).to.equal(undefined);
      expect(await journal().resyncAfter(articles, ["carol"], position)).to.equal(undefined);
      expect(await journal().resyncAfter(notes, ["bob"], position)).to.equal(undefined);
      await journal().purge(articles);
      expect(await journal().resyncAfter(articles, ["bob"], position)).to.equal(undefined);
    });

    it("forgets gains with purge and flush", async () => {
      await seed(store(), articles, [{}]);
      const position = await store().collectionTimestamp(articles);
      await journal().stampGainedAccess(articles, "bob", ["r0"]);
      expect(await journal().purge(articles)).to.equal(1);
      expect(await store().list(articles, listQuery({ access: as(["r0"]), filters: since(position) }))).to.deep.equal([]);
      await journal().stampGainedAccess(articles, "bob", ["r0"]);
      await journal().stampResync(articles, "bob");
      await journal().flush();
      expect(await journal().gainedAccessAfter(articles, ["bob"], position)).to.deep.equal([]);
      expect(await journal().resyncAfter(articles, ["bob"], position)).to.equal(undefined);
    });
  });
}
