import { expect } from "chai";
import { JsonTextRecord } from "../../src/domain/json-text-record.js";

describe("records whose data came as JSON text", () => {
  // As PostgreSQL prints jsonb: a space after every colon and comma, keys in its own order.
  const text = '{"n": 2, "tags": ["a", "b"], "title": "café \\"quoted\\""}';

  it("read like a plain record: fields, spreads, JSON and deep equality", () => {
    const record = new JsonTextRecord("r1", 17, text);
    const plain = { id: "r1", lastModified: 17, data: { n: 2, tags: ["a", "b"], title: 'café "quoted"' } };
    expect(record).to.deep.equal(plain);
    expect({ ...record }).to.deep.equal(plain);
    expect(JSON.parse(JSON.stringify(record))).to.deep.equal(plain);
    expect(Object.keys(record)).to.deep.equal(["id", "lastModified", "data"]);
    expect(record.data).to.equal(record.data, "parsed once, the same object after");
    expect(record).not.to.deep.equal({ ...plain, data: { ...plain.data, n: 3 } });
  });

  it("answer the API's body as text: the data's members, then id and last_modified", () => {
    expect(JsonTextRecord.bodyJson(new JsonTextRecord("r1", 17, text))).to.equal(
      '{"n": 2, "tags": ["a", "b"], "title": "café \\"quoted\\"","id":"r1","last_modified":17}',
    );
    expect(JsonTextRecord.bodyJson(new JsonTextRecord("r-2_x", 1700000000000, "{}"))).to.equal(
      '{"id":"r-2_x","last_modified":1700000000000}',
    );
    expect(JsonTextRecord.bodyJson(new JsonTextRecord("o", 4, '{"a": {}}'))).to.equal('{"a": {},"id":"o","last_modified":4}');
  });

  it("leave other records to be serialised as objects", () => {
    expect(JsonTextRecord.bodyJson({ id: "r1", lastModified: 17, data: { n: 2 } })).to.equal(undefined);
  });
});
