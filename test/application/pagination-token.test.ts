import { expect } from "chai";
import { ValidationError } from "../../src/domain/errors.js";
import { PaginationTokens } from "../../src/application/pagination-token.js";
import type { SortKey } from "../../src/application/listing.js";

describe("pagination tokens", () => {
  const tokens = new PaginationTokens("secret");
  const sort: SortKey[] = [
    { field: "title", descending: false },
    { field: "last_modified", descending: true },
  ];
  const position = { cursor: { values: ["b", 12] }, upTo: 20 };

  it("round-trips the last entry's sort values and the walk's bound", () => {
    expect(tokens.decode(tokens.encode(sort, [], position), sort, [])).to.deep.equal(position);
  });

  it("keeps a missing sort value missing", () => {
    const missing = { cursor: { values: [undefined, 12] }, upTo: 20 };
    expect(tokens.decode(tokens.encode(sort, [], missing), sort, [])).to.deep.equal(missing);
  });

  const refusals: [string, string][] = [
    ["not base64 JSON", "%%%"],
    ["JSON that is not an object", Buffer.from("[1]").toString("base64")],
    ["an object without a signature", Buffer.from(JSON.stringify({ last_object: {}, up_to: 1 })).toString("base64")],
    [
      "a forged position",
      Buffer.from(
        JSON.stringify({
          ...JSON.parse(Buffer.from(new PaginationTokens("secret").encode(sort, [], position), "base64").toString()),
          up_to: 99,
        }),
      ).toString("base64"),
    ],
  ];
  for (const [what, token] of refusals) {
    it(`refuses ${what} with a 400`, () => {
      expect(() => tokens.decode(token, sort, [])).to.throw(ValidationError);
    });
  }

  it("refuses a token issued for another query", () => {
    const token = tokens.encode(sort, [], position);
    expect(() => tokens.decode(token, [{ field: "last_modified", descending: true }], [])).to.throw(ValidationError);
    expect(() => tokens.decode(token, sort, [{ field: "a", operator: "eq", value: 1 }])).to.throw(ValidationError);
  });

  const payloadOf = (token: string) => JSON.parse(Buffer.from(token, "base64").toString()) as Record<string, unknown>;
  const tokenOf = (payload: Record<string, unknown>) => Buffer.from(JSON.stringify(payload)).toString("base64");

  it("refuses, with a 400 and never a crash, a signature of the wrong length and a position that is not an object", () => {
    const payload = payloadOf(tokens.encode(sort, [], position));
    for (const forged of [
      { ...payload, sig: "abcd" },
      { ...payload, last_object: null },
      { ...payload, last_object: "b" },
      { ...payload, up_to: 1.5 },
    ]) {
      const error = (() => {
        try {
          tokens.decode(tokenOf(forged), sort, []);
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(error, JSON.stringify(forged)).to.be.instanceOf(ValidationError);
      expect((error as ValidationError).details).to.deep.equal([
        { location: "querystring", name: "_token", description: "_token has invalid content" },
      ]);
    }
  });

  it("binds the token to the filters' values, not only to how many there are", () => {
    const token = tokens.encode(sort, [{ field: "a", operator: "eq", value: 1 }], position);
    expect(() => tokens.decode(token, sort, [{ field: "a", operator: "eq", value: 2 }])).to.throw(ValidationError);
    expect(() => tokens.decode(token, sort, [{ field: "a", operator: "not", value: 1 }])).to.throw(ValidationError);
    expect(() => tokens.decode(token, sort, [{ field: "b", operator: "eq", value: 1 }])).to.throw(ValidationError);
    expect(tokens.decode(token, sort, [{ field: "a", operator: "eq", value: 1 }])).to.deep.equal(position);
  });

  it("signs the position whatever the order of its keys", () => {
    const payload = payloadOf(tokens.encode(sort, [], position));
    const lastObject = payload.last_object as Record<string, unknown>;
    const reordered = Object.fromEntries(Object.entries(lastObject).reverse());
    expect(Object.keys(reordered)).to.deep.equal(Object.keys(lastObject).reverse());
    expect(tokens.decode(tokenOf({ ...payload, last_object: reordered }), sort, [])).to.deep.equal(position);
  });
  it("signs a position of four sort keys whatever the order of its keys (every one of the 24 orders)", () => {
    const fourKeys: SortKey[] = [
      { field: "c", descending: false },
      { field: "a", descending: true },
      { field: "d", descending: false },
      { field: "last_modified", descending: true },
    ];
    const at = { cursor: { values: [3, 1, 4, 12] }, upTo: 20 };
    const payload = payloadOf(tokens.encode(fourKeys, [], at));
    const entries = Object.entries(payload.last_object as Record<string, unknown>);
    const orders = (items: [string, unknown][]): [string, unknown][][] =>
      items.length <= 1
        ? [items]
        : items.flatMap((item, i) => orders([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
    const all = orders(entries);
    expect(all).to.have.length(24);
    for (const order of all) {
      const token = tokenOf({ ...payload, last_object: Object.fromEntries(order) });
      expect(tokens.decode(token, fourKeys, []), order.map(([k]) => k).join()).to.deep.equal(at);
    }
  });
});
