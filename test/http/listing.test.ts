import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http.js";
import { walkNextPages } from "../support/page-walk.js";

const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((r) => r.id);
const sortedIds = (res: { body: { data: { id: string }[] } }) => ids(res).sort();
/** Path and query of an absolute Next-Page URL. */
const relative = (url: string) => new URL(url).pathname + new URL(url).search;

async function put(server: TestServer, user: string, id: string, data: object): Promise<{ id: string; last_modified: number }> {
  const res = await server.request("PUT", `/v1/notes/${id}`, { user, body: { data } });
  expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 201]);
  return res.body.data;
}

describe("HTTP listing", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  describe("filters with JSON-typed values", () => {
    const USER = "filters:pw";
    before(async () => {
      await put(server, USER, "a", { n: 1, s: "apple", tags: ["x", "y"], author: { name: "Ann" }, flag: true });
      await put(server, USER, "b", { n: 2, s: "Banana", tags: ["y"], author: { name: "bob" } });
      await put(server, USER, "c", { n: 3, s: "cherry", tags: [], flag: false });
      await put(server, USER, "d", { n: "1", s: "date" });
      await put(server, USER, "e", { s: null, tags: ["z", { k: 1 }] });
    });

    const cases: [string, string[]][] = [
      ["n=1", ["a"]],
      ['n="1"', ["d"]],
      ["eq_n=2", ["b"]],
      ["not_n=1", ["b", "c", "d", "e"]],
      ["min_n=2", ["b", "c", "e"]],
      ["max_n=2", ["a", "b", "d"]],
      ["gt_n=2", ["c", "e"]],
      ["lt_n=2", ["a", "d"]],
      ["in_n=1,3", ["a", "c"]],
      ['in_n="1",2', ["b", "d"]],
      ["exclude_n=1,2", ["c", "d", "e"]],
      ["like_s=AN", ["b"]],
      ["like_s=a*", ["a"]],
      ["like_s=*rry", ["c"]],
      ["has_flag=true", ["a", "c"]],
      ["has_flag=false", ["b", "d", "e"]],
      ["has_s=true", ["a", "b", "c", "d", "e"]],
      ["s=null", ["e"]],
      ["flag=false", ["c"]],
      ["contains_tags=y", ["a", "b"]],
      ['contains_tags=["x","y"]', ["a"]],
      ['contains_any_tags=["x","z"]', ["a", "e"]],
      ['contains_tags={"k":1}', ["e"]],
      ["author.name=Ann", ["a"]],
      ["like_author.name=B", ["b"]],
      ["id=c", ["c"]],
      ["in_id=a,d", ["a", "d"]],
      ["exclude_id=a,b,c", ["d", "e"]],
      ["n=1&s=apple", ["a"]],
      ["n=1&s=date", []],
      ["_unknown=1", ["a", "b", "c", "d", "e"]],
    ];
    for (const [query, expected] of cases) {
      it(`?${query} → [${expected.join(", ")}]`, async () => {
        const res = await server.request("GET", `/v1/notes?${query.replace(/"/g, "%22").replace(/[{}[\]]/g, encodeURIComponent)}`, {
          user: USER,
        });
        expect(res.status).to.equal(200);
        expect(sortedIds(res)).to.deep.equal(expected);
      });
    }

    it("treats names of Object.prototype members as plain fields (and _-prefixed ones as ignored)", async () => {
      await put(server, USER, "proto", { constructor: 1, toString: "x" });
      for (const [query, expected] of [
        ["constructor=1", ["proto"]],
        ["__proto__=1", ["a", "b", "c", "d", "e", "proto"]],
        ["toString=x", ["proto"]],
        ["has_constructor=false", ["a", "b", "c", "d", "e"]],
      ] as const) {
        const res = await server.request("GET", `/v1/notes?${query}`, { user: USER });
        expect(res.status, query).to.equal(200);
        expect(sortedIds(res), query).to.deep.equal(expected);
      }
      await server.request("DELETE", "/v1/notes/proto", { user: USER });
    });

    it("HEAD counts with the same filters", async () => {
      const res = await server.request("HEAD", "/v1/notes?not_n=1", { user: USER });
      expect(res.headers.get("total-records")).to.equal("4");
    });

    it("refuses like_ with a non-string value and contains_ on managed fields with 400", async () => {
      for (const query of ["like_s=10", "contains_id=a", "contains_any_last_modified=1", "has_flag=maybe"]) {
        const res = await server.request("GET", `/v1/notes?${query}`, { user: USER });
        expect(res.status, query).to.equal(400);
        expect(res.body.errno).to.equal(107);
        expect(res.body.details[0]).to.include({ location: "querystring", name: query.split("=")[0] });
      }
    });
  });

  describe("_sort, _fields and _limit", () => {
    const USER = "sorting:pw";
    before(async () => {
      await put(server, USER, "r1", { g: 1, rank: 5, meta: { x: 1, y: 2 } });
      await put(server, USER, "r2", { g: 2, rank: 1 });
      await put(server, USER, "r3", { g: 1, rank: 9 });
      await put(server, USER, "r4", { g: 2, rank: 7 });
      await put(server, USER, "r5", { g: 1, rank: 5 });
    });

    it("sorts by -last_modified by default", async () => {
      expect(ids(await server.request("GET", "/v1/notes", { user: USER }))).to.deep.equal(["r5", "r4", "r3", "r2", "r1"]);
    });

    it("sorts on several keys, - descending, last_modified descending breaking ties", async () => {
      expect(ids(await server.request("GET", "/v1/notes?_sort=g,-rank", { user: USER }))).to.deep.equal(["r3", "r5", "r1", "r4", "r2"]);
      expect(ids(await server.request("GET", "/v1/notes?_sort=-g,rank", { user: USER }))).to.deep.equal(["r2", "r4", "r5", "r1", "r3"]);
      expect(ids(await server.request("GET", "/v1/notes?_sort=last_modified", { user: USER }))).to.deep.equal([
        "r1",
        "r2",
        "r3",
        "r4",
        "r5",
      ]);
    });

    it("_fields keeps only the named (dotted) fields plus id and last_modified", async () => {
      const res = await server.request("GET", "/v1/notes?_fields=meta.x,rank&id=r1", { user: USER });
      expect(res.body.data).to.have.length(1);
      expect(res.body.data[0]).to.have.keys("id", "last_modified", "rank", "meta");
      expect(res.body.data[0].meta).to.deep.equal({ x: 1 });
      const one = await server.request("GET", "/v1/notes/r1?_fields=g", { user: USER });
      expect(one.body.data).to.have.keys("id", "last_modified", "g");
    });

    it("_limit cuts the page and 0 means no limit", async () => {
      expect(ids(await server.request("GET", "/v1/notes?_limit=2", { user: USER }))).to.deep.equal(["r5", "r4"]);
      expect(ids(await server.request("GET", "/v1/notes?_limit=0", { user: USER }))).to.have.length(5);
    });

    it("refuses a _limit that is not a non-negative integer with 400", async () => {
      for (const value of ["abc", "-1", "1.5"]) {
        const res = await server.request("GET", `/v1/notes?_limit=${value}`, { user: USER });
        expect(res.status, value).to.equal(400);
        expect(res.body.details[0]).to.include({ location: "querystring", name: "_limit" });
      }
    });
  });

  describe("timestamps and tombstones", () => {
    const USER = "stamps:pw";
    let t: number[];
    let deletedAt: number;
    before(async () => {
      t = [];
      for (const id of ["t0", "t1", "t2", "t3"]) t.push((await put(server, USER, id, { v: id })).last_modified);
      const res = await server.request("DELETE", "/v1/notes/t1", { user: USER });
      deletedAt = res.body.data.last_modified;
    });

    it("_since, since and gt_last_modified mean last_modified > ts, tombstones included", async () => {
      for (const param of ["_since", "since", "gt_last_modified"]) {
        const res = await server.request("GET", `/v1/notes?${param}=${t[1]}`, { user: USER });
        expect(res.status, param).to.equal(200);
        expect(res.body.data, param).to.deep.include({ id: "t1", last_modified: deletedAt, deleted: true });
        expect(sortedIds(res), param).to.deep.equal(["t1", "t2", "t3"]);
      }
    });

    it("accepts the ETag form with quotes", async () => {
      const res = await server.request("GET", `/v1/notes?_since=%22${t[2]}%22`, { user: USER });
      expect(sortedIds(res)).to.deep.equal(["t1", "t3"]);
    });

    it("_before means last_modified < ts; _to too, with an Alert header", async () => {
      const before = await server.request("GET", `/v1/notes?_before=${t[2]}`, { user: USER });
      expect(sortedIds(before)).to.deep.equal(["t0"]);
      expect(before.headers.get("alert")).to.equal(null);
      const to = await server.request("GET", `/v1/notes?_to=${t[2]}`, { user: USER });
      expect(sortedIds(to)).to.deep.equal(["t0"]);
      const alert = JSON.parse(to.headers.get("alert") ?? "{}");
      expect(alert.message).to.include("_before");
    });

    it("lists tombstones only with a last_modified filter; deleted=true alone finds nothing", async () => {
      expect(sortedIds(await server.request("GET", "/v1/notes", { user: USER }))).to.deep.equal(["t0", "t2", "t3"]);
      expect(ids(await server.request("GET", "/v1/notes?deleted=true", { user: USER }))).to.deep.equal([]);
      const withFilter = await server.request("GET", `/v1/notes?min_last_modified=0&deleted=true`, { user: USER });
      expect(ids(withFilter)).to.deep.equal(["t1"]);
    });

    it("never counts tombstones", async () => {
      const res = await server.request("HEAD", "/v1/notes?_since=0", { user: USER });
      expect(res.headers.get("total-records")).to.equal("3");
    });

    it("ignores _since=null", async () => {
      expect(sortedIds(await server.request("GET", "/v1/notes?_since=null", { user: USER }))).to.deep.equal(["t0", "t2", "t3"]);
    });

    it("refuses non-integer, negative and far-future timestamps with 400", async () => {
      const future = Date.now() + 2 * 24 * 3600 * 1000;
      for (const query of [
        "_since=abc",
        `_since=${future}`,
        "_before=-1",
        "_to=1.5",
        "last_modified=abc",
        `lt_last_modified=${future}`,
        "in_last_modified=1,x",
      ]) {
        const res = await server.request("GET", `/v1/notes?${query}`, { user: USER });
        expect(res.status, query).to.equal(400);
        expect(res.body.details[0], query).to.include({ location: "querystring", name: query.split("=")[0] });
      }
    });
  });

  describe("pagination", () => {
    const USER = "pages:pw";
    before(async () => {
      for (let i = 0; i < 6; i++) await put(server, USER, `p${i}`, { rank: i, odd: i % 2 === 1 });
    });

    it("gives an absolute Next-Page with host, port, every parameter, _limit and _token", async () => {
      const res = await server.request("GET", "/v1/notes?_sort=rank&_limit=2&odd=false&_fields=rank&_foo=bar", { user: USER });
      expect(ids(res)).to.deep.equal(["p0", "p2"]);
      const next = new URL(res.headers.get("next-page") ?? "");
      expect(`${next.protocol}//${next.host}`).to.equal(server.url);
      expect(next.port).to.not.equal("");
      expect(next.pathname).to.equal("/v1/notes");
      expect(next.searchParams.get("_sort")).to.equal("rank");
      expect(next.searchParams.get("_limit")).to.equal("2");
      expect(next.searchParams.get("odd")).to.equal("false");
      expect(next.searchParams.get("_fields")).to.equal("rank");
      expect(next.searchParams.get("_foo")).to.equal("bar");
      expect(next.searchParams.get("_token")).to.be.a("string").and.not.empty;
      const page2 = await server.request("GET", relative(next.href), { user: USER });
      expect(ids(page2)).to.deep.equal(["p4"]);
      expect(page2.body.data[0]).to.have.keys("id", "last_modified", "rank");
      expect(page2.headers.get("next-page")).to.equal(null);
    });

    it("builds Next-Page from http_scheme and http_host when set", async () => {
      const proxied = await startTestServer({ http_scheme: "https", http_host: "records.example.com:8443" });
      try {
        for (let i = 0; i < 3; i++) await put(proxied, USER, `h${i}`, {});
        const res = await proxied.request("GET", "/v1/notes?_limit=2", { user: USER });
        expect(res.headers.get("next-page")).to.match(/^https:\/\/records\.example\.com:8443\/v1\/notes\?_limit=2&_token=/);
      } finally {
        await proxied.stop();
      }
    });

    it("gives no Next-Page when the rest fits exactly", async () => {
      const first = await server.request("GET", "/v1/notes?_sort=rank&_limit=3", { user: USER });
      const second = await server.request("GET", relative(first.headers.get("next-page") ?? ""), { user: USER });
      expect(ids(second)).to.deep.equal(["p3", "p4", "p5"]);
      expect(second.headers.get("next-page")).to.equal(null);
      expect((await server.request("GET", "/v1/notes?_limit=6", { user: USER })).headers.get("next-page")).to.equal(null);
    });

    it("uses an opaque base64 token: base64 of a JSON object", async () => {
      const res = await server.request("GET", "/v1/notes?_sort=rank&_limit=2", { user: USER });
      const token = new URL(res.headers.get("next-page") ?? "").searchParams.get("_token") ?? "";
      expect(JSON.parse(Buffer.from(token, "base64").toString("utf8"))).to.be.an("object");
    });

    it("refuses malformed, forged and transplanted tokens with 400, never 500", async () => {
      const res = await server.request("GET", "/v1/notes?_sort=rank&_limit=2", { user: USER });
      const token = new URL(res.headers.get("next-page") ?? "").searchParams.get("_token") ?? "";
      const decoded = JSON.parse(Buffer.from(token, "base64").toString("utf8"));
      const forged = Buffer.from(JSON.stringify({ ...decoded, last_object: { ...decoded.last_object, rank: -1 } })).toString("base64");
      const b64 = (text: string) => encodeURIComponent(Buffer.from(text).toString("base64"));
      const bad = [
        "abc",
        "%%%",
        b64("not json"),
        b64("[]"),
        b64("null"),
        b64('{"last_object": 1}'),
        b64('{"last_object": {}, "offset": 1, "nonce": "x"}'),
        encodeURIComponent(forged),
      ];
      for (const value of bad) {
        const r = await server.request("GET", `/v1/notes?_sort=rank&_limit=2&_token=${value}`, { user: USER });
        expect(r.status, value).to.equal(400);
        expect(r.body.details[0], value).to.include({ location: "querystring", name: "_token" });
      }
      const transplanted = await server.request("GET", `/v1/notes?_sort=-rank&_limit=2&_token=${encodeURIComponent(token)}`, {
        user: USER,
      });
      expect(transplanted.status).to.equal(400);
    });

    it("never returns a record twice, nor misses one, while the collection changes during the walk", async () => {
      const WALKER = "walker:pw";
      const originals = Array.from({ length: 10 }, (_, i) => `w${i}`);
      for (const [i, id] of originals.entries()) await put(server, WALKER, id, { rank: i });
      for (const sort of ["", "&_sort=rank", "&_sort=-rank"]) {
        // Move records already seen to the end of every order, and add others: records written
        // after the first page are left out, the others must all come, once.
        const pages = await walkNextPages(server, `/v1/notes?_limit=3${sort}`, WALKER, 10, async (page, round) => {
          for (const id of ids(page)) await put(server, WALKER, id, { rank: 100 + round });
          await put(server, WALKER, `new${sort.length}-${round}`, { rank: -1 });
        });
        const seen = pages.flatMap((page) => ids(page));
        expect(new Set(seen).size, sort).to.equal(seen.length);
        expect([...seen].sort(), sort).to.deep.equal(originals);
        await server.request("DELETE", "/v1/notes?like_id=new*", { user: WALKER });
      }
    });
  });

  describe("page size settings", () => {
    let limited: TestServer;
    let capped: TestServer;
    const USER = "sizes:pw";
    before(async () => {
      limited = await startTestServer({ paginate_by: "2" });
      capped = await startTestServer({ storage_max_fetch_size: "3" });
      for (const s of [limited, capped]) for (let i = 0; i < 5; i++) await put(s, USER, `s${i}`, { i });
    });
    after(async () => {
      await limited.stop();
      await capped.stop();
    });

    it("paginate_by sets the page size and wins over a larger _limit", async () => {
      for (const query of ["", "?_limit=4"]) {
        const res = await limited.request("GET", `/v1/notes${query}`, { user: USER });
        expect(res.body.data, query).to.have.length(2);
        expect(new URL(res.headers.get("next-page") ?? "").searchParams.get("_limit"), query).to.equal("2");
      }
      expect((await limited.request("GET", "/v1/notes?_limit=1", { user: USER })).body.data).to.have.length(1);
    });

    it("paginate_by pages reach every record once", async () => {
      const pages = await walkNextPages(limited, "/v1/notes", USER, 5);
      expect(pages).to.have.length(3);
      expect(pages.flatMap((page) => ids(page)).sort()).to.deep.equal(["s0", "s1", "s2", "s3", "s4"]);
    });

    it("storage_max_fetch_size caps every page", async () => {
      for (const query of ["", "?_limit=10", "?_limit=0"]) {
        const res = await capped.request("GET", `/v1/notes${query}`, { user: USER });
        expect(res.body.data, query).to.have.length(3);
        expect(res.headers.get("next-page"), query).to.be.a("string");
      }
    });
  });
});
