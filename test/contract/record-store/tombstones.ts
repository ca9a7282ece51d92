/** Contract: tombstones in listings and counts, deleteMany, purge, flush and housekeeping. */
import { expect } from "chai";
import { countQuery, expectStrictlyIncreasing, filter, idsOf, listQuery, scopeOf, seed, type StoreRef } from "./fixture.js";

export function tombstoneCases(store: StoreRef): void {
  const articles = scopeOf("articles");

  describe("tombstones", () => {
    it("lists tombstones only when includeDeleted is set", async () => {
      await seed(store(), articles, [{ v: 1 }, { v: 2 }]);
      const tombstone = await store().delete(articles, "r0");
      expect(idsOf(await store().list(articles, listQuery()))).to.deep.equal(["r1"]);
      const all = await store().list(articles, listQuery({ includeDeleted: true }));
      expect(idsOf(all)).to.deep.equal(["r1", "r0"]);
      expect(all[1]).to.deep.equal({ id: "r0", lastModified: tombstone.lastModified, deleted: true });
    });

    it("never counts tombstones", async () => {
      await seed(store(), articles, [{ v: 1 }, { v: 2 }]);
      await store().delete(articles, "r0");
      expect(await store().count(articles, countQuery())).to.equal(1);
      expect(await store().count(articles, countQuery({ filters: [filter("last_modified", "gt", 0)] }))).to.equal(1);
      expect(await store().count(articles, countQuery({ filters: [filter("deleted", "eq", true)] }))).to.equal(0);
    });

    it("keeps tombstones of other scopes apart", async () => {
      await store().create(scopeOf("notes", "alice"), "n1", {});
      await store().delete(scopeOf("notes", "alice"), "n1");
      expect(await store().list(scopeOf("notes", "bob"), listQuery({ includeDeleted: true }))).to.deep.equal([]);
    });
  });

  describe("deleteMany", () => {
    it("deletes every live record and returns tombstones ascending with fresh distinct timestamps", async () => {
      const created = await seed(store(), articles, [{ v: 1 }, { v: 2 }, { v: 3 }]);
      const before = await store().collectionTimestamp(articles);
      const tombstones = await store().deleteMany(articles, countQuery());
      expect(idsOf(tombstones).sort()).to.deep.equal(["r0", "r1", "r2"]);
      const stamps = tombstones.map((t) => t.lastModified);
      expectStrictlyIncreasing(stamps);
      expect(stamps[0]).to.be.greaterThan(before);
      for (const t of tombstones) {
        expect(t.deleted).to.equal(true);
        expect(created.map((r) => r.lastModified)).to.not.include(t.lastModified);
      }
      expect(await store().collectionTimestamp(articles)).to.equal(stamps[stamps.length - 1]);
      expect(await store().count(articles, countQuery())).to.equal(0);
      expect(await store().list(articles, listQuery({ includeDeleted: true }))).to.have.length(3);
    });

    it("deletes only the records matching the filters", async () => {
      await seed(store(), articles, [{ foo: "po" }, { foo: "bar" }, { foo: "bar" }]);
      const tombstones = await store().deleteMany(articles, countQuery({ filters: [filter("foo", "eq", "bar")] }));
      expect(idsOf(tombstones).sort()).to.deep.equal(["r1", "r2"]);
      expect(idsOf(await store().list(articles, listQuery()))).to.deep.equal(["r0"]);
    });

    it("deletes only the records the access allows", async () => {
      await seed(store(), articles, [{}, {}, {}]);
      const tombstones = await store().deleteMany(articles, countQuery({ access: { ids: ["r0", "r2", "ghost"] } }));
      expect(idsOf(tombstones).sort()).to.deep.equal(["r0", "r2"]);
      expect(idsOf(await store().list(articles, listQuery()))).to.deep.equal(["r1"]);
    });

    it("deletes nothing with an empty access list", async () => {
      await seed(store(), articles, [{}, {}]);
      expect(await store().deleteMany(articles, countQuery({ access: { ids: [] } }))).to.deep.equal([]);
      expect(await store().count(articles, countQuery())).to.equal(2);
    });

    it("combines filters and access", async () => {
      await seed(store(), articles, [{ n: 1 }, { n: 2 }, { n: 3 }]);
      const tombstones = await store().deleteMany(
        articles,
        countQuery({ filters: [filter("n", "min", 2)], access: { ids: ["r0", "r1"] } }),
      );
      expect(idsOf(tombstones)).to.deep.equal(["r1"]);
    });

    it("returns nothing and leaves the collection timestamp when nothing matches", async () => {
      await seed(store(), articles, [{ n: 1 }]);
      const before = await store().collectionTimestamp(articles);
      expect(await store().deleteMany(articles, countQuery({ filters: [filter("n", "eq", 99)] }))).to.deep.equal([]);
      expect(await store().collectionTimestamp(articles)).to.equal(before);
    });

    it("does not delete existing tombstones again", async () => {
      await seed(store(), articles, [{}, {}]);
      const old = await store().delete(articles, "r0");
      const tombstones = await store().deleteMany(articles, countQuery());
      expect(idsOf(tombstones)).to.deep.equal(["r1"]);
      const all = await store().list(articles, listQuery({ includeDeleted: true }));
      expect(all.find((e) => e.id === "r0")?.lastModified).to.equal(old.lastModified);
    });

    it("stays inside its scope", async () => {
      await seed(store(), scopeOf("notes", "alice"), [{}, {}]);
      await seed(store(), scopeOf("notes", "bob"), [{}]);
      await store().deleteMany(scopeOf("notes", "alice"), countQuery());
      expect(await store().count(scopeOf("notes", "bob"), countQuery())).to.equal(1);
    });
  });

  describe("purgeTombstones", () => {
    it("removes every tombstone of a scope and returns how many", async () => {
      await seed(store(), articles, [{}, {}, {}]);
      await store().delete(articles, "r0");
      await store().delete(articles, "r1");
      expect(await store().purgeTombstones(articles)).to.equal(2);
      expect(idsOf(await store().list(articles, listQuery({ includeDeleted: true })))).to.deep.equal(["r2"]);
    });

    it("removes only tombstones strictly older than before", async () => {
      await seed(store(), articles, [{}, {}, {}]);
      await store().delete(articles, "r0");
      const newer = await store().delete(articles, "r1");
      expect(await store().purgeTombstones(articles, newer.lastModified)).to.equal(1);
      expect(idsOf(await store().list(articles, listQuery({ includeDeleted: true })))).to.deep.equal(["r2", "r1"]);
    });

    it("never removes live records, however old", async () => {
      await seed(store(), articles, [{}, {}]);
      await store().delete(articles, "r1");
      expect(await store().purgeTombstones(articles, Date.now() + 100_000)).to.equal(1);
      expect(idsOf(await store().list(articles, listQuery({ includeDeleted: true })))).to.deep.equal(["r0"]);
    });

    it("returns 0 when there is nothing to purge", async () => {
      await seed(store(), articles, [{}]);
      expect(await store().purgeTombstones(articles)).to.equal(0);
      expect(await store().purgeTombstones(undefined)).to.equal(0);
    });

    it("purges only the given scope", async () => {
      for (const scope of [scopeOf("notes", "alice"), scopeOf("notes", "bob")]) {
        await store().create(scope, "n1", {});
        await store().delete(scope, "n1");
      }
      expect(await store().purgeTombstones(scopeOf("notes", "alice"))).to.equal(1);
      expect(await store().list(scopeOf("notes", "bob"), listQuery({ includeDeleted: true }))).to.have.length(1);
    });

    it("purges every scope when no scope is given", async () => {
      for (const scope of [scopeOf("notes", "alice"), scopeOf("notes", "bob"), scopeOf("articles")]) {
        await seed(store(), scope, [{}, {}]);
        await store().delete(scope, "r0");
      }
      expect(await store().purgeTombstones(undefined)).to.equal(3);
      expect(await store().list(scopeOf("notes", "bob"), listQuery({ includeDeleted: true }))).to.have.length(1);
    });

    it("keeps timestamps increasing after purging every tombstone", async () => {
      await store().create(articles, "a1", {});
      const tombstone = await store().delete(articles, "a1");
      await store().purgeTombstones(articles);
      expect(await store().collectionTimestamp(articles)).to.be.at.least(tombstone.lastModified);
      expect((await store().create(articles, "a2", {})).lastModified).to.be.greaterThan(tombstone.lastModified);
    });
  });

  describe("housekeeping", () => {
    it("flushes records and tombstones of every scope", async () => {
      await seed(store(), articles, [{}, {}]);
      await store().delete(articles, "r0");
      await seed(store(), scopeOf("notes", "alice"), [{}]);
      await store().flush();
      expect(await store().list(articles, listQuery({ includeDeleted: true }))).to.deep.equal([]);
      expect(await store().count(scopeOf("notes", "alice"), countQuery())).to.equal(0);
      expect(await store().create(articles, "r0", {})).to.have.property("id", "r0");
    });

    it("answers the heartbeat", async () => {
      expect(await store().heartbeat()).to.equal(true);
    });

    it("initialises its schema idempotently, keeping data", async () => {
      await store().create(articles, "a1", { v: 1 });
      await store().initializeSchema();
      await store().initializeSchema();
      expect((await store().get(articles, "a1"))?.data).to.deep.equal({ v: 1 });
    });
  });
}
