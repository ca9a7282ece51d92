import { expect } from "chai";
import fc from "fast-check";
import { startTestServer, type TestServer } from "../support/http.js";
import { nextPath, recordsOf, walkNextPages } from "../support/page-walk.js";
import { underCi } from "../support/services.js";

type Value = null | number | string | boolean;
type Row = { id: string; last_modified: number; deleted?: boolean; [field: string]: Value | undefined };
type Op = "eq" | "not" | "min" | "max" | "gt" | "lt" | "in" | "exclude" | "has";
interface FilterSpec {
  field: "a" | "b";
  op: Op;
  values: Value[];
}
interface SortSpec {
  field: "a" | "b" | "id" | "last_modified";
  descending: boolean;
}

const FIELDS = ["a", "b"] as const;
const value: fc.Arbitrary<Value> = fc.oneof(
  fc.constant(null),
  fc.integer({ min: 0, max: 3 }),
  fc.constantFrom("a", "b", "B"),
  fc.boolean(),
);
/** A record's fields: each one may be missing. */
const fields = fc.record({ a: value, b: value }, { requiredKeys: [] });
const filterSpec: fc.Arbitrary<FilterSpec> = fc.record({
  field: fc.constantFrom(...FIELDS),
  op: fc.constantFrom<Op>("eq", "not", "min", "max", "gt", "lt", "in", "exclude", "has"),
  values: fc.array(value, { minLength: 1, maxLength: 3 }),
});
const sortSpec: fc.Arbitrary<SortSpec> = fc.record({ field: fc.constantFrom("a", "b", "id", "last_modified"), descending: fc.boolean() });

/** The order of api-contract §6: null < string < number < boolean, a missing value after all. */
function rank(v: Value | undefined): number {
  if (v === undefined) return 9;
  if (v === null) return 0;
  return { string: 1, number: 2, boolean: 3 }[typeof v as "string" | "number" | "boolean"];
}
function compare(x: Value | undefined, y: Value | undefined): number {
  const r = rank(x) - rank(y);
  if (r !== 0 || x === undefined || x === null) return r;
  if (typeof x === "string") return x < (y as string) ? -1 : x > (y as string) ? 1 : 0;
  return Number(x) - Number(y);
}

function matches(row: Row, f: FilterSpec): boolean {
  const v = row[f.field];
  const present = v !== undefined;
  const [first] = f.values as [Value];
  const equal = (w: Value) => present && compare(v, w) === 0;
  switch (f.op) {
    case "eq":
      return equal(first);
    case "not":
      return !equal(first);
    case "in":
      return f.values.some(equal);
    case "exclude":
      return !f.values.some(equal);
    case "min":
      return compare(v, first) >= 0;
    case "gt":
      return compare(v, first) > 0;
    case "max":
      return present && compare(v, first) <= 0;
    case "lt":
      return present && compare(v, first) < 0;
    case "has":
      return present === (first === true);
  }
}

/** `_sort` plus the `-last_modified` tie-breaker the server appends. */
function order(sort: SortSpec[]): (x: Row, y: Row) => number {
  const keys = sort.some((k) => k.field === "last_modified") ? sort : [...sort, { field: "last_modified" as const, descending: true }];
  return (x, y) => {
    for (const k of keys) {
      const c = compare(x[k.field], y[k.field]);
      if (c !== 0) return k.descending ? -c : c;
    }
    return 0;
  };
}

function queryOf(filters: FilterSpec[], sort: SortSpec[], limit: number, since: boolean): string {
  const params = new URLSearchParams();
  if (since) params.set("_since", "0");
  for (const f of filters) {
    if (f.op === "has") params.append(`has_${f.field}`, String(f.values[0] === true));
    else if (f.op === "in" || f.op === "exclude") params.append(`${f.op}_${f.field}`, f.values.map((v) => JSON.stringify(v)).join(","));
    else params.append(`${f.op}_${f.field}`, JSON.stringify(f.values[0]));
  }
  // Duplicate sort keys would make the expected order ambiguous; keep each field's first.
  const unique = sort.filter((k, i) => sort.findIndex((o) => o.field === k.field) === i);
  if (unique.length > 0) params.set("_sort", unique.map((k) => `${k.descending ? "-" : ""}${k.field}`).join(","));
  params.set("_limit", String(limit));
  return params.toString();
}

describe("HTTP pagination (property)", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  it("walking every page returns exactly the filtered, sorted records, once each", async function () {
    this.timeout(30_000);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fields, { maxLength: 12 }),
        fc.array(fc.nat(11), { maxLength: 3 }),
        fc.array(filterSpec, { maxLength: 2 }),
        fc.array(sortSpec, { maxLength: 3 }),
        fc.integer({ min: 1, max: 5 }),
        fc.boolean(),
        async (records, deletions, filters, sort, limit, since) => {
          const user = `prop${run++}:pw`;
          const rows = new Map<string, Row>();
          for (const [i, data] of records.entries()) {
            const res = await server.request("PUT", `/v1/notes/r${i}`, { user, body: { data } });
            expect(res.status).to.equal(201);
            rows.set(res.body.data.id, res.body.data);
          }
          // With a last_modified filter, tombstones are listed too, matching as records without fields.
          const tombstones: Row[] = [];
          for (const i of deletions) {
            if (!rows.delete(`r${i}`)) continue;
            const res = await server.request("DELETE", `/v1/notes/r${i}`, { user });
            expect(res.status).to.equal(200);
            tombstones.push(res.body.data);
          }
          const uniqueSort = sort.filter((k, i) => sort.findIndex((o) => o.field === k.field) === i);
          const live = [...rows.values()].filter((r) => filters.every((f) => matches(r, f)));
          const expected = [...live, ...(since ? tombstones.filter((r) => filters.every((f) => matches(r, f))) : [])].sort(
            order(uniqueSort),
          );

          const pages = await walkNextPages(
            server,
            `/v1/notes?${queryOf(filters, sort, limit, since)}`,
            user,
            Math.ceil(expected.length / limit) + 1,
          );
          for (const page of pages) {
            expect(page.body.data.length).to.be.at.most(limit);
            if (nextPath(page)) expect(page.body.data.length).to.equal(limit);
          }
          const seen = recordsOf<Row>(pages);
          expect(seen.map((r) => r.id)).to.deep.equal(expected.map((r) => r.id));
          expect(seen.filter((r) => r.deleted).length).to.equal(expected.filter((r) => r.deleted).length);
          const head = await server.request("HEAD", `/v1/notes?${queryOf(filters, [], 1, since)}`, { user });
          expect(head.headers.get("total-records")).to.equal(String(live.length));
        },
      ),
      { numRuns: underCi() ? 100 : 40 },
    );
  });
});
