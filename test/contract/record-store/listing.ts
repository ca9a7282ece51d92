/** Contract: sorting, keyset pagination, upTo, limits, access restriction and counting. */
import { expect } from "chai";
import type { JsonObject } from "../../../src/domain/json.js";
import type { ListQuery, SortKey } from "../../../src/application/listing.js";
import {
  asc,
  countQuery,
  cursorOf,
  desc,
  filter,
  idsOf,
  listQuery,
  LM_ASC,
  LM_DESC,
  scopeOf,
  seed,
  walkPages,
  type StoreRef,
} from "./fixture.js";

export function listingCases(store: StoreRef): void {
  const articles = scopeOf("articles");
  const sortedIds = async (sort: SortKey[], includeDeleted = false) =>
    idsOf(await store().list(articles, listQuery({ sort, includeDeleted })));

  describe("sorting", () => {
    it("lists every record, in some order, without sort keys", async () => {
      await seed(store(), articles, [{}, {}, {}]);
      expect((await sortedIds([])).sort()).to.deep.equal(["r0", "r1", "r2"]);
    });

    it("lists oldest first by last_modified ascending and newest first descending", async () => {
      await seed(store(), articles, [{}, {}, {}]);
      expect(await sortedIds([LM_ASC])).to.deep.equal(["r0", "r1", "r2"]);
      expect(await sortedIds([LM_DESC])).to.deep.equal(["r2", "r1", "r0"]);
    });

    it("sorts numbers numerically in both directions", async () => {
      await seed(store(), articles, [{ status: 1 }, { status: 10 }, { status: 6 }, { status: 46 }, { status: -2.5 }]);
      expect(await sortedIds([asc("status"), LM_DESC])).to.deep.equal(["r4", "r0", "r2", "r1", "r3"]);
      expect(await sortedIds([desc("status"), LM_DESC])).to.deep.equal(["r3", "r1", "r2", "r0", "r4"]);
    });

    it("sorts strings by character", async () => {
      await seed(store(), articles, [{ name: "marie" }, { name: "alexis" }, { name: "mathieu" }, { name: "" }]);
      expect(await sortedIds([asc("name"), LM_DESC])).to.deep.equal(["r3", "r1", "r0", "r2"]);
    });

    it("breaks ties with the last_modified key in its own direction", async () => {
      await seed(store(), articles, [{ g: 1 }, { g: 0 }, { g: 1 }, { g: 0 }]);
      expect(await sortedIds([asc("g"), LM_DESC])).to.deep.equal(["r3", "r1", "r2", "r0"]);
      expect(await sortedIds([asc("g"), LM_ASC])).to.deep.equal(["r1", "r3", "r0", "r2"]);
      expect(await sortedIds([desc("g"), LM_ASC])).to.deep.equal(["r0", "r2", "r1", "r3"]);
    });

    it("sorts on several data fields in order", async () => {
      await seed(store(), articles, [
        { a: 1, b: "y" },
        { a: 0, b: "z" },
        { a: 1, b: "x" },
        { a: 0, b: "x" },
      ]);
      expect(await sortedIds([asc("a"), desc("b"), LM_ASC])).to.deep.equal(["r1", "r3", "r0", "r2"]);
    });

    it("orders mixed types null < string < number < boolean < array < object < missing, and reverses descending", async () => {
      const values: JsonObject[] = [
        { v: { a: 1 } },
        {},
        { v: true },
        { v: [1] },
        { v: "b" },
        { v: 3 },
        { v: null },
        { v: false },
        { v: {} },
        { v: [0, 0] },
        { v: "" },
        { v: -1 },
      ];
      await seed(store(), articles, values);
      const ascending = ["r6", "r10", "r4", "r11", "r5", "r7", "r2", "r3", "r9", "r8", "r0", "r1"];
      expect(await sortedIds([asc("v"), LM_ASC])).to.deep.equal(ascending);
      expect(await sortedIds([desc("v"), LM_DESC])).to.deep.equal([...ascending].reverse());
    });

    it("puts arrays with fewer elements and objects with fewer keys first", async () => {
      await seed(store(), articles, [{ v: [0, 0] }, { v: [9] }, { v: [1, 0] }, { v: { a: 1, b: 1 } }, { v: { z: 0 } }, { v: { a: 2 } }]);
      expect(await sortedIds([asc("v"), LM_ASC])).to.deep.equal(["r1", "r0", "r2", "r5", "r4", "r3"]);
    });

    it("puts missing fields last ascending and first descending", async () => {
      await seed(store(), articles, [{ n: 2 }, {}, { n: 1 }, {}]);
      expect(await sortedIds([asc("n"), LM_ASC])).to.deep.equal(["r2", "r0", "r1", "r3"]);
      expect(await sortedIds([desc("n"), LM_DESC])).to.deep.equal(["r3", "r1", "r0", "r2"]);
    });

    it("sorts on id and on dotted paths", async () => {
      await seed(store(), articles, [{ person: { age: 30 } }, { person: { age: 10 } }, { person: { age: 20 } }]);
      expect(await sortedIds([desc("id"), LM_DESC])).to.deep.equal(["r2", "r1", "r0"]);
      expect(await sortedIds([asc("person.age"), LM_DESC])).to.deep.equal(["r1", "r2", "r0"]);
    });

    it("sorts tombstones after live records on a data field, and first on deleted", async () => {
      await seed(store(), articles, [{ status: 1 }, { status: 0 }, { status: 2 }]);
      await store().delete(articles, "r0");
      expect(await sortedIds([asc("status"), LM_ASC], true)).to.deep.equal(["r1", "r2", "r0"]);
      await store().delete(articles, "r2");
      expect(await sortedIds([asc("deleted"), LM_ASC], true)).to.deep.equal(["r0", "r2", "r1"]);
    });

    it("mixes tombstones and records by last_modified", async () => {
      await seed(store(), articles, [{}, {}, {}]);
      await store().delete(articles, "r1");
      await store().update(articles, "r0", { again: true });
      expect(await sortedIds([LM_ASC], true)).to.deep.equal(["r2", "r1", "r0"]);
      expect(await sortedIds([LM_DESC], true)).to.deep.equal(["r0", "r1", "r2"]);
    });
  });

  describe("pagination", () => {
    const mixed: JsonObject[] = [
      { n: 3 },
      {},
      { n: "x" },
      { n: 3 },
      { n: null },
      { n: [1] },
      {},
      { n: 1 },
      { n: true },
      { n: 3 },
      { n: { a: 1 } },
    ];

    it("returns at most limit entries, and none for limit 0", async () => {
      await seed(store(), articles, [{}, {}, {}]);
      expect(idsOf(await store().list(articles, listQuery({ limit: 2 })))).to.deep.equal(["r0", "r1"]);
      expect(await store().list(articles, listQuery({ limit: 0 }))).to.deep.equal([]);
    });

    for (const sort of [
      [LM_DESC],
      [LM_ASC],
      [asc("n"), LM_DESC],
      [desc("n"), LM_DESC],
      [desc("n"), LM_ASC],
      [asc("n"), asc("id"), LM_ASC],
    ] as SortKey[][]) {
      const label = sort.map((k) => (k.descending ? "-" : "") + k.field).join(",");
      it(`walks every page of ${label} in order, each record once, for every page size`, async () => {
        await seed(store(), articles, mixed);
        const full = await store().list(articles, listQuery({ sort }));
        expect(full).to.have.length(mixed.length);
        for (let limit = 1; limit <= mixed.length + 1; limit += 1) {
          const walked = await walkPages(store(), articles, listQuery({ sort, limit }));
          expect(idsOf(walked), `limit ${limit}`).to.deep.equal(idsOf(full));
        }
      });
    }

    it("continues strictly after a cursor holding a missing value", async () => {
      await seed(store(), articles, [{ n: 1 }, {}, { n: 2 }, {}]);
      const sort = [asc("n"), LM_ASC];
      expect(idsOf(await store().list(articles, listQuery({ sort, after: { values: [undefined, 0] } })))).to.deep.equal(["r1", "r3"]);
      const [first] = await store().list(articles, listQuery({ sort: [desc("n"), LM_DESC], limit: 1 }));
      expect(first?.id).to.equal("r3");
      const rest = await store().list(articles, listQuery({ sort: [desc("n"), LM_DESC], after: cursorOf(first!, [desc("n"), LM_DESC]) }));
      expect(idsOf(rest)).to.deep.equal(["r1", "r2", "r0"]);
    });

    it("paginates through filtered results and tombstones", async () => {
      await seed(
        store(),
        articles,
        Array.from({ length: 12 }, (_, i) => ({ i })),
      );
      for (const id of ["r1", "r4", "r7"]) await store().delete(articles, id);
      const query: ListQuery = listQuery({ filters: [filter("last_modified", "gt", 0)], includeDeleted: true, sort: [LM_DESC], limit: 4 });
      const walked = await walkPages(store(), articles, query);
      expect(idsOf(walked)).to.deep.equal(idsOf(await store().list(articles, { ...query, limit: 100 })));
      expect(walked).to.have.length(12);
      const odd = await walkPages(
        store(),
        articles,
        listQuery({ filters: [filter("i", "in", [1, 3, 5, 7, 9, 11])], sort: [asc("i"), LM_ASC], limit: 2 }),
      );
      expect(idsOf(odd)).to.deep.equal(["r3", "r5", "r9", "r11"]);
    });

    it("leaves out entries newer than upTo", async () => {
      await seed(store(), articles, [{}, {}]);
      const upTo = await store().collectionTimestamp(articles);
      await store().create(articles, "late", {});
      await store().update(articles, "r0", { v: 2 });
      expect(idsOf(await store().list(articles, listQuery({ upTo, includeDeleted: true })))).to.deep.equal(["r1"]);
    });

    it("never returns a record twice when records change between pages with upTo fixed", async () => {
      await seed(
        store(),
        articles,
        Array.from({ length: 10 }, (_, i) => ({ rank: i })),
      );
      const upTo = await store().collectionTimestamp(articles);
      const sort = [desc("rank"), LM_DESC];
      const walked = await walkPages(store(), articles, listQuery({ sort, limit: 3, upTo, includeDeleted: true }), async (page) => {
        // Move an already returned record behind the cursor and a pending one ahead of it.
        await store().update(articles, `r${9 - page}`, { rank: -1 - page });
        await store().update(articles, `r${page}`, { rank: 100 + page });
      });
      const ids = idsOf(walked);
      expect(new Set(ids).size).to.equal(ids.length);
      expect(ids.slice(0, 3)).to.deep.equal(["r9", "r8", "r7"]);
    });

    it("keeps a timestamp walk stable when a record is modified between pages", async () => {
      await seed(
        store(),
        articles,
        Array.from({ length: 7 }, () => ({})),
      );
      const upTo = await store().collectionTimestamp(articles);
      const walked = await walkPages(
        store(),
        articles,
        listQuery({ sort: [LM_ASC], limit: 2, upTo, includeDeleted: true }),
        async (page) => {
          if (page === 0) await store().update(articles, "r0", { touched: true });
          if (page === 1) await store().delete(articles, "r5");
        },
      );
      expect(idsOf(walked)).to.deep.equal(["r0", "r1", "r2", "r3", "r4", "r6"]);
    });
  });

  describe("access restriction and counting", () => {
    it("lists only the records whose ids are allowed", async () => {
      await seed(store(), articles, [{}, {}, {}, {}]);
      const found = await store().list(articles, listQuery({ access: { ids: ["r3", "r1", "ghost"] } }));
      expect(idsOf(found)).to.deep.equal(["r1", "r3"]);
    });

    it("lists nothing for an empty id list", async () => {
      await seed(store(), articles, [{}, {}]);
      expect(await store().list(articles, listQuery({ access: { ids: [] }, includeDeleted: true }))).to.deep.equal([]);
      expect(await store().count(articles, countQuery({ access: { ids: [] } }))).to.equal(0);
    });

    it("applies filters, sorting and pagination inside the allowed set", async () => {
      await seed(
        store(),
        articles,
        Array.from({ length: 8 }, (_, i) => ({ i })),
      );
      const access = { ids: ["r0", "r2", "r3", "r5", "r6"] } as const;
      const query = listQuery({ access, filters: [filter("i", "min", 2)], sort: [desc("i"), LM_DESC], limit: 2 });
      expect(idsOf(await walkPages(store(), articles, query))).to.deep.equal(["r6", "r5", "r3", "r2"]);
    });

    it("shows tombstones of allowed ids only", async () => {
      await seed(store(), articles, [{}, {}, {}]);
      await store().delete(articles, "r0");
      await store().delete(articles, "r1");
      const found = await store().list(articles, listQuery({ access: { ids: ["r1", "r2"] }, includeDeleted: true }));
      expect(idsOf(found)).to.deep.equal(["r2", "r1"]);
    });

    it("counts live records matching filters and access", async () => {
      await seed(store(), articles, [{ n: 1 }, { n: 2 }, { n: 3 }, {}]);
      await store().delete(articles, "r0");
      expect(await store().count(articles, countQuery())).to.equal(3);
      expect(await store().count(articles, countQuery({ filters: [filter("n", "gt", 1)] }))).to.equal(3);
      expect(await store().count(articles, countQuery({ filters: [filter("n", "has", true)] }))).to.equal(2);
      expect(await store().count(articles, countQuery({ filters: [filter("n", "gt", 1)], access: { ids: ["r0", "r1", "r3"] } }))).to.equal(
        2,
      );
    });

    it("counts each scope on its own", async () => {
      await seed(store(), scopeOf("notes", "alice"), [{}, {}]);
      await seed(store(), scopeOf("notes", "bob"), [{}]);
      expect(await store().count(scopeOf("notes", "alice"), countQuery())).to.equal(2);
      expect(await store().count(scopeOf("notes", "bob"), countQuery())).to.equal(1);
      expect(await store().count(scopeOf("notes", "carol"), countQuery())).to.equal(0);
    });
  });
}
