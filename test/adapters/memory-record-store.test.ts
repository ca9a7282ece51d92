/** Runs the RecordStore contract on the memory adapter, plus what only memory can promise. */
import { expect } from "chai";
import { compareJson } from "../../src/adapters/memory/json-ordering.js";
import { memoryStorage, type MemoryRecordStore } from "../../src/adapters/memory/memory-record-store.js";
import { DirectUnitOfWork } from "../../src/adapters/system/direct-unit-of-work.js";
import type { PageCursor } from "../../src/application/listing.js";
import type { JsonValue } from "../../src/domain/json.js";
import { accessJournalContract } from "../contract/access-journal.contract.js";
import { recordStoreContract } from "../contract/record-store.contract.js";

const realClock = { now: () => Date.now() };

const direct = new DirectUnitOfWork();

recordStoreContract(
  "memory",
  () => {
    const store = memoryStorage(realClock).records;
    return Promise.resolve({ port: store, reset: () => store.flush(), close: () => store.close() });
  },
  [{ name: "a unit of work (memory: no transaction)", run: (work) => direct.run(work) }],
);

accessJournalContract("memory", () => {
  const storage = memoryStorage(realClock);
  const reset = async () => {
    await storage.journal.flush();
    await storage.records.flush();
  };
  return Promise.resolve({ port: storage, reset, close: () => storage.records.close() });
});

