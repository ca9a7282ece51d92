/**
 * Contract: filters on the managed fields (`id`, a string; `last_modified`, an integer) follow the
 * rules of data fields (and a `like` whose pattern is not a string matches nothing, on any field). `has` is what the HTTP query can ask beyond the filters.ts cases; values of
 * another type (or a non-integer timestamp) are refused by the HTTP query parser, but the port takes
 * any JSON value: both stores answer them by the total order (null < string < number < boolean <
 * array < object), as they do for a data field. PostgreSQL turns these into constants or a rounded
 * bound on the column (record-query-sql.ts), a translation nothing else checks.
 */
import { expect } from "chai";
import type { JsonValue } from "../../../src/domain/json.js";
import type { FilterOperator } from "../../../src/application/listing.js";
import { filter, matchingIds, scopeOf, seed, type StoreRef } from "./fixture.js";

const ALL = ["r0", "r1", "r2", "r3"];

export function managedFieldFilterCases(store: StoreRef): void {
  const articles = scopeOf("articles");
  const ids = (field: string, operator: FilterOperator, value: JsonValue) =>
    matchingIds(store(), articles, [filter(field, operator, value)]);

  describe("filters: managed fields, has and values of other types", () => {
    it("keeps with has true every record and with has false none, on id and last_modified", async () => {
      await seed(store(), articles, [{}, {}, {}, {}]);
      expect(await ids("id", "has", true)).to.deep.equal(ALL);
      expect(await ids("id", "has", false)).to.deep.equal([]);
      expect(await ids("last_modified", "has", true)).to.deep.equal(ALL);
      expect(await ids("last_modified", "has", false)).to.deep.equal([]);
    });

    it("compares id with gt and max as strings", async () => {
      await seed(store(), articles, [{}, {}, {}, {}]);
      expect(await ids("id", "gt", "r1")).to.deep.equal(["r2", "r3"]);
      expect(await ids("id", "max", "r1")).to.deep.equal(["r0", "r1"]);
      expect(await ids("id", "gt", "r")).to.deep.equal(ALL);
      expect(await ids("id", "max", "r3z")).to.deep.equal(ALL);
    });

    it("compares id with a value of another type by type: above null, below numbers and the rest", async () => {
      await seed(store(), articles, [{}, {}, {}, {}]);
      for (const value of [null] as JsonValue[]) {
        expect(await ids("id", "gt", value), `gt ${JSON.stringify(value)}`).to.deep.equal(ALL);
        expect(await ids("id", "min", value), `min ${JSON.stringify(value)}`).to.deep.equal(ALL);
        expect(await ids("id", "lt", value), `lt ${JSON.stringify(value)}`).to.deep.equal([]);
        expect(await ids("id", "max", value), `max ${JSON.stringify(value)}`).to.deep.equal([]);
      }
      for (const value of [0, 5, true, ["r1"], { id: "r1" }] as JsonValue[]) {
        expect(await ids("id", "gt", value), `gt ${JSON.stringify(value)}`).to.deep.equal([]);
        expect(await ids("id", "min", value), `min ${JSON.stringify(value)}`).to.deep.equal([]);
        expect(await ids("id", "lt", value), `lt ${JSON.stringify(value)}`).to.deep.equal(ALL);
        expect(await ids("id", "max", value), `max ${JSON.stringify(value)}`).to.deep.equal(ALL);
      }
    });

    it("compares last_modified with a value of another type by type: above null and strings, below booleans and the rest", async () => {
      await seed(store(), articles, [{}, {}, {}, {}]);
      for (const value of [null, "", "99999999999999"] as JsonValue[]) {
        expect(await ids("last_modified", "gt", value), `gt ${JSON.stringify(value)}`).to.deep.equal(ALL);
        expect(await ids("last_modified", "min", value), `min ${JSON.stringify(value)}`).to.deep.equal(ALL);
        expect(await ids("last_modified", "lt", value), `lt ${JSON.stringify(value)}`).to.deep.equal([]);
        expect(await ids("last_modified", "max", value), `max ${JSON.stringify(value)}`).to.deep.equal([]);
      }
      for (const value of [false, [0], {}] as JsonValue[]) {
        expect(await ids("last_modified", "gt", value), `gt ${JSON.stringify(value)}`).to.deep.equal([]);
        expect(await ids("last_modified", "min", value), `min ${JSON.stringify(value)}`).to.deep.equal([]);
        expect(await ids("last_modified", "lt", value), `lt ${JSON.stringify(value)}`).to.deep.equal(ALL);
        expect(await ids("last_modified", "max", value), `max ${JSON.stringify(value)}`).to.deep.equal(ALL);
      }
    });

    it("compares last_modified with a non-integer between two timestamps", async () => {
      const seeded = await seed(store(), articles, [{}, {}, {}, {}]);
      const half = seeded[1]!.lastModified + 0.5; // between r1's timestamp and r2's (integers, strictly increasing)
      expect(await ids("last_modified", "gt", half)).to.deep.equal(["r2", "r3"]);
      expect(await ids("last_modified", "min", half)).to.deep.equal(["r2", "r3"]);
      expect(await ids("last_modified", "lt", half)).to.deep.equal(["r0", "r1"]);
      expect(await ids("last_modified", "max", half)).to.deep.equal(["r0", "r1"]);
      expect(await ids("last_modified", "eq", half)).to.deep.equal([]);
      expect(await ids("last_modified", "not", half)).to.deep.equal(ALL);
    });

    it("never finds a managed field equal to a value of another type", async () => {
      const seeded = await seed(store(), articles, [{}, {}, {}, {}]);
      const r1 = seeded[1]!.lastModified;
      expect(await ids("id", "eq", 1)).to.deep.equal([]);
      expect(await ids("id", "not", 1)).to.deep.equal(ALL);
      expect(await ids("last_modified", "eq", String(r1))).to.deep.equal([]);
      expect(await ids("last_modified", "not", String(r1))).to.deep.equal(ALL);
      expect(await ids("id", "in", [1, "r1", null])).to.deep.equal(["r1"]);
      expect(await ids("id", "in", [1, null])).to.deep.equal([]);
      expect(await ids("id", "exclude", [1, "r1"])).to.deep.equal(["r0", "r2", "r3"]);
      expect(await ids("id", "exclude", [1, null])).to.deep.equal(ALL);
      expect(await ids("last_modified", "in", [String(r1), r1 + 0.5, seeded[2]!.lastModified])).to.deep.equal(["r2"]);
      expect(await ids("last_modified", "exclude", [String(r1), r1 + 0.5])).to.deep.equal(ALL);
    });

    it("takes a single value for in and exclude as a list of one", async () => {
      const seeded = await seed(store(), articles, [{}, {}, {}, {}]);
      expect(await ids("id", "in", "r1")).to.deep.equal(["r1"]);
      expect(await ids("id", "exclude", "r1")).to.deep.equal(["r0", "r2", "r3"]);
      expect(await ids("last_modified", "in", seeded[2]!.lastModified)).to.deep.equal(["r2"]);
    });

    it("matches like only on id with a string pattern, and contains never", async () => {
      await seed(store(), articles, [{}, {}, {}, {}]);
      expect(await ids("id", "like", "R*")).to.deep.equal(ALL);
      expect(await ids("id", "like", 1)).to.deep.equal([]);
      expect(await ids("last_modified", "like", "*")).to.deep.equal([]);
      expect(await ids("id", "contains", ["r1"])).to.deep.equal([]);
      expect(await ids("id", "contains_any", ["r1"])).to.deep.equal([]);
      expect(await ids("last_modified", "contains", [])).to.deep.equal([]);
      expect(await ids("last_modified", "contains_any", [1])).to.deep.equal([]);
    });

    it("matches nothing with a like whose pattern is not a string, not even an empty string", async () => {
      await seed(store(), articles, [{ s: "" }, { s: "5" }, { s: 5 }, {}]);
      expect(await ids("s", "like", 5)).to.deep.equal([]);
      expect(await ids("s", "like", null)).to.deep.equal([]);
      expect(await ids("s", "like", "")).to.deep.equal(["r0"]);
    });
  });
}
