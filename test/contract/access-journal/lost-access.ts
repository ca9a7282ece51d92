/**
 * Contract: lost read access (docs/adr/0011). Principals the journal records as having lost a
 * record see it as a tombstone in the record store's listings restricted by an access naming
 * them, while they cannot read it, with filters, bounds, sorting, keyset pages and counts as for
 * other entries.
 */
import { expect } from "chai";
import type { RecordAccess } from "../../../src/application/listing.js";
import type { AccessJournal } from "../../../src/application/ports/access-journal.js";
import type { RecordStore, Scope } from "../../../src/application/ports/record-store.js";
import { countQuery, cursorOf, desc, filter, idsOf, LM_ASC, listQuery, scopeOf, seed, walkPages } from "../record-store/fixture.js";
import type { JournalRef } from "./fixture.js";

/**
 * Losses as SharedRecords records them: each with a write of its record (same data), at that
 * write's timestamp; the stamps of the losses that name principals, in order.
 */
export async function loseByWrite(
  { records, journal }: { readonly records: RecordStore; readonly journal: AccessJournal },
  scope: Scope,
  losses: readonly { id: string; principals: readonly string[] }[],
): Promise<number[]> {
  const stamps: number[] = [];
  for (const { id, principals } of losses) {
    if (principals.length === 0) continue;
    const written = await records.update(scope, id, (await records.get(scope, id))?.data ?? {});
    await journal.recordLostAccessAt(scope, [{ id, lastModified: written.lastModified, principals }]);
    stamps.push(written.lastModified);
  }
  return stamps;
}

