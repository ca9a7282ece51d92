/** Contract: strictly increasing per-scope timestamps, collection timestamps, client values. */
import { expect } from "chai";
import { expectStrictlyIncreasing, scopeOf, sleep, type StoreRef } from "./fixture.js";

export function timestampCases(store: StoreRef): void {
  const articles = scopeOf("articles");

  describe("timestamps", () => {
    it("stamps writes with the current time in milliseconds", async () => {
      const before = Date.now();
      const created = await store().create(articles, "a1", {});
      const after = Date.now();
      // The database may decide with its own clock: allow a little skew.
      expect(created.lastModified).to.be.within(before - 2000, after + 2000);
    });

    it("gives a write whose clock reads at or behind the collection timestamp a greater one", async () => {
      // The first write's timestamp is set an hour ahead of every clock, so the clock reading of
      // the writes that follow is behind it (as a second write in the same millisecond is at it).
      const ahead = Date.now() + 3_600_000;
      const first = await store().create(articles, "a1", {}, { lastModified: ahead });
      expect(first.lastModified).to.equal(ahead);
      const second = await store().create(articles, "a2", {});
      const third = await store().update(articles, "a1", { v: 2 });
      const fourth = await store().delete(articles, "a2");
      expectStrictlyIncreasing([ahead, second.lastModified, third.lastModified, fourth.lastModified]);
      expect(await store().collectionTimestamp(articles)).to.equal(fourth.lastModified);
    });

    it("keeps timestamps strictly increasing over many quick writes of every kind", async () => {
      const stamps: number[] = [];
      for (let i = 0; i < 60; i += 1) stamps.push((await store().create(articles, `a${i}`, { i })).lastModified);
      for (let i = 0; i < 60; i += 2) stamps.push((await store().update(articles, `a${i}`, { i, again: true })).lastModified);
      for (let i = 1; i < 60; i += 2) stamps.push((await store().delete(articles, `a${i}`)).lastModified);
      expectStrictlyIncreasing(stamps);
    });

    it("gives concurrent writes to one scope distinct timestamps", async () => {
      const created = await Promise.all(Array.from({ length: 30 }, (_, i) => store().create(articles, `c${i}`, { i })));
      const stamps = created.map((r) => r.lastModified);
      expect(new Set(stamps).size).to.equal(stamps.length);
      expect(await store().collectionTimestamp(articles)).to.equal(Math.max(...stamps));
    });

    it("keeps each scope's sequence increasing when writes interleave across scopes", async () => {
      const scopes = [scopeOf("articles"), scopeOf("comments"), scopeOf("notes", "alice"), scopeOf("notes", "bob")];
      const stamps = new Map<string, number[]>(scopes.map((s) => [`${s.collection}/${s.parentId}`, []]));
      for (let i = 0; i < 25; i += 1) {
        for (const scope of scopes)
          stamps.get(`${scope.collection}/${scope.parentId}`)!.push((await store().create(scope, `r${i}`, {})).lastModified);
      }
      for (const scope of scopes) {
        const sequence = stamps.get(`${scope.collection}/${scope.parentId}`)!;
        expectStrictlyIncreasing(sequence);
        expect(await store().collectionTimestamp(scope)).to.equal(sequence[sequence.length - 1]);
      }
    });

    it("gives a never-written scope the constant 0, stable across reads", async () => {
      const first = await store().collectionTimestamp(articles);
      await sleep(5);
      const second = await store().collectionTimestamp(articles);
      // api-contract: stable until a write; 0 needs nothing stored, so a read creates nothing.
      expect([first, second]).to.deep.equal([0, 0]);
    });

    it("stamps the first write of a scope above its already-read timestamp", async () => {
      const empty = await store().collectionTimestamp(articles);
      const created = await store().create(articles, "a1", {});
      expect(created.lastModified).to.be.greaterThan(empty);
      expect(await store().collectionTimestamp(articles)).to.equal(created.lastModified);
    });

    it("bumps the collection timestamp on create, update and delete to the written timestamp", async () => {
      const t0 = await store().collectionTimestamp(articles);
      const created = await store().create(articles, "a1", {});
      const t1 = await store().collectionTimestamp(articles);
      const updated = await store().update(articles, "a1", { v: 2 });
      const t2 = await store().collectionTimestamp(articles);
      const tombstone = await store().delete(articles, "a1");
      const t3 = await store().collectionTimestamp(articles);
      expect([t1, t2, t3]).to.deep.equal([created.lastModified, updated.lastModified, tombstone.lastModified]);
      expectStrictlyIncreasing([t0, t1, t2, t3]);
    });

    it("keeps the collection timestamp stable between writes", async () => {
      const created = await store().create(articles, "a1", {});
      await sleep(5);
      expect(await store().collectionTimestamp(articles)).to.equal(created.lastModified);
      expect(await store().collectionTimestamp(articles)).to.equal(created.lastModified);
    });

    it("does not move a scope's timestamp when another parent or collection is written", async () => {
      const alice = scopeOf("notes", "alice");
      const before = await store().collectionTimestamp(alice);
      await sleep(3);
      await store().create(scopeOf("notes", "bob"), "n1", {});
      await store().create(scopeOf("other", "alice"), "n1", {});
      expect(await store().collectionTimestamp(alice)).to.equal(before);
    });
  });

  describe("client-requested timestamps", () => {
    it("honours a requested timestamp above the collection timestamp on create", async () => {
      const first = await store().create(articles, "a1", {});
      const wanted = first.lastModified + 10_000;
      const created = await store().create(articles, "a2", {}, { lastModified: wanted });
      expect(created.lastModified).to.equal(wanted);
      expect(await store().collectionTimestamp(articles)).to.equal(wanted);
    });

    it("honours a requested timestamp on the first write of a never-read scope", async () => {
      const created = await store().create(articles, "a1", {}, { lastModified: 1448881675541 });
      expect(created.lastModified).to.equal(1448881675541);
      expect(await store().collectionTimestamp(articles)).to.equal(1448881675541);
    });

    it("ignores a requested timestamp below the collection timestamp", async () => {
      const first = await store().create(articles, "a1", {});
      const created = await store().create(articles, "a2", {}, { lastModified: first.lastModified - 10 });
      expect(created.lastModified).to.be.greaterThan(first.lastModified);
      expect(await store().collectionTimestamp(articles)).to.equal(created.lastModified);
    });

    it("ignores a requested timestamp equal to the collection timestamp", async () => {
      const first = await store().create(articles, "a1", {});
      const created = await store().create(articles, "a2", {}, { lastModified: first.lastModified });
      expect(created.lastModified).to.be.greaterThan(first.lastModified);
    });

    it("honours a newer requested timestamp on update and ignores an older one", async () => {
      const created = await store().create(articles, "a1", {});
      const future = await store().update(articles, "a1", { v: 1 }, { lastModified: created.lastModified + 5000 });
      expect(future.lastModified).to.equal(created.lastModified + 5000);
      const past = await store().update(articles, "a1", { v: 2 }, { lastModified: created.lastModified });
      expect(past.lastModified).to.be.greaterThan(future.lastModified);
      expect(await store().collectionTimestamp(articles)).to.equal(past.lastModified);
    });

    it("honours a newer requested timestamp on delete and ignores an equal one", async () => {
      const created = await store().create(articles, "a1", {});
      const tombstone = await store().delete(articles, "a1", { lastModified: created.lastModified + 10 });
      expect(tombstone.lastModified).to.equal(created.lastModified + 10);
      await store().create(articles, "a2", {});
      const ts = await store().collectionTimestamp(articles);
      const second = await store().delete(articles, "a2", { lastModified: ts });
      expect(second.lastModified).to.be.greaterThan(ts);
    });

    it("keeps stamping above a far-future requested timestamp afterwards", async () => {
      const future = Date.now() + 3_600_000;
      await store().create(articles, "a1", {}, { lastModified: future });
      const next = await store().create(articles, "a2", {});
      expect(next.lastModified).to.be.greaterThan(future);
    });
  });
}
