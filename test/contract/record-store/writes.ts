/** Contract: create, get, update, delete, conflicts, preconditions and scope isolation. */
import { expect } from "chai";
import { ConflictError, PreconditionFailedError, RecordNotFoundError } from "../../../src/domain/errors.js";
import { idsOf, listQuery, plain, rejection, scopeOf, type StoreRef } from "./fixture.js";

export function writeCases(store: StoreRef): void {
  const articles = scopeOf("articles");

  describe("create and get", () => {
    it("returns the created record with its id, data and a timestamp", async () => {
      const created = await store().create(articles, "a1", { title: "Hello" });
      expect(created.id).to.equal("a1");
      expect(created.data).to.deep.equal({ title: "Hello" });
      expect(created.lastModified).to.be.a("number");
      expect(Number.isSafeInteger(created.lastModified)).to.equal(true);
    });

    it("gets back exactly what was created", async () => {
      const created = await store().create(articles, "a1", { title: "Hello", tags: ["x"], meta: { n: 1.5, ok: true, nothing: null } });
      expect(plain(await store().get(articles, "a1"))).to.deep.equal(plain(created));
    });

    it("stores nested JSON values, unicode and empty containers unchanged", async () => {
      const data = {
        name: "Rémy 🦊",
        nested: { deep: { list: [1, "two", null, { three: [] }] } },
        empty: {},
        none: [],
        zero: 0,
        neg: -12.25,
      };
      await store().create(articles, "a1", data);
      expect((await store().get(articles, "a1"))?.data).to.deep.equal(data);
    });

    it("accepts an empty data object", async () => {
      await store().create(articles, "a1", {});
      expect((await store().get(articles, "a1"))?.data).to.deep.equal({});
    });

    it("accepts unicode collection names and parent ids", async () => {
      const scope = scopeOf("Rémy", "utilisateur-été");
      await store().create(scope, "a1", { x: 1 });
      expect((await store().get(scope, "a1"))?.data).to.deep.equal({ x: 1 });
    });

    it("does not modify the data object the caller passed", async () => {
      const data = { title: "Hello" };
      await store().create(articles, "a1", data);
      expect(data).to.deep.equal({ title: "Hello" });
    });

    it("gives undefined for a missing record", async () => {
      expect(await store().get(articles, "nope")).to.equal(undefined);
    });

    it("refuses a second live record with the same id, reporting the existing body", async () => {
      const first = await store().create(articles, "a1", { title: "first" });
      const error = await rejection(store().create(articles, "a1", { title: "second" }), ConflictError);
      expect(error.existing).to.deep.equal({ title: "first", id: "a1", last_modified: first.lastModified });
      expect((await store().get(articles, "a1"))?.data).to.deep.equal({ title: "first" });
    });

    it("lets two parents own the same id independently", async () => {
      const alice = scopeOf("notes", "alice");
      const bob = scopeOf("notes", "bob");
      await store().create(alice, "n1", { owner: "alice" });
      await store().create(bob, "n1", { owner: "bob" });
      expect((await store().get(alice, "n1"))?.data).to.deep.equal({ owner: "alice" });
      expect((await store().get(bob, "n1"))?.data).to.deep.equal({ owner: "bob" });
    });

    it("lets two collections own the same id independently", async () => {
      await store().create(scopeOf("one"), "x", { in: "one" });
      await store().create(scopeOf("two"), "x", { in: "two" });
      expect((await store().get(scopeOf("one"), "x"))?.data).to.deep.equal({ in: "one" });
      expect((await store().get(scopeOf("two"), "x"))?.data).to.deep.equal({ in: "two" });
    });

    it("hides a record from other parents of the same collection", async () => {
      await store().create(scopeOf("notes", "alice"), "n1", { secret: true });
      expect(await store().get(scopeOf("notes", "bob"), "n1")).to.equal(undefined);
      expect(await store().get(scopeOf("notes", ""), "n1")).to.equal(undefined);
      expect(await store().list(scopeOf("notes", "bob"), listQuery({ includeDeleted: true }))).to.deep.equal([]);
    });
  });

  describe("isolation and concurrency", () => {
    it("is not affected by changes to returned records or to the data passed in", async () => {
      const data = { tags: ["x"], meta: { n: 1 } };
      const created = await store().create(articles, "a1", data);
      data.meta.n = 2;
      (created.data.tags as string[]).push("y");
      const fetched = await store().get(articles, "a1");
      (fetched?.data.meta as { n: number }).n = 3;
      expect((await store().get(articles, "a1"))?.data).to.deep.equal({ tags: ["x"], meta: { n: 1 } });
    });

    it("lets only one of two concurrent creates with the same id succeed", async () => {
      const results = await Promise.allSettled([store().create(articles, "a1", { v: 1 }), store().create(articles, "a1", { v: 2 })]);
      expect(results.filter((r) => r.status === "fulfilled")).to.have.length(1);
      const failure = results.find((r) => r.status === "rejected");
      expect(failure?.reason).to.be.instanceOf(ConflictError);
    });

    it("lets only one of two concurrent updates with the same ifMatch succeed", async () => {
      const created = await store().create(articles, "a1", { v: 0 });
      const ifMatch = created.lastModified;
      const results = await Promise.allSettled([
        store().update(articles, "a1", { v: 1 }, { ifMatch }),
        store().update(articles, "a1", { v: 2 }, { ifMatch }),
      ]);
      const won = results.filter((r) => r.status === "fulfilled");
      expect(won).to.have.length(1);
      expect(results.find((r) => r.status === "rejected")?.reason).to.be.instanceOf(PreconditionFailedError);
      expect(plain(await store().get(articles, "a1"))).to.deep.equal(plain(won[0]?.value));
    });

    it("answers a never-written scope with nothing to find, list, count, delete or purge", async () => {
      const empty = scopeOf("never", "nobody");
      expect(await store().get(empty, "x")).to.equal(undefined);
      expect(await store().list(empty, listQuery({ includeDeleted: true }))).to.deep.equal([]);
      expect(await store().count(empty, { filters: [] })).to.equal(0);
      expect(await store().deleteMany(empty, { filters: [] })).to.deep.equal([]);
      expect(await store().purgeTombstones(empty)).to.equal(0);
    });
  });

  describe("update", () => {
    it("replaces the whole data and gives a newer timestamp", async () => {
      const created = await store().create(articles, "a1", { title: "old", extra: 1 });
      const updated = await store().update(articles, "a1", { title: "new" });
      expect(updated.id).to.equal("a1");
      expect(updated.data).to.deep.equal({ title: "new" });
      expect(updated.lastModified).to.be.greaterThan(created.lastModified);
      expect(plain(await store().get(articles, "a1"))).to.deep.equal(plain(updated));
    });

    it("fails with RecordNotFoundError when the record does not exist", async () => {
      await rejection(store().update(articles, "nope", { a: 1 }), RecordNotFoundError);
      expect(await store().get(articles, "nope")).to.equal(undefined);
    });

    it("fails with RecordNotFoundError when the record is deleted", async () => {
      await store().create(articles, "a1", { a: 1 });
      await store().delete(articles, "a1");
      await rejection(store().update(articles, "a1", { a: 2 }), RecordNotFoundError);
    });

    it("does not reach a record of another parent", async () => {
      await store().create(scopeOf("notes", "alice"), "n1", { v: 1 });
      await rejection(store().update(scopeOf("notes", "bob"), "n1", { v: 2 }), RecordNotFoundError);
      expect((await store().get(scopeOf("notes", "alice"), "n1"))?.data).to.deep.equal({ v: 1 });
    });

    it("fails the precondition (not 'not found') when ifMatch is given and the record is gone", async () => {
      const created = await store().create(articles, "a1", { a: 1 });
      await store().delete(articles, "a1");
      const ifMatch = created.lastModified;
      expect((await rejection(store().update(articles, "a1", { a: 2 }, { ifMatch }), PreconditionFailedError)).existing).to.equal(null);
      expect((await rejection(store().delete(articles, "a1", { ifMatch }), PreconditionFailedError)).existing).to.equal(null);
      await rejection(store().update(articles, "never", { a: 2 }, { ifMatch }), PreconditionFailedError);
    });

    it("writes when ifMatch equals the stored timestamp", async () => {
      const created = await store().create(articles, "a1", { v: 1 });
      const updated = await store().update(articles, "a1", { v: 2 }, { ifMatch: created.lastModified });
      expect(updated.data).to.deep.equal({ v: 2 });
    });

    it("refuses a stale ifMatch with the current body and leaves the record unchanged", async () => {
      const created = await store().create(articles, "a1", { v: 1 });
      const error = await rejection(
        store().update(articles, "a1", { v: 2 }, { ifMatch: created.lastModified - 1 }),
        PreconditionFailedError,
      );
      expect(error.existing).to.deep.equal({ v: 1, id: "a1", last_modified: created.lastModified });
      expect(plain(await store().get(articles, "a1"))).to.deep.equal(plain(created));
    });
  });

  describe("delete", () => {
    it("returns a tombstone with only id, a newer timestamp and deleted: true", async () => {
      const created = await store().create(articles, "a1", { title: "bye" });
      const tombstone = await store().delete(articles, "a1");
      expect(tombstone).to.deep.equal({ id: "a1", lastModified: tombstone.lastModified, deleted: true });
      expect(tombstone.lastModified).to.be.greaterThan(created.lastModified);
      expect(await store().get(articles, "a1")).to.equal(undefined);
    });

    it("fails with RecordNotFoundError when the record does not exist", async () => {
      await rejection(store().delete(articles, "nope"), RecordNotFoundError);
    });

    it("fails with RecordNotFoundError when deleting twice", async () => {
      await store().create(articles, "a1", {});
      await store().delete(articles, "a1");
      await rejection(store().delete(articles, "a1"), RecordNotFoundError);
    });

    it("does not reach a record of another parent", async () => {
      await store().create(scopeOf("notes", "alice"), "n1", {});
      await rejection(store().delete(scopeOf("notes", "bob"), "n1"), RecordNotFoundError);
      expect(await store().get(scopeOf("notes", "alice"), "n1")).to.not.equal(undefined);
    });

    it("deletes when ifMatch equals the stored timestamp", async () => {
      const created = await store().create(articles, "a1", {});
      await store().delete(articles, "a1", { ifMatch: created.lastModified });
      expect(await store().get(articles, "a1")).to.equal(undefined);
    });

    it("refuses a stale ifMatch with the current body and keeps the record", async () => {
      const created = await store().create(articles, "a1", { v: 1 });
      const error = await rejection(store().delete(articles, "a1", { ifMatch: created.lastModified + 1 }), PreconditionFailedError);
      expect(error.existing).to.deep.equal({ v: 1, id: "a1", last_modified: created.lastModified });
      expect(plain(await store().get(articles, "a1"))).to.deep.equal(plain(created));
    });

    it("recreates over a tombstone, replacing it with a newer record", async () => {
      await store().create(articles, "a1", { v: 1 });
      const tombstone = await store().delete(articles, "a1");
      const again = await store().create(articles, "a1", { v: 2 });
      expect(again.lastModified).to.be.greaterThan(tombstone.lastModified);
      const all = await store().list(articles, listQuery({ includeDeleted: true }));
      expect(all).to.have.length(1);
      expect(all[0]?.deleted).to.not.equal(true);
      expect(await store().count(articles, { filters: [] })).to.equal(1);
    });

    it("gives a fresh tombstone timestamp when a recreated record is deleted again", async () => {
      await store().create(articles, "a1", {});
      const first = await store().delete(articles, "a1");
      await store().create(articles, "a1", {});
      const second = await store().delete(articles, "a1");
      expect(second.lastModified).to.be.greaterThan(first.lastModified);
      expect(idsOf(await store().list(articles, listQuery({ includeDeleted: true })))).to.deep.equal(["a1"]);
    });
  });
}