export function lostAccessCases({ store, journal }: JournalRef): void {
  const both = () => ({ records: store(), journal: journal() });
  const articles = scopeOf("articles");
  const bob = (ids: string[], principals = ["bob", "system.Everyone"]): RecordAccess => ({ ids, principals });

  describe("lost access", () => {
    it("records a loss at the timestamp of the write that caused it, even after later writes, without moving the collection timestamp", async () => {
      await seed(store(), articles, [{}, {}]);
      const tombstone = await store().delete(articles, "r0");
      const later = await store().update(articles, "r1", { v: 2 });
      await journal().recordLostAccessAt(articles, [
        { id: "r0", lastModified: tombstone.lastModified, principals: ["bob", "carol"] },
        { id: "r1", lastModified: later.lastModified, principals: [] },
      ]);
      expect(await store().collectionTimestamp(articles)).to.equal(later.lastModified);
      expect(await store().list(articles, listQuery({ access: bob(["r1"]), includeDeleted: true }))).to.deep.equal([
        { id: "r0", lastModified: tombstone.lastModified, deleted: true },
        { id: "r1", lastModified: later.lastModified, data: { v: 2 } },
      ]);
      const after = await journal().lostAccessAfter(articles, tombstone.lastModified - 1);
      expect(after.map((l) => ({ ...l, principals: [...l.principals].sort() }))).to.deep.equal([
        { id: "r0", lastModified: tombstone.lastModified, principals: ["bob", "carol"] },
      ]);
      expect(await journal().lostAccessAfter(articles, tombstone.lastModified)).to.deep.equal([]);
    });

    it("lists a lost record as a tombstone to its former readers only, and only with includeDeleted", async () => {
      await seed(store(), articles, [{ t: "a" }, { t: "b" }]);
      const [lostAt] = await loseByWrite(both(), articles, [{ id: "r0", principals: ["bob"] }]);
      expect(await store().list(articles, listQuery({ access: bob(["r1"]), includeDeleted: true }))).to.deep.equal([
        { id: "r1", lastModified: (await store().get(articles, "r1"))?.lastModified, data: { t: "b" } },
        { id: "r0", lastModified: lostAt, deleted: true },
      ]);
      expect(idsOf(await store().list(articles, listQuery({ access: bob(["r1"]) })))).to.deep.equal(["r1"]);
      expect(idsOf(await store().list(articles, listQuery({ access: bob(["r1"], ["carol"]), includeDeleted: true })))).to.deep.equal([
        "r1",
      ]);
      expect(idsOf(await store().list(articles, listQuery({ access: { ids: ["r1"] }, includeDeleted: true })))).to.deep.equal(["r1"]);
      // Collection-level readers see live records as they are (r0 at the write that lost it).
      expect(idsOf(await store().list(articles, listQuery({ includeDeleted: true })))).to.deep.equal(["r1", "r0"]);
    });

    it("never shows a tombstone for a record the caller can read now, through any principal", async () => {
      await seed(store(), articles, [{}]);
      await loseByWrite(both(), articles, [{ id: "r0", principals: ["bob"] }]);
      const listed = await store().list(articles, listQuery({ access: bob(["r0"]), includeDeleted: true }));
      expect(listed.map((e) => [e.id, e.deleted === true])).to.deep.equal([["r0", false]]);
    });

    it("shows a deleted record's loss at the newest loss of any of the caller's principals", async () => {
      await seed(store(), articles, [{}, {}]);
      const tombstone = await store().delete(articles, "r0");
      // Losses of r0 recorded at the stamps of writes of the scope (here, of r1).
      const lostAt = async (principal: string) => {
        const write = await store().update(articles, "r1", {});
        await journal().recordLostAccessAt(articles, [{ id: "r0", lastModified: write.lastModified, principals: [principal] }]);
        return write.lastModified;
      };
      await journal().recordLostAccessAt(articles, [{ id: "r0", lastModified: tombstone.lastModified, principals: ["bob"] }]);
      const second = await lostAt("group:x");
      const listed = await store().list(articles, listQuery({ access: bob([], ["bob", "group:x"]), includeDeleted: true }));
      expect(listed).to.deep.equal([{ id: "r0", lastModified: second, deleted: true }]);
      const onlyBob = await store().list(articles, listQuery({ access: bob([], ["bob"]), includeDeleted: true }));
      expect(onlyBob).to.deep.equal([{ id: "r0", lastModified: tombstone.lastModified, deleted: true }]);
      // Losing it again moves the entry forward.
      const again = await lostAt("bob");
      expect(await store().list(articles, listQuery({ access: bob([], ["bob"]), includeDeleted: true }))).to.deep.equal([
        { id: "r0", lastModified: again, deleted: true },
      ]);
    });

    it("applies filters, upTo and `_since`-style bounds to the lost tombstones", async () => {
      await seed(store(), articles, [{}, {}, {}]);
      const stamps = await loseByWrite(
        both(),
        articles,
        ["r0", "r1", "r2"].map((id) => ({ id, principals: ["bob"] })),
      );
      const access = bob([]);
      const since = await store().list(
        articles,
        listQuery({ access, includeDeleted: true, filters: [filter("last_modified", "gt", stamps[0]!)] }),
      );
      expect(idsOf(since)).to.deep.equal(["r1", "r2"]);
      const bounded = await store().list(
        articles,
        listQuery({ access, includeDeleted: true, filters: [filter("last_modified", "gt", stamps[0]!)], upTo: stamps[1] }),
      );
      expect(idsOf(bounded)).to.deep.equal(["r1"]);
      const from = await store().list(
        articles,
        listQuery({ access, includeDeleted: true, filters: [filter("last_modified", "min", stamps[1]!)] }),
      );
      expect(idsOf(from)).to.deep.equal(["r1", "r2"]);
      expect(
        idsOf(
          await store().list(
            articles,
            listQuery({ access, includeDeleted: true, filters: [filter("deleted", "eq", true), filter("id", "in", ["r0", "r2"])] }),
          ),
        ),
      ).to.deep.equal(["r0", "r2"]);
      expect(
        await store().list(articles, listQuery({ access, includeDeleted: true, filters: [filter("title", "eq", "x")] })),
      ).to.deep.equal([]);
    });

    it("bounds the lost tombstones by upTo to the millisecond: a loss one past it is left out", async () => {
      await seed(store(), articles, [{}, {}]);
      const [upTo] = await loseByWrite(both(), articles, [{ id: "r0", principals: ["bob"] }]);
      // The next loss stamped exactly one millisecond after the bound (a requested timestamp).
      const next = await store().update(articles, "r1", {}, { lastModified: upTo! + 1 });
      expect(next.lastModified).to.equal(upTo! + 1);
      await journal().recordLostAccessAt(articles, [{ id: "r1", lastModified: next.lastModified, principals: ["bob"] }]);
      const bounded = await store().list(articles, listQuery({ access: bob([]), includeDeleted: true, upTo }));
      expect(idsOf(bounded)).to.deep.equal(["r0"]);
      expect(idsOf(await store().list(articles, listQuery({ access: bob([]), includeDeleted: true, upTo: upTo! + 1 })))).to.deep.equal([
        "r0",
        "r1",
      ]);
    });

    it("filters a record lost by several of the caller's principals at its newest loss only", async () => {
      await seed(store(), articles, [{}]);
      const [first] = await loseByWrite(both(), articles, [{ id: "r0", principals: ["bob"] }]);
      const [newest] = await loseByWrite(both(), articles, [{ id: "r0", principals: ["system.Everyone"] }]);
      const listed = (operator: "lt" | "max" | "eq", value: number) =>
        store().list(articles, listQuery({ access: bob([]), includeDeleted: true, filters: [filter("last_modified", operator, value)] }));
      expect(await listed("lt", newest!)).to.deep.equal([]);
      expect(await listed("eq", first!)).to.deep.equal([]);
      expect(await listed("max", newest!)).to.deep.equal([{ id: "r0", lastModified: newest, deleted: true }]);
    });

    it("keeps the lost tombstones a data field's gt or min keeps (a missing field is above every value)", async () => {
      await seed(store(), articles, [{}, {}]);
      await loseByWrite(both(), articles, [{ id: "r0", principals: ["bob"] }]);
      for (const operator of ["gt", "min"] as const) {
        const listed = await store().list(
          articles,
          listQuery({ access: bob(["r1"]), includeDeleted: true, filters: [filter("price", operator, Number.MAX_SAFE_INTEGER)] }),
        );
        expect(idsOf(listed), operator).to.deep.equal(["r1", "r0"]);
      }
    });

    it("walks live records and lost tombstones together in sort order with keyset pages", async () => {
      await seed(
        store(),
        articles,
        Array.from({ length: 8 }, (_, i) => ({ n: i })),
      );
      await loseByWrite(
        both(),
        articles,
        ["r1", "r3", "r4", "r6"].map((id) => ({ id, principals: ["bob"] })),
      );
      const access = bob(["r0", "r2", "r5", "r7", "r4"]);
      for (const sort of [[LM_ASC], [desc("n"), desc("last_modified")], [{ field: "id", descending: false }, LM_ASC]]) {
        const whole = await store().list(articles, listQuery({ access, includeDeleted: true, sort }));
        expect(idsOf(whole).sort()).to.deep.equal(["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"]);
        expect(
          whole
            .filter((e) => e.deleted)
            .map((e) => e.id)
            .sort(),
        ).to.deep.equal(["r1", "r3", "r6"]);
        const walked = await walkPages(store(), articles, listQuery({ access, includeDeleted: true, sort, limit: 3 }));
        expect(walked).to.deep.equal(whole);
      }
      const first = await store().list(articles, listQuery({ access, includeDeleted: true, limit: 2 }));
      const rest = await store().list(articles, listQuery({ access, includeDeleted: true, after: cursorOf(first[1]!, [LM_ASC]) }));
      expect(idsOf([...first, ...rest])).to.have.length(8);
    });

    it("never counts lost tombstones", async () => {
      await seed(store(), articles, [{}, {}]);
      await loseByWrite(both(), articles, [{ id: "r0", principals: ["bob"] }]);
      expect(await store().count(articles, countQuery({ access: bob(["r1"]) }))).to.equal(1);
    });

    it("stays inside its scope", async () => {
      await seed(store(), articles, [{}]);
      await loseByWrite(both(), articles, [{ id: "r0", principals: ["bob"] }]);
      expect(await store().list(scopeOf("other"), listQuery({ access: bob([]), includeDeleted: true }))).to.deep.equal([]);
    });

    it("is purged in the scope given only", async () => {
      const other = scopeOf("other");
      await seed(store(), articles, [{}]);
      await seed(store(), other, [{}]);
      await loseByWrite(both(), articles, [{ id: "r0", principals: ["bob"] }]);
      await loseByWrite(both(), other, [{ id: "r0", principals: ["bob"] }]);
      expect(await journal().purge(articles)).to.equal(1);
      expect(idsOf(await store().list(other, listQuery({ access: bob([]), includeDeleted: true })))).to.deep.equal(["r0"]);
      expect(await store().list(articles, listQuery({ access: bob([]), includeDeleted: true }))).to.deep.equal([]);
    });

    it("is removed by purge (older than `before`, or all) and by flush", async () => {
      await seed(store(), articles, [{}, {}]);
      const [old] = await loseByWrite(both(), articles, [{ id: "r0", principals: ["bob", "carol"] }]);
      const [recent] = await loseByWrite(both(), articles, [{ id: "r1", principals: ["bob"] }]);
      expect(await journal().purge(undefined, recent)).to.equal(2);
      expect(idsOf(await store().list(articles, listQuery({ access: bob([]), includeDeleted: true })))).to.deep.equal(["r1"]);
      expect(old).to.be.lessThan(recent!);
      expect(await journal().purge(articles)).to.equal(1);
      expect(await store().list(articles, listQuery({ access: bob([]), includeDeleted: true }))).to.deep.equal([]);
      await loseByWrite(both(), articles, [{ id: "r1", principals: ["bob"] }]);
      await journal().flush();
      expect(await store().list(articles, listQuery({ access: bob([]), includeDeleted: true }))).to.deep.equal([]);
    });
  });
}
