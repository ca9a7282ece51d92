/**
 * Contract: "what changed after t", as `_since` syncs and the live feed ask it. Listings bounded
 * below on `last_modified` see each record once at its newest version, tombstones in place of
 * deleted records, nothing purged, however often the records were rewritten (a store may serve
 * them from an index of changes: the answer must be the scan's).
 */
import { expect } from "chai";
import { filter, idsOf, LM_ASC, listQuery, scopeOf, seed, type StoreRef } from "./fixture.js";

export function changesSinceCases(store: StoreRef): void {
  const articles = scopeOf("articles");

  describe("changes since a timestamp", () => {
    it("lists each changed record once at its newest version, and tombstones of deleted ones, after the bound", async () => {
      const seeded = await seed(
        store(),
        articles,
        Array.from({ length: 80 }, (_, n) => ({ n })),
      );
      const since = await store().collectionTimestamp(articles);
      // Rewrite a few many times (more stale changes than live ones), delete and recreate others.
      for (let round = 0; round < 5; round += 1) for (const id of ["r1", "r2", "r3"]) await store().update(articles, id, { n: round });
      await store().delete(articles, "r4");
      await store().delete(articles, "r5");
      await store().create(articles, "r5", { n: "again" });
      const expectedLive = ["r1", "r2", "r3", "r5"];
      const after = filter("last_modified", "gt", since);
      const live = await store().list(articles, listQuery({ filters: [after], sort: [LM_ASC] }));
      expect(idsOf(live)).to.deep.equal(expectedLive);
      expect(live.map((e) => (e.deleted ? undefined : e.data.n))).to.deep.equal([4, 4, 4, "again"]);
      const withDeleted = await store().list(articles, listQuery({ filters: [after], sort: [LM_ASC], includeDeleted: true }));
      expect(withDeleted.map((e) => `${e.id}${e.deleted ? "-" : ""}`)).to.deep.equal(["r1", "r2", "r3", "r4-", "r5"]);
      // `min` (at or after) and an access restriction narrow it the same way.
      const r2 = live.find((e) => e.id === "r2");
      const atOrAfter = await store().list(articles, listQuery({ filters: [filter("last_modified", "min", r2?.lastModified ?? 0)] }));
      expect(idsOf(atOrAfter).sort()).to.deep.equal(["r2", "r3", "r5"]);
      const restricted = await store().list(
        articles,
        listQuery({ filters: [after], access: { ids: ["r3", "r7", "r4"] }, includeDeleted: true }),
      );
      expect(idsOf(restricted).sort()).to.deep.equal(["r3", "r4"]);
      // Nothing changed before the bound reappears.
      expect(seeded).to.have.length(80);
      const all = await store().list(articles, listQuery({ filters: [filter("last_modified", "gt", 0)], limit: 1000 }));
      expect(all).to.have.length(79);
    });

    it("forgets purged tombstones", async () => {
      await seed(store(), articles, [{}, {}]);
      const since = await store().collectionTimestamp(articles);
      await store().delete(articles, "r0");
      await store().purgeTombstones(articles);
      const found = await store().list(articles, listQuery({ filters: [filter("last_modified", "gt", since)], includeDeleted: true }));
      expect(found).to.deep.equal([]);
    });
  });
}