describe("MemoryRecordStore", () => {
  const scope = { collection: "articles", parentId: "" };
  const listAll = { filters: [], sort: [{ field: "last_modified", descending: false }], limit: 100, includeDeleted: true };

  it("returns copies that callers cannot use to change stored records", async () => {
    const store = memoryStorage(realClock).records;
    const created = await store.create(scope, "a1", { tags: ["x"], meta: { n: 1 } });
    (created.data.tags as string[]).push("mutated");
    const fetched = await store.get(scope, "a1");
    (fetched!.data.meta as { n: number }).n = 99;
    const [listed] = await store.list(scope, listAll);
    if (listed && !listed.deleted) (listed.data as { extra?: boolean }).extra = true;
    expect((await store.get(scope, "a1"))?.data).to.deep.equal({ tags: ["x"], meta: { n: 1 } });
  });

  it("gives writes in the same millisecond (a fixed clock) distinct increasing timestamps", async () => {
    const store = memoryStorage({ now: () => 5_000 }).records;
    const first = await store.create(scope, "a1", {});
    const second = await store.create(scope, "a2", {});
    const third = await store.update(scope, "a1", { v: 2 });
    const fourth = await store.delete(scope, "a2");
    expect([first, second, third, fourth].map((w) => w.lastModified)).to.deep.equal([5_000, 5_001, 5_002, 5_003]);
    expect(await store.collectionTimestamp(scope)).to.equal(5_003);
  });

  it("keeps no reference to the data object it was given", async () => {
    const store = memoryStorage(realClock).records;
    const data = { nested: { v: 1 } };
    await store.create(scope, "a1", data);
    data.nested.v = 2;
    expect((await store.get(scope, "a1"))?.data).to.deep.equal({ nested: { v: 1 } });
  });

  it("drops managed fields that slipped into the data", async () => {
    const store = memoryStorage(realClock).records;
    const created = await store.create(scope, "a1", { id: "other", last_modified: 5, title: "t" });
    expect(created.data).to.deep.equal({ title: "t" });
  });

  describe("access by ids", () => {
    const byTitle = {
      filters: [],
      sort: [
        { field: "title", descending: false },
        { field: "last_modified", descending: false },
      ],
      limit: 100,
      includeDeleted: false,
    };
    const ids = (entries: readonly { id: string }[]) => entries.map((e) => e.id);

    async function seeded(): Promise<MemoryRecordStore> {
      let now = 1000;
      const store = memoryStorage({ now: () => (now += 1) }).records;
      for (let i = 0; i < 40; i += 1) await store.create(scope, `r${i}`, { title: `t${(i * 7) % 40}`, n: i });
      await store.delete(scope, "r3");
      await store.delete(scope, "r4");
      return store;
    }

    it("lists only the given ids, once each, in query order; unknown ids are ignored", async () => {
      const store = await seeded();
      const access = { ids: ["r10", "r2", "r10", "missing", "r3"] } as const;
      expect(ids(await store.list(scope, { ...byTitle, access }))).to.deep.equal(["r2", "r10"]);
      expect(await store.count(scope, { filters: [], access })).to.equal(2);
    });

    it("includes tombstones of the given ids when asked", async () => {
      const store = await seeded();
      const access = { ids: ["r3", "r5"] } as const;
      const listed = await store.list(scope, { ...listAll, access });
      expect(listed.map((e) => [e.id, e.deleted === true])).to.deep.equal([
        ["r5", false],
        ["r3", true],
      ]);
    });

    it("gives the same pages as a scan, whether ids are few or outnumber the scope", async () => {
      const store = await seeded();
      const all = Array.from({ length: 40 }, (_, i) => `r${i}`);
      const few = { ids: all.filter((_, i) => i % 2 === 0) } as const;
      const many = { ids: [...all, ...Array.from({ length: 50 }, (_, i) => `x${i}`)] } as const;
      const filters = [{ field: "n", operator: "min", value: 5 }] as const;
      for (const access of [few, many]) {
        const allowed = new Set(access.ids);
        const scanned = (await store.list(scope, { ...byTitle, filters: [...filters], includeDeleted: true })).filter((e) =>
          allowed.has(e.id),
        );
        // Small pages walked with cursors.
        const walked: string[] = [];
        let after: PageCursor | undefined;
        let ended = false;
        for (let pages = 0; pages <= scanned.length && !ended; pages += 1) {
          const page = await store.list(scope, { ...byTitle, filters: [...filters], includeDeleted: true, limit: 2, access, after });
          ended = page.length === 0;
          if (ended) break;
          walked.push(...ids(page));
          const last = page[page.length - 1];
          after = { values: [last!.deleted ? undefined : last!.data.title, last!.lastModified] };
        }
        expect(ended, "the walk ended").to.equal(true);
        expect(walked).to.deep.equal(ids(scanned));
        expect(await store.count(scope, { filters: [...filters], access })).to.equal(scanned.filter((e) => !e.deleted).length);
      }
    });

    it("deletes only the given ids with deleteMany", async () => {
      const store = await seeded();
      const tombstones = await store.deleteMany(scope, { filters: [], access: { ids: ["r7", "r3", "r8"] } });
      expect(ids(tombstones)).to.deep.equal(["r7", "r8"]);
      expect(await store.count(scope, { filters: [] })).to.equal(36);
    });

    it("returns copies of the listed page", async () => {
      const store = await seeded();
      const [first] = await store.list(scope, { ...byTitle, limit: 1, access: { ids: ["r1"] } });
      if (first && !first.deleted) (first.data as { title: string }).title = "mutated";
      expect((await store.get(scope, "r1"))?.data.title).to.equal("t7");
    });
  });

  it("uses its injected clock for new timestamps, never for empty scopes", async () => {
    let now = 1_000_000;
    const store = memoryStorage({ now: () => now }).records;
    expect(await store.collectionTimestamp(scope)).to.equal(0);
    now = 2_000_000;
    expect(await store.collectionTimestamp(scope)).to.equal(0);
    expect((await store.create(scope, "a1", {})).lastModified).to.equal(2_000_000);
    expect((await store.create(scope, "a2", {})).lastModified).to.equal(2_000_001);
    now = 5;
    expect((await store.create(scope, "a3", {})).lastModified).to.equal(2_000_002);
  });

  it("sorts strings by code point, astral characters after the rest of the BMP", async () => {
    const store = memoryStorage(realClock).records;
    for (const [i, name] of ["é", "a", "B", "😀", "\uFFFD", "Z", "ab"].entries()) await store.create(scope, `r${i}`, { name });
    const sorted = await store.list(scope, { ...listAll, sort: [{ field: "name", descending: false }, listAll.sort[0]!] });
    expect(sorted.map((e) => (e.deleted ? null : e.data.name))).to.deep.equal(["B", "Z", "a", "ab", "é", "\uFFFD", "😀"]);
  });
});

