import { expect } from "chai";
import { jsonEqual, jsonOrText } from "../../src/domain/json.js";

describe("JSON values", () => {
  it("compares arrays element by element, in order and length", () => {
    expect(jsonEqual([1, { a: [2, null] }], [1, { a: [2, null] }])).to.equal(true);
    expect(jsonEqual([1, 2], [2, 1])).to.equal(false);
    expect(jsonEqual([1], [1, 1])).to.equal(false);
    expect(jsonEqual([1, 2], [1, 3])).to.equal(false);
    expect(jsonEqual([], {})).to.equal(false);
    expect(jsonEqual([1], null)).to.equal(false);
  });

  it("compares objects by keys and values, ignoring key order", () => {
    expect(jsonEqual({ a: 1, b: { c: true } }, { b: { c: true }, a: 1 })).to.equal(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).to.equal(false);
    expect(jsonEqual({ a: undefined as never }, { b: undefined as never })).to.equal(false);
    expect(jsonEqual({}, [])).to.equal(false);
  });

  it("never equates a primitive with an object or array that looks like it", () => {
    expect(jsonEqual("x", { 0: "x" })).to.equal(false);
    expect(jsonEqual(1, {})).to.equal(false);
    expect(jsonEqual(true, {})).to.equal(false);
    expect(jsonEqual(1, 2)).to.equal(false);
    expect(jsonEqual(null, {})).to.equal(false);
    expect(jsonEqual(undefined, null)).to.equal(false);
    expect(jsonEqual("a", "a")).to.equal(true);
  });

  it("reads text as JSON when it parses, else keeps the text", () => {
    expect(jsonOrText("[1]")).to.deep.equal([1]);
    expect(jsonOrText("null")).to.equal(null);
    expect(jsonOrText("not json")).to.equal("not json");
  });
});
