/**
 * Contract: the timestamp and lost-access rules hold for writes made inside a unit of work as
 * they do alone. On PostgreSQL a write inside a transaction without its scope's group clock (a
 * batch; every write when permissions live elsewhere, as with Redis) bumps the counter in its own
 * statement, and a scoped unit of work takes the group's clock: each way is a separate code path.
 * The counter is put ahead of every clock first (a client-requested future timestamp), so a clock
 * reading never hides a counter that did not move (as two writes in one millisecond would).
 */
import { expect } from "chai";
import type { Scope } from "../../../src/application/ports/record-store.js";
import { PreconditionFailedError } from "../../../src/domain/errors.js";
import { countQuery, expectStrictlyIncreasing, idsOf, listQuery, rejection, scopeOf, type StoreRef } from "./fixture.js";

/** A way to run store calls inside a unit of work, as the adapter's composition does. */
export interface UnitOfWorkRunner {
  readonly name: string;
  run<T>(work: () => Promise<T>, scope: Scope): Promise<T>;
}

/** An hour ahead of every clock: the counter stays ahead of the clock for the whole test. */
function aheadOfClock(): number {
  return Date.now() + 3_600_000;
}

export function inTransactionCases(store: StoreRef, runners: readonly UnitOfWorkRunner[]): void {
  const articles = scopeOf("articles");

  for (const unit of runners) {
    describe(`inside ${unit.name}`, () => {
      it("stamps each write, one per unit of work, above a counter ahead of the clock", async () => {
        const ahead = aheadOfClock();
        const first = await unit.run(() => store().create(articles, "a1", {}, { lastModified: ahead }), articles);
        expect(first.lastModified).to.equal(ahead);
        const created = await unit.run(() => store().create(articles, "a2", {}), articles);
        const updated = await unit.run(() => store().update(articles, "a1", { v: 2 }), articles);
        const deleted = await unit.run(() => store().delete(articles, "a2"), articles);
        expectStrictlyIncreasing([ahead, created.lastModified, updated.lastModified, deleted.lastModified]);
        expect(await store().collectionTimestamp(articles)).to.equal(deleted.lastModified);
      });

      it("stamps every write of one unit of work (a batch) strictly increasing above a counter ahead of the clock", async () => {
        const ahead = aheadOfClock();
        const stamps = await unit.run(async () => {
          const first = await store().create(articles, "a1", {}, { lastModified: ahead });
          const second = await store().create(articles, "a2", {});
          const third = await store().update(articles, "a1", { v: 2 });
          const fourth = await store().update(articles, "a2", { v: 2 }, { lastModified: ahead });
          const fifth = await store().delete(articles, "a1");
          return [first, second, third, fourth, fifth].map((w) => w.lastModified);
        }, articles);
        expect(stamps[0]).to.equal(ahead);
        expectStrictlyIncreasing(stamps);
        expect(await store().collectionTimestamp(articles)).to.equal(stamps[4]);
        const listed = await store().list(articles, listQuery({ includeDeleted: true }));
        expect(listed.map((e) => [e.id, e.lastModified])).to.deep.equal([
          ["a2", stamps[3]],
          ["a1", stamps[4]],
        ]);
      });

      it("ignores a requested timestamp equal to the collection timestamp, and honours one above it", async () => {
        const first = await unit.run(() => store().create(articles, "a1", {}), articles);
        const equal = await unit.run(() => store().create(articles, "a2", {}, { lastModified: first.lastModified }), articles);
        expect(equal.lastModified).to.be.greaterThan(first.lastModified);
        // Ahead of the clock: honoured whatever time the writes below take (the last one, above
        // the counter by 99 only while the clock has not passed it, once failed on a loaded machine).
        const above = aheadOfClock();
        const honoured = await unit.run(() => store().update(articles, "a1", { v: 2 }, { lastModified: above }), articles);
        expect(honoured.lastModified).to.equal(above);
        const again = await unit.run(() => store().update(articles, "a2", { v: 2 }, { lastModified: above }), articles);
        expect(again.lastModified).to.be.greaterThan(above);
        const deleted = await unit.run(() => store().delete(articles, "a2", { lastModified: above + 100 }), articles);
        expect(deleted.lastModified).to.equal(above + 100);
        expect(await store().collectionTimestamp(articles)).to.equal(above + 100);
      });

      it("refuses an update or a deletion whose ifMatch is not the record's timestamp", async () => {
        const created = await unit.run(() => store().create(articles, "a1", { v: 1 }), articles);
        await rejection(
          unit.run(() => store().update(articles, "a1", { v: 2 }, { ifMatch: created.lastModified - 1 }), articles),
          PreconditionFailedError,
        );
        await rejection(
          unit.run(() => store().delete(articles, "a1", { ifMatch: created.lastModified - 1 }), articles),
          PreconditionFailedError,
        );
        expect(await store().get(articles, "a1")).to.deep.include({ lastModified: created.lastModified, data: { v: 1 } });
        const updated = await unit.run(() => store().update(articles, "a1", { v: 3 }, { ifMatch: created.lastModified }), articles);
        expect(updated.lastModified).to.be.greaterThan(created.lastModified);
      });

      it("stamps a bulk deletion above a counter ahead of the clock, one timestamp per record", async () => {
        const ahead = aheadOfClock();
        await store().create(articles, "a1", {}, { lastModified: ahead });
        await store().create(articles, "a2", {});
        const tombstones = await unit.run(() => store().deleteMany(articles, countQuery()), articles);
        expect(idsOf(tombstones)).to.deep.equal(["a1", "a2"]);
        const stamps = tombstones.map((t) => t.lastModified);
        expectStrictlyIncreasing([ahead + 1, ...stamps]);
        expect(await store().collectionTimestamp(articles)).to.equal(stamps[1]);
      });
    });
  }
}