describe("MemoryAccessJournal on the memory record store's scope clocks", () => {
  const scope = { collection: "articles", parentId: "" };

  it("stamps above a write of the same millisecond (a fixed clock), and the writes after above its stamps", async () => {
    const { records, journal } = memoryStorage({ now: () => 5_000 });
    expect((await records.create(scope, "a1", {})).lastModified).to.equal(5_000);
    expect(await journal.stampGainedAccess(scope, "bob", ["a1"])).to.equal(5_001);
    expect(await journal.stampLostAccess(scope, "bob", ["a1", "a2"])).to.deep.equal({ first: 5_002, last: 5_003 });
    expect(await journal.stampResync(scope, "bob")).to.equal(5_004);
    expect(await records.collectionTimestamp(scope)).to.equal(5_004);
    expect((await records.update(scope, "a1", {})).lastModified).to.equal(5_005);
  });

  it("stores nothing on a read of a scope never written", async () => {
    const { records, journal } = memoryStorage(realClock);
    expect(await journal.lostAccessAfter(scope, 0)).to.deep.equal([]);
    expect(await journal.lostAccessOf(scope, "bob")).to.deep.equal([]);
    expect(await journal.gainedAccessAfter(scope, ["bob"], 0)).to.deep.equal([]);
    expect(await journal.resyncAfter(scope, ["bob"], 0)).to.equal(undefined);
    expect(await records.collectionTimestamp(scope)).to.equal(0);
    expect(records.scopeCount).to.equal(0);
  });
});

describe("compareJson (jsonb-like order of the memory store)", () => {
  const order = (a: JsonValue | undefined, b: JsonValue | undefined) => Math.sign(compareJson(a, b));

  it("ranks types null < string < number < boolean < array < object < missing", () => {
    const ranked: (JsonValue | undefined)[] = [null, "", "z", -5, 0, 2.5, false, true, [], [null], {}, { a: null }, undefined];
    for (let i = 0; i + 1 < ranked.length; i += 1)
      expect(order(ranked[i], ranked[i + 1]), JSON.stringify(ranked.slice(i, i + 2))).to.equal(-1);
  });

  it("treats a top-level empty array as an array, unlike PostgreSQL's quirk that sorts it before null", () => {
    expect(order([], null)).to.equal(1);
    expect(order([], true)).to.equal(1);
  });

  it("compares objects pair by pair in jsonb key order: shorter keys first, then key, then value", () => {
    expect(order({ a: 2, b: 0 }, { a: 1, c: 0 })).to.equal(1);
    // jsonb stores keys shorter first: z before aa, y before ab, so z vs y decides.
    expect(order({ z: 0, aa: 0 }, { y: 0, ab: 0 })).to.equal(1);
    expect(order({ b: 1 }, { aa: 0 })).to.equal(1);
    expect(order({ x: { y: [1, "a"] } }, { x: { y: [1, "a"] } })).to.equal(0);
  });

  it("compares arrays by length first, then element by element", () => {
    expect(order([9], [0, 0])).to.equal(-1);
    expect(order([1, "b"], [1, "a"])).to.equal(1);
    expect(order([[1]], [{}])).to.equal(-1);
  });

  it("orders numbers numerically and equal values as equal", () => {
    expect(order(10, 9)).to.equal(1);
    expect(order(-0, 0)).to.equal(0);
    expect(order(undefined, undefined)).to.equal(0);
  });
});
