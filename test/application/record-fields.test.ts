/** The value filters and sorting read from a record or tombstone at a (dotted) field. */
import { expect } from "chai";
import { fieldValue } from "../../src/application/record-fields.js";

describe("record fields", () => {
  const record = { id: "r1", lastModified: 10, data: { title: "t", author: { name: "n", tags: ["x"] }, count: 3, nothing: null } };
  const tombstone = { id: "r2", lastModified: 11, deleted: true as const };

  it("reads id, last_modified and data fields, nested through objects", () => {
    expect(fieldValue(record, "id")).to.equal("r1");
    expect(fieldValue(record, "last_modified")).to.equal(10);
    expect(fieldValue(record, "title")).to.equal("t");
    expect(fieldValue(record, "author.name")).to.equal("n");
    expect(fieldValue(record, "author")).to.deep.equal({ name: "n", tags: ["x"] });
    expect(fieldValue(record, "nothing")).to.equal(null);
  });

  it("finds nothing below a non-object, nor in members a JSON object does not own", () => {
    expect(fieldValue(record, "count.x")).to.equal(undefined);
    expect(fieldValue(record, "nothing.x")).to.equal(undefined);
    expect(fieldValue(record, "author.tags.0")).to.equal(undefined);
    expect(fieldValue(record, "missing")).to.equal(undefined);
    expect(fieldValue(record, "toString")).to.equal(undefined);
    expect(fieldValue(record, "author.constructor")).to.equal(undefined);
  });

  it("gives a tombstone only its id, last_modified and deleted: true", () => {
    expect(fieldValue(tombstone, "id")).to.equal("r2");
    expect(fieldValue(tombstone, "last_modified")).to.equal(11);
    expect(fieldValue(tombstone, "deleted")).to.equal(true);
    expect(fieldValue(tombstone, "title")).to.equal(undefined);
    expect(fieldValue(record, "deleted")).to.equal(undefined);
  });
});
