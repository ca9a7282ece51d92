/** Error bodies field by field as Kinto writes them (`info` aside, which we always add). */
import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http.js";

const ALICE = "alice:pw";

describe("Kinto compatibility: error texts", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await server.request("PUT", "/v1/articles/a1", { user: ALICE, body: { data: {} } });
  });
  after(() => server.stop());

  const post = (body: unknown) => server.request("POST", "/v1/articles", { user: ALICE, body });
  const withoutInfo = (body: Record<string, unknown>) => {
    const { info, ...rest } = body;
    expect(info, "info is always present").to.be.a("string");
    return rest;
  };

  it("invalid JSON: message 'Invalid JSON: …', two body details with an empty name", async () => {
    const res = await server.request("POST", "/v1/articles", {
      user: ALICE,
      rawBody: "{'foo>}",
      headers: { "Content-Type": "application/json" },
    });
    expect(res.status).to.equal(400);
    const body = withoutInfo(res.body);
    expect(body).to.include({ code: 400, errno: 107, error: "Invalid parameters" });
    expect(body.message).to.match(/^Invalid JSON: ./);
    expect(body.details).to.deep.equal([
      { location: "body", name: "", description: body.message },
      { location: "body", name: "", description: "Required" },
    ]);
  });

  it("unknown top-level attributes: one detail listing them the way colander prints a mapping", async () => {
    const res = await post({ data: { name: "ML" }, datta: {}, other: [1, "x", null, true] });
    expect(res.status).to.equal(400);
    const expected = `Unrecognized keys in mapping: "{'datta': {}, 'other': [1, 'x', None, True]}"`;
    expect(withoutInfo(res.body)).to.deep.equal({
      code: 400,
      errno: 107,
      error: "Invalid parameters",
      message: expected,
      details: [{ location: "body", name: "", description: expected }],
    });
  });

  it("invalid principals list: 'permissions.<perm> in body: \"…\" is not iterable'", async () => {
    const res = await post({ data: {}, permissions: { read: "abc" } });
    expect(res.body.message).to.equal('permissions.read in body: "abc" is not iterable');
    expect(res.body.details).to.deep.equal([{ location: "body", name: "permissions.read", description: '"abc" is not iterable' }]);
  });

  it("unknown permission name: named 'permissions', '\"foo\" is not one of read, write'", async () => {
    const res = await post({ data: {}, permissions: { foo: [] } });
    expect(res.body.message).to.equal('permissions in body: "foo" is not one of read, write');
    expect(res.body.details).to.deep.equal([{ location: "body", name: "permissions", description: '"foo" is not one of read, write' }]);
  });

  it("405: 'Method not allowed on this endpoint.' on resources and on the batch endpoint", async () => {
    for (const [method, path] of [
      ["PUT", "/v1/articles"],
      ["POST", "/v1/articles/a1"],
      ["GET", "/v1/batch"],
    ] as const) {
      const res = await server.request(method, path, { user: ALICE });
      expect(res.status, `${method} ${path}`).to.equal(405);
      expect(res.body, `${method} ${path}`).to.include({
        errno: 115,
        error: "Method Not Allowed",
        message: "Method not allowed on this endpoint.",
      });
    }
  });

  it("bad If-Match / If-None-Match: 'The value should be integer between double quotes.'", async () => {
    for (const header of ["If-Match", "If-None-Match"]) {
      const res = await server.request("GET", "/v1/articles/a1", { user: ALICE, headers: { [header]: "abc" } });
      expect(res.status).to.equal(400);
      expect(res.body.message).to.equal(`${header} in header: The value should be integer between double quotes.`);
      expect(res.body.details).to.deep.equal([
        { location: "header", name: header, description: "The value should be integer between double quotes." },
      ]);
    }
  });

  it("a querystring that is not UTF-8: 400 errno 107 'Bad Request' with Kinto's message", async () => {
    for (const qs of ["a=%82%AC", "%82=1"]) {
      const res = await server.request("GET", `/v1/articles?${qs}`, { user: ALICE });
      expect(res.status, qs).to.equal(400);
      expect(res.body, qs).to.include({ code: 400, errno: 107, error: "Bad Request" });
      expect(res.body.message, qs).to.equal(
        `A request with an incorrect encoding in the querystring wasreceived. Please make sure your requests are encoded in UTF-8: ${qs}`,
      );
    }
  });
});
