/** Items of issue 10 on one backend (memory): JSON nesting, text, numbers, query and URL bounds. */
import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http.js";

const ALICE = "alice:pw";

/** `{"a":{"a":…1…}}` with `levels` objects, written by hand so the test does not recurse. */
const nestedObjects = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
const nestedArrays = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;

describe("HTTP client input bounds", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ max_json_depth: "8", max_filters: "3", max_sort_fields: "2", max_url_length: "300" });
  });
  after(() => server.stop());
  afterEach(() => server.request("DELETE", "/v1/notes", { user: ALICE }));

  const put = (rawBody: string) =>
    server.request("PUT", "/v1/notes/n1", { user: ALICE, rawBody, headers: { "Content-Type": "application/json" } });
  const list = (query: string) => server.request("GET", `/v1/notes?${query}`, { user: ALICE });

  describe("JSON nesting (max_json_depth)", () => {
    it("accepts a body exactly at the limit and refuses one level more, objects and arrays alike", async () => {
      // the body {"data": {"x": …}} spends two levels on the envelope
      expect((await put(`{"data":{"x":${nestedObjects(6)}}}`)).status).to.equal(201);
      const deep = await put(`{"data":{"x":${nestedObjects(7)}}}`);
      expect(deep.status).to.equal(400);
      expect(deep.body.details).to.deep.equal([{ location: "body", name: null, description: "JSON nesting is limited to 8 levels" }]);
      expect((await put(`{"data":{"x":${nestedArrays(7)}}}`)).status).to.equal(400);
    });

    it("answers 400, not 500, for 10,000 levels, and stores nothing", async () => {
      const res = await put(`{"data":{"x":${nestedArrays(10_000)}}}`);
      expect(res.status).to.equal(400);
      expect((await server.request("GET", "/v1/notes/n1", { user: ALICE })).status).to.equal(404);
    });

    it("checks batch bodies, with the sub-request bodies inside them", async () => {
      const body = `{"requests":[{"method":"PUT","path":"/notes/n1","body":{"data":{"x":${nestedArrays(20)}}}}]}`;
      const res = await server.request("POST", "/v1/batch", {
        user: ALICE,
        rawBody: body,
        headers: { "Content-Type": "application/json" },
      });
      expect(res.status).to.equal(400);
      expect(res.body.details[0].description).to.equal("JSON nesting is limited to 8 levels");
    });

    it("checks JSON filter values", async () => {
      const res = await list(`in_x=${encodeURIComponent(nestedArrays(9))}`);
      expect(res.status).to.equal(400);
      expect(res.body.details).to.deep.equal([
        { location: "querystring", name: "in_x", description: "JSON nesting is limited to 8 levels" },
      ]);
    });

    it("does not outrank 401: an anonymous deep body is refused for its identity first", async () => {
      const res = await server.request("PUT", "/v1/notes/n1", {
        rawBody: `{"data":${nestedArrays(50)}}`,
        headers: { "Content-Type": "application/json" },
      });
      expect(res.status).to.equal(401);
    });
  });

  describe("text no store can hold", () => {
    const cases: [string, string, string | null][] = [
      ["a lone high surrogate in a value", String.raw`{"data":{"title":"a\ud800b"}}`, "data.title"],
      ["a lone low surrogate in a value", String.raw`{"data":{"title":"\udc00"}}`, "data.title"],
      ["a lone surrogate in a key", String.raw`{"data":{"t\ud800":1}}`, "data.t\ud800"],
      ["a lone surrogate in a nested array", String.raw`{"data":{"list":[1,["\ud83d"]]}}`, "data.list.1.0"],
    ];
    for (const [label, body, name] of cases) {
      it(`refuses ${label}`, async () => {
        const res = await put(body);
        expect(res.status).to.equal(400);
        expect(res.body.details).to.have.length(1);
        expect(res.body.details[0].name).to.equal(name);
        expect(res.body.details[0].description).to.match(/^Invalid unicode: lone surrogate/);
      });
    }

    it("keeps surrogate pairs (emoji), escaped or not", async () => {
      const res = await put(String.raw`{"data":{"a":"\ud83d\ude00","b":"😀"}}`);
      expect(res.status).to.equal(201);
      expect(res.body.data).to.include({ a: "😀", b: "😀" });
    });

    it("refuses NUL in values and keys", async () => {
      for (const body of [
        String.raw`{"data":{"title":"a\u0000"}}`,
        String.raw`{"data":{"a\u0000":1}}`,
        String.raw`{"data":{"x":{"y":["\u0000"]}}}`,
      ]) {
        const res = await put(body);
        expect(res.status, body).to.equal(400);
        expect(res.body.details[0].description, body).to.match(/^Invalid character 0x00/);
      }
    });

    it("refuses lone surrogates in filter values", async () => {
      const res = await list(`title=${encodeURIComponent(String.raw`"\ud800"`)}`);
      expect(res.status).to.equal(400);
      expect(res.body.details[0]).to.include({ location: "querystring", name: "title" });
    });
  });

  describe("numbers that would not be stored as written", () => {
    for (const literal of ["1e400", "-1e400", "1e-400", "-2.5e-999", "123456789e999", "-0.0", "9007199254740993"]) {
      it(`refuses ${literal}`, async () => {
        const res = await put(`{"data":{"n":${literal}}}`);
        expect(res.status).to.equal(400);
        expect(res.body.details[0].location).to.equal("body");
        expect(res.body.details[0].description).to.contain(literal);
      });
    }

    it("keeps zeros, subnormals and numbers inside strings", async () => {
      const res = await put(String.raw`{"data":{"a":0,"c":0.000e-400,"d":1e-320,"e":"1e400","f":"\"1e-400"}}`);
      expect(res.status).to.equal(201);
      expect(res.body.data).to.include({ a: 0, c: 0, d: 1e-320, e: "1e400", f: '"1e-400' });
    });

    it("refuses them in filter values too", async () => {
      expect((await list("n=1e400")).status).to.equal(400);
      expect((await list("gt_n=1e-400")).status).to.equal(400);
      expect((await list("n=1e300")).status).to.equal(200);
    });
  });

  describe("like_ patterns", () => {
    it("answers *a*a*a*c over a 1,000-character title without backtracking (it took ~37 s)", async () => {
      await put(JSON.stringify({ data: { title: "a".repeat(1000) } }));
      const res = await list("like_title=*a*a*a*c");
      expect(res.status).to.equal(200);
      expect(res.body.data).to.deep.equal([]);
      expect((await list("like_title=*A*a*A*")).body.data).to.have.length(1);
    });
  });

  describe("query and URL bounds", () => {
    it("refuses more sort fields than max_sort_fields", async () => {
      expect((await list("_sort=a,-b")).status).to.equal(200);
      const res = await list("_sort=a,b,c");
      expect(res.status).to.equal(400);
      expect(res.body.details).to.deep.equal([
        { location: "querystring", name: "_sort", description: "At most 2 sort fields are allowed" },
      ]);
    });

    it("refuses more filters than max_filters, _since and _before included", async () => {
      expect((await list("a=1&b=2&_since=1")).status).to.equal(200);
      for (const query of ["a=1&b=2&c=3&d=4", "a=1&b=2&_since=1&_before=9"]) {
        const res = await list(query);
        expect(res.status, query).to.equal(400);
        expect(res.body.details, query).to.deep.equal([
          { location: "querystring", name: null, description: "At most 3 filters are allowed" },
        ]);
      }
    });

    it("refuses a URL longer than max_url_length, on real requests and batch sub-requests", async () => {
      const long = `/v1/notes?title=${"x".repeat(300)}`;
      const res = await server.request("GET", long, { user: ALICE });
      expect(res.status).to.equal(400);
      expect(res.body.details).to.deep.equal([
        { location: "path", name: null, description: "URL and query string are limited to 300 characters" },
      ]);
      const batch = await server.request("POST", "/v1/batch", { user: ALICE, body: { requests: [{ path: "/notes" }, { path: long }] } });
      expect(batch.status).to.equal(400);
      expect(batch.body.details).to.deep.equal([
        { location: "body", name: "requests.1.path", description: "URL and query string are limited to 300 characters" },
      ]);
    });

    it("bounds sort fields and filters of batch sub-requests as well", async () => {
      const res = await server.request("POST", "/v1/batch", {
        user: ALICE,
        body: { requests: [{ path: "/notes?_sort=a,b,c" }, { path: "/notes?a=1&b=2&c=3&d=4" }] },
      });
      expect(res.status).to.equal(200);
      expect(res.body.responses.map((r: { status: number }) => r.status)).to.deep.equal([400, 400]);
    });
  });
});
