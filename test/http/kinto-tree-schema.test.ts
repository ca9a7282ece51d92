/**
 * Kinto's collection schema on the tree: a collection's `schema` must be a JSON Schema (always),
 * and with `experimental_collection_schema_validation` the records of a collection that has one
 * are validated against it (Kinto: test_views_schema_record, docs "collections": a missing
 * required field is named in `details`, a wrong type too; `id` and `last_modified` are not checked).
 */
import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http.js";

const ALICE = "alice:pw";
const SCHEMA = {
  type: "object",
  required: ["title", "id", "last_modified"],
  properties: { title: { type: "string" }, size: { type: "number" } },
  additionalProperties: false,
};

for (const validation of [true, false]) {
  describe(`Kinto's collection schema [validation ${validation ? "on" : "off"}]`, function () {
    this.timeout(20_000);
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ experimental_collection_schema_validation: String(validation) });
      for (const [path, body] of [
        ["/v1/buckets/b", {}],
        ["/v1/buckets/b/collections/c", { data: { schema: SCHEMA } }],
      ] as const)
        expect((await server.request("PUT", path, { user: ALICE, body })).status).to.equal(201);
    });
    after(() => server?.stop());
    const post = (data: object) => server.request("POST", "/v1/buckets/b/collections/c/records", { user: ALICE, body: { data } });

    it("refuses a collection schema that is not a JSON Schema, whatever the setting", async () => {
      const res = await server.request("PUT", "/v1/buckets/b/collections/bad", {
        user: ALICE,
        body: { data: { schema: { type: "Washmachine" } } },
      });
      expect(res.status).to.equal(400);
      expect((res.body as { details: { name: string }[] }).details[0]!.name).to.equal("data.schema");
    });

    it("answers a record missing a required field with 400 naming it, only when validating", async () => {
      const res = await post({ size: 1 });
      if (!validation) return void expect(res.status).to.equal(201);
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.include({ errno: 107, message: "'title' is a required property" });
      expect((res.body as { details: unknown[] }).details).to.deep.equal([
        { location: "body", name: "title", description: "'title' is a required property" },
      ]);
    });

    it("answers a wrong type and an unexpected field with 400 naming the field, only when validating", async () => {
      const wrong = await post({ title: "x", size: "hi!" });
      const extra = await post({ title: "x", extra: 1 });
      if (!validation) return void expect([wrong.status, extra.status]).to.deep.equal([201, 201]);
      expect([wrong.status, extra.status]).to.deep.equal([400, 400]);
      expect((wrong.body as { details: { name: string }[] }).details[0]!.name).to.equal("size");
      expect((extra.body as { details: { name: string }[] }).details[0]!.name).to.equal("extra");
    });

    it("accepts a valid record: its id and last_modified are not checked against the schema", async () => {
      const res = await post({ title: "x", size: 2 });
      expect(res.status).to.equal(201);
    });

    it("announces the schema capability only when validating", async () => {
      const root = (await server.request("GET", "/v1/")).body as { capabilities: Record<string, unknown> };
      expect("schema" in root.capabilities).to.equal(validation);
    });
  });
}
