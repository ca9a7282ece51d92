/** Contract: every filter operator, missing-field and cross-type rules, managed fields, dotted paths. */
import { expect } from "chai";
import type { JsonObject, JsonValue } from "../../../src/domain/json.js";
import type { FilterOperator } from "../../../src/application/listing.js";
import { asc, filter, idsOf, listQuery, LM_ASC, matchingIds, scopeOf, seed, type StoreRef } from "./fixture.js";
import { managedFieldFilterCases } from "./managed-filters.js";

export function filterCases(store: StoreRef): void {
  const articles = scopeOf("articles");
  const ids = (operator: FilterOperator, field: string, value: JsonValue) =>
    matchingIds(store(), articles, [filter(field, operator, value)]);

  describe("filters: equality", () => {
    it('matches eq by JSON type: 1 is not "1" and null is not missing', async () => {
      await seed(store(), articles, [{ n: 1 }, { n: "1" }, { n: true }, { n: null }, {}, { n: 1.5 }]);
      expect(await ids("eq", "n", 1)).to.deep.equal(["r0"]);
      expect(await ids("eq", "n", "1")).to.deep.equal(["r1"]);
      expect(await ids("eq", "n", true)).to.deep.equal(["r2"]);
      expect(await ids("eq", "n", null)).to.deep.equal(["r3"]);
      expect(await ids("eq", "n", 1.5)).to.deep.equal(["r5"]);
    });

    it("compares numeric-looking strings as strings", async () => {
      await seed(store(), articles, [{ phone: "0566199093" }, { phone: "0781566199" }]);
      expect(await ids("eq", "phone", "0566199093")).to.deep.equal(["r0"]);
      expect(await ids("eq", "phone", "")).to.deep.equal([]);
      expect(await ids("eq", "phone", 566199093)).to.deep.equal([]);
    });

    it("matches arrays exactly, not as subsets or supersets", async () => {
      await seed(store(), articles, [{ c: ["r", "g", "b"] }, { c: ["r", "g"] }, { c: ["r"] }, { c: ["g", "r"] }, { c: [] }]);
      expect(await ids("eq", "c", ["r", "g"])).to.deep.equal(["r1"]);
      expect(await ids("eq", "c", [])).to.deep.equal(["r4"]);
    });

    it("matches objects exactly whatever the key order", async () => {
      await seed(store(), articles, [{ m: { a: 1, b: 2 } }, { m: { a: 1 } }, { m: { a: 1, b: 2, c: 3 } }, { m: {} }]);
      expect(await ids("eq", "m", { b: 2, a: 1 })).to.deep.equal(["r0"]);
      expect(await ids("eq", "m", {})).to.deep.equal(["r3"]);
    });

    it("keeps with not every value that differs, missing and null included", async () => {
      await seed(store(), articles, [{ n: 1 }, { n: "1" }, {}, { n: null }, { n: [1] }]);
      expect(await ids("not", "n", 1)).to.deep.equal(["r1", "r2", "r3", "r4"]);
      expect(await ids("not", "n", null)).to.deep.equal(["r0", "r1", "r2", "r4"]);
      expect(await ids("not", "n", [1])).to.deep.equal(["r0", "r1", "r2", "r3"]);
    });
  });

  describe("filters: comparisons", () => {
    it("compares numbers numerically, integers and floats alike", async () => {
      await seed(store(), articles, [{ note: 10 }, { note: 11.5 }, { note: 8.5 }, { note: 6 }, { note: 7.5 }]);
      expect(await ids("lt", "note", 9.5)).to.deep.equal(["r2", "r3", "r4"]);
      expect(await ids("gt", "note", 10)).to.deep.equal(["r1"]);
      expect(await ids("min", "note", 10)).to.deep.equal(["r0", "r1"]);
      expect(await ids("max", "note", 7.5)).to.deep.equal(["r3", "r4"]);
    });

    it("treats a missing field as above every value: kept by gt and min, dropped by lt and max", async () => {
      await seed(store(), articles, [{ code: 1 }, { code: 10 }, { code: 6 }, { code: 46 }, {}]);
      expect(await ids("max", "code", 10)).to.deep.equal(["r0", "r1", "r2"]);
      expect(await ids("lt", "code", 10)).to.deep.equal(["r0", "r2"]);
      expect(await ids("gt", "code", 10)).to.deep.equal(["r3", "r4"]);
      expect(await ids("min", "code", 10)).to.deep.equal(["r1", "r3", "r4"]);
    });

    it("compares strings without casting them to numbers", async () => {
      await seed(store(), articles, [{ v: "49.0" }, { v: "6.0" }, { v: "53.0b4" }]);
      expect(await ids("min", "v", "50.0")).to.deep.equal(["r1", "r2"]);
      expect(await ids("min", "v", 50)).to.deep.equal([]);
    });

    it("compares and sorts strings by code point (uppercase first), whatever the database's collation", async () => {
      await seed(store(), articles, [{ s: "b" }, { s: "B" }, { s: "a" }, { s: "é" }, { s: "e" }, { s: "Z" }]);
      expect(await ids("gt", "s", "B")).to.deep.equal(["r0", "r2", "r3", "r4", "r5"]);
      expect(await ids("lt", "s", "a")).to.deep.equal(["r1", "r5"]);
      expect(await ids("min", "s", "e")).to.deep.equal(["r3", "r4"]);
      expect(await ids("max", "s", "Z")).to.deep.equal(["r1", "r5"]);
      const sorted = idsOf(await store().list(articles, listQuery({ sort: [asc("s"), LM_ASC] })));
      expect(sorted).to.deep.equal(["r1", "r5", "r2", "r0", "r4", "r3"]);
    });

    it("orders strings before numbers, numbers before booleans, arrays and objects", async () => {
      await seed(store(), articles, [{ v: "zzz" }, { v: 5 }, { v: false }, { v: [0] }, { v: { a: 0 } }, { v: null }]);
      expect(await ids("gt", "v", "zzz")).to.deep.equal(["r1", "r2", "r3", "r4"]);
      expect(await ids("gt", "v", 1e9)).to.deep.equal(["r2", "r3", "r4"]);
      expect(await ids("gt", "v", true)).to.deep.equal(["r3", "r4"]);
      expect(await ids("lt", "v", "")).to.deep.equal(["r5"]);
      expect(await ids("max", "v", null)).to.deep.equal(["r5"]);
      expect(await ids("lt", "v", [0])).to.deep.equal(["r0", "r1", "r2", "r5"]);
    });

    it("splits every value cleanly with lt/min and max/gt, consistently with the sort order", async () => {
      // No top-level []: PostgreSQL sorts it before null (a jsonb quirk), against the listing order.
      const values: JsonValue[] = [null, "", "Ethan", 0, 1, 4.5, false, true, [0], [1], [0, 0], {}, { a: 1 }];
      await seed(store(), articles, [...values.map((author) => ({ author })), {}]);
      const sorted = idsOf(await store().list(articles, listQuery({ sort: [asc("author"), LM_ASC] })));
      for (const pivot of ["A", "Z", "", 0, 4, true, null, [1], {}] as JsonValue[]) {
        const below = idsOf(
          await store().list(articles, listQuery({ filters: [filter("author", "lt", pivot)], sort: [asc("author"), LM_ASC] })),
        );
        const from = idsOf(
          await store().list(articles, listQuery({ filters: [filter("author", "min", pivot)], sort: [asc("author"), LM_ASC] })),
        );
        expect([...below, ...from], `lt/min ${JSON.stringify(pivot)}`).to.deep.equal(sorted);
        const upTo = idsOf(
          await store().list(articles, listQuery({ filters: [filter("author", "max", pivot)], sort: [asc("author"), LM_ASC] })),
        );
        const above = idsOf(
          await store().list(articles, listQuery({ filters: [filter("author", "gt", pivot)], sort: [asc("author"), LM_ASC] })),
        );
        expect([...upTo, ...above], `max/gt ${JSON.stringify(pivot)}`).to.deep.equal(sorted);
      }
    });

    it("compares arrays shorter first and objects with fewer keys first", async () => {
      await seed(store(), articles, [{ v: [9] }, { v: [0, 0] }, { v: { z: 9 } }, { v: { a: 0, b: 0 } }]);
      expect(await ids("lt", "v", [0, 0])).to.deep.equal(["r0"]);
      expect(await ids("gt", "v", [10])).to.deep.equal(["r1", "r2", "r3"]);
      expect(await ids("lt", "v", { a: 0, b: 0 })).to.deep.equal(["r0", "r1", "r2"]);
    });
  });

  describe("filters: lists", () => {
    it("keeps with in the values equal to any item, by type", async () => {
      await seed(store(), articles, [{ code: "a" }, { code: "b" }, { code: "c" }, {}, { code: 1 }, { code: null }]);
      expect(await ids("in", "code", ["a", "b"])).to.deep.equal(["r0", "r1"]);
      expect(await ids("in", "code", [1, "c", "1"])).to.deep.equal(["r2", "r4"]);
      expect(await ids("in", "code", [null])).to.deep.equal(["r5"]);
    });

    it("matches nothing with an empty in list", async () => {
      await seed(store(), articles, [{ code: "a" }, {}]);
      expect(await ids("in", "code", [])).to.deep.equal([]);
      expect(await ids("in", "id", [])).to.deep.equal([]);
    });

    it("keeps with exclude every value equal to no item, missing included", async () => {
      await seed(store(), articles, [{ code: 1 }, { code: 2 }, { code: 3 }, {}]);
      expect(await ids("exclude", "code", [1, 2])).to.deep.equal(["r2", "r3"]);
      expect(await ids("exclude", "code", [1, "b"])).to.deep.equal(["r1", "r2", "r3"]);
      expect(await ids("exclude", "code", [])).to.deep.equal(["r0", "r1", "r2", "r3"]);
    });

    it("applies in and exclude to dotted paths", async () => {
      await seed(store(), articles, [{ code: { city: 1 } }, { code: { city: 2 } }, { code: { city: 3 } }]);
      expect(await ids("exclude", "code.city", [1, 2])).to.deep.equal(["r2"]);
      expect(await ids("in", "code.city", [1, 2])).to.deep.equal(["r0", "r1"]);
    });
  });

  describe("filters: like and has", () => {
    it("matches like case-insensitively with * as a wildcard", async () => {
      await seed(store(), articles, [{ name: "foo" }, { name: "aafooll" }, { name: "bar" }, { name: "FOOBAR" }]);
      expect(await ids("like", "name", "*FoO*")).to.deep.equal(["r0", "r1", "r3"]);
      expect(await ids("like", "name", "foo*")).to.deep.equal(["r0", "r3"]);
      expect(await ids("like", "name", "*BAR")).to.deep.equal(["r2", "r3"]);
    });

    it("anchors like patterns at both ends", async () => {
      await seed(store(), articles, [{ s: "eabcg" }, { s: "aabcc" }, { s: "abc" }, { s: "aec" }, { s: "efg" }]);
      expect(await ids("like", "s", "a*b*c")).to.deep.equal(["r1", "r2"]);
    });

    it("treats regex and SQL wildcard characters in like patterns literally", async () => {
      await seed(store(), articles, [{ s: "abc" }, { s: "a.c" }, { s: "a_c" }, { s: "a%c" }, { s: "a\\c" }]);
      expect(await ids("like", "s", "*a.c*")).to.deep.equal(["r1"]);
      expect(await ids("like", "s", "*a_c*")).to.deep.equal(["r2"]);
      expect(await ids("like", "s", "*a%c*")).to.deep.equal(["r3"]);
      expect(await ids("like", "s", "*a\\c*")).to.deep.equal(["r4"]);
    });

    it("matches like only on string values, never on missing fields", async () => {
      await seed(store(), articles, [{ v: 10 }, { v: "10" }, { v: ["10"] }, {}, { v: null }, { v: { x: "10" } }]);
      expect(await ids("like", "v", "*10*")).to.deep.equal(["r1"]);
      expect(await ids("like", "v", "*")).to.deep.equal(["r1"]);
    });

    it("keeps with has true every present field, null included, and with has false the missing ones", async () => {
      await seed(store(), articles, [{}, { author: null }, { author: "" }, { author: "hello" }, { author: "null" }]);
      expect(await ids("has", "author", true)).to.deep.equal(["r1", "r2", "r3", "r4"]);
      expect(await ids("has", "author", false)).to.deep.equal(["r0"]);
    });

    it("combines has with a comparison to drop missing fields", async () => {
      await seed(store(), articles, [{ salary: null }, { salary: "null" }, { salary: "" }, {}, { salary: 5 }]);
      const found = await matchingIds(store(), articles, [filter("salary", "gt", 0), filter("salary", "has", true)]);
      expect(found).to.deep.equal(["r4"]);
    });
  });

  describe("filters: contains and contains_any", () => {
    const colors: JsonObject[] = [{ c: ["red", "green"] }, { c: ["red", "gray"] }, { c: ["blue"] }, { c: ["gray", "green"] }];

    it("keeps with contains the arrays holding every item", async () => {
      await seed(store(), articles, colors);
      expect(await ids("contains", "c", ["red"])).to.deep.equal(["r0", "r1"]);
      expect(await ids("contains", "c", ["red", "gray"])).to.deep.equal(["r1"]);
    });

    it("keeps with contains_any the arrays holding at least one item", async () => {
      await seed(store(), articles, colors);
      expect(await ids("contains_any", "c", ["red"])).to.deep.equal(["r0", "r1"]);
      expect(await ids("contains_any", "c", ["red", "gray"])).to.deep.equal(["r0", "r1", "r3"]);
    });

    it("compares numeric items by value and type", async () => {
      await seed(store(), articles, [{ fib: [1, 2, 3] }, { fib: [2, 3, 5] }, { fib: [3, 5, 8] }, { fib: [5, 8, 13] }, { fib: ["2"] }]);
      expect(await ids("contains", "fib", [2])).to.deep.equal(["r0", "r1"]);
      expect(await ids("contains", "fib", [2, 3])).to.deep.equal(["r0", "r1"]);
      expect(await ids("contains_any", "fib", [2])).to.deep.equal(["r0", "r1"]);
      expect(await ids("contains_any", "fib", [2, 3])).to.deep.equal(["r0", "r1", "r2"]);
    });

    it("never matches missing fields or fields that are not arrays", async () => {
      await seed(store(), articles, [{ fib: [2] }, {}, { fib: 2 }, { fib: "2" }, { fib: { html: 2 } }, { fib: null }]);
      expect(await ids("contains", "fib", [2])).to.deep.equal(["r0"]);
      expect(await ids("contains_any", "fib", [2])).to.deep.equal(["r0"]);
      expect(await ids("contains_any", "fib", [{ html: 2 }])).to.deep.equal([]);
    });

    it("matches object items that are equal to an element", async () => {
      await seed(store(), articles, [{ t: [{ demo: "foobar" }, 1] }, { t: ["demo", "foobar"] }]);
      expect(await ids("contains", "t", [{ demo: "foobar" }])).to.deep.equal(["r0"]);
      expect(await ids("contains_any", "t", [{ demo: "foobar" }, 7])).to.deep.equal(["r0"]);
      expect(await ids("contains", "t", [{ other: 1 }])).to.deep.equal([]);
    });
  });

  describe("filters: managed fields, dotted paths and combinations", () => {
    it("filters on id with every comparison", async () => {
      await seed(store(), articles, [{}, {}, {}, {}]);
      expect(await ids("eq", "id", "r1")).to.deep.equal(["r1"]);
      expect(await ids("not", "id", "r1")).to.deep.equal(["r0", "r2", "r3"]);
      expect(await ids("in", "id", ["r0", "r3", "zz"])).to.deep.equal(["r0", "r3"]);
      expect(await ids("exclude", "id", ["r0", "r3"])).to.deep.equal(["r1", "r2"]);
      expect(await ids("min", "id", "r2")).to.deep.equal(["r2", "r3"]);
      expect(await ids("lt", "id", "r2")).to.deep.equal(["r0", "r1"]);
      expect(await ids("like", "id", "*3")).to.deep.equal(["r3"]);
      expect(await ids("has", "id", true)).to.deep.equal(["r0", "r1", "r2", "r3"]);
    });

    it("filters on last_modified with every comparison", async () => {
      const seeded = await seed(store(), articles, [{}, {}, {}]);
      const [a, b, c] = [seeded[0]!, seeded[1]!, seeded[2]!];
      expect(await ids("gt", "last_modified", a.lastModified)).to.deep.equal(["r1", "r2"]);
      expect(await ids("lt", "last_modified", c.lastModified)).to.deep.equal(["r0", "r1"]);
      expect(await ids("min", "last_modified", b.lastModified)).to.deep.equal(["r1", "r2"]);
      expect(await ids("max", "last_modified", b.lastModified)).to.deep.equal(["r0", "r1"]);
      expect(await ids("eq", "last_modified", b.lastModified)).to.deep.equal(["r1"]);
      expect(await ids("not", "last_modified", b.lastModified)).to.deep.equal(["r0", "r2"]);
      expect(await ids("in", "last_modified", [a.lastModified, c.lastModified])).to.deep.equal(["r0", "r2"]);
      expect(await ids("exclude", "last_modified", [a.lastModified, b.lastModified])).to.deep.equal(["r2"]);
    });

    it("follows dotted paths into nested objects", async () => {
      await seed(store(), articles, [
        { author: { name: "ann", address: { city: "paris" } } },
        { author: { name: "bob" } },
        { author: "ann" },
        {},
      ]);
      expect(await ids("eq", "author.name", "ann")).to.deep.equal(["r0"]);
      expect(await ids("eq", "author.address.city", "paris")).to.deep.equal(["r0"]);
      expect(await ids("has", "author.name", false)).to.deep.equal(["r2", "r3"]);
      expect(await ids("not", "author.name", "bob")).to.deep.equal(["r0", "r2", "r3"]);
      expect(await ids("eq", "author", { name: "bob" })).to.deep.equal(["r1"]);
    });

    it("requires every filter to match", async () => {
      await seed(store(), articles, [
        { a: 1, b: 1 },
        { a: 1, b: 2 },
        { a: 2, b: 2 },
      ]);
      expect(await matchingIds(store(), articles, [filter("a", "eq", 1), filter("b", "eq", 2)])).to.deep.equal(["r1"]);
      expect(await matchingIds(store(), articles, [filter("a", "eq", 1), filter("id", "not", "r0"), filter("b", "min", 1)])).to.deep.equal([
        "r1",
      ]);
    });
  });

  managedFieldFilterCases(store);

  describe("filters on tombstones", () => {
    async function liveAndDeleted(): Promise<void> {
      await seed(store(), articles, [{ status: 0 }, { status: 0 }, { status: 1 }]);
      await store().delete(articles, "r1");
      await store().delete(articles, "r2");
    }

    it("matches tombstones on last_modified when deleted entries are included", async () => {
      await liveAndDeleted();
      expect(await matchingIds(store(), articles, [filter("last_modified", "gt", 0)], true)).to.deep.equal(["r0", "r1", "r2"]);
      expect(await matchingIds(store(), articles, [filter("id", "in", ["r1"])], true)).to.deep.equal(["r1"]);
    });

    it("never matches tombstones on data fields they no longer have", async () => {
      await liveAndDeleted();
      expect(await matchingIds(store(), articles, [filter("status", "eq", 0)], true)).to.deep.equal(["r0"]);
      expect(await matchingIds(store(), articles, [filter("status", "not", 0)], true)).to.deep.equal(["r1", "r2"]);
    });

    it("matches tombstones as deleted: true", async () => {
      await liveAndDeleted();
      expect(await matchingIds(store(), articles, [filter("deleted", "eq", true)], true)).to.deep.equal(["r1", "r2"]);
      expect(await matchingIds(store(), articles, [filter("deleted", "not", true)], true)).to.deep.equal(["r0"]);
      expect(await matchingIds(store(), articles, [filter("deleted", "eq", false)], true)).to.deep.equal([]);
      expect(await matchingIds(store(), articles, [filter("deleted", "eq", true)], false)).to.deep.equal([]);
    });
  });
}
