import { expect } from "chai";
import { startTestServer, userId, type TestServer } from "../support/http.js";

const ALICE = "alice:pw";
const MERGE = { "Content-Type": "application/merge-patch+json" };

describe("HTTP preconditions and validators (api-contract §7)", () => {
  let server: TestServer;
  let n = 0;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  /** A fresh article owned by Alice. */
  async function article(data: object = { v: 1 }, permissions?: object): Promise<{ id: string; last_modified: number; path: string }> {
    const id = `rec${++n}`;
    const res = await server.request("PUT", `/v1/articles/${id}`, { user: ALICE, body: { data, permissions } });
    expect(res.status).to.equal(201);
    return { ...res.body.data, path: `/v1/articles/${id}` };
  }
  const send = (method: string, path: string, headers: Record<string, string>, body?: object) =>
    server.request(method, path, { user: ALICE, headers, body });

  describe("If-Match", () => {
    it("lets writes through when it equals the record timestamp", async () => {
      for (const [method, body] of [
        ["PUT", { data: { v: 2 } }],
        ["PATCH", { data: { v: 3 } }],
        ["DELETE", undefined],
      ] as const) {
        const rec = await article();
        const res = await send(method, rec.path, { "If-Match": `"${rec.last_modified}"` }, body);
        expect(res.status, method).to.equal(200);
      }
    });

    it("answers 412 errno 114 with details.existing (no permissions) when older or newer", async () => {
      for (const method of ["GET", "PUT", "PATCH", "DELETE"]) {
        const rec = await article({ v: 1 }, { read: ["group:x"] });
        for (const ts of [rec.last_modified - 1, rec.last_modified + 1]) {
          const res = await send(
            method,
            rec.path,
            { "If-Match": `"${ts}"` },
            method === "PUT" || method === "PATCH" ? { data: { v: 9 } } : undefined,
          );
          expect(res.status, `${method} ${ts}`).to.equal(412);
          expect(res.body).to.include({ code: 412, errno: 114, error: "Precondition Failed" });
          expect(res.body.details.existing).to.deep.equal({ id: rec.id, v: 1, last_modified: rec.last_modified });
        }
        expect((await send("GET", rec.path, {})).body.data.v, method).to.equal(1);
      }
    });

    it("answers 412 on a missing record, with a timestamp or *", async () => {
      for (const value of ['"123"', "*"]) {
        const res = await send("PUT", "/v1/articles/never-there", { "If-Match": value }, { data: {} });
        expect(res.status, value).to.equal(412);
      }
      expect((await send("GET", "/v1/articles", {})).body.data.map((r: { id: string }) => r.id)).to.not.include("never-there");
    });

    it("leaves GET, PATCH and DELETE of a missing record to their 404 (as Kinto)", async () => {
      const reader = "preconditions-reader:pw";
      const stranger = await startTestServer({ articles_read_principals: userId(reader) });
      try {
        for (const method of ["GET", "PATCH", "DELETE"]) {
          const res = await stranger.request(method, "/v1/articles/none", {
            user: reader,
            headers: { "If-Match": '"1"' },
            body: method === "PATCH" ? { data: {} } : undefined,
          });
          expect(res.status, method).to.equal(404);
        }
      } finally {
        await stranger.stop();
      }
    });

    it("If-Match: * lets writes on an existing record through", async () => {
      const rec = await article();
      expect((await send("PATCH", rec.path, { "If-Match": "*" }, { data: { v: 5 } })).status).to.equal(200);
      expect((await send("PUT", rec.path, { "If-Match": "*" }, { data: { v: 6 } })).status).to.equal(200);
      expect((await send("DELETE", rec.path, { "If-Match": "*" })).status).to.equal(200);
    });

    it("on POST without id compares with the collection timestamp", async () => {
      const list = await send("GET", "/v1/articles", {});
      const etag = list.headers.get("etag") ?? "";
      expect((await send("POST", "/v1/articles", { "If-Match": `"1"` }, { data: {} })).status).to.equal(412);
      expect((await send("POST", "/v1/articles", { "If-Match": etag }, { data: {} })).status).to.equal(201);
    });

    it("on POST with an existing id compares with that record", async () => {
      const rec = await article();
      expect((await send("POST", "/v1/articles", { "If-Match": `"${rec.last_modified}"` }, { data: { id: rec.id } })).status).to.equal(200);
      expect((await send("POST", "/v1/articles", { "If-Match": `"${rec.last_modified + 1}"` }, { data: { id: rec.id } })).status).to.equal(
        412,
      );
    });

    it("on POST with a new id answers 412: the record is missing", async () => {
      for (const value of ['"123"', "*"]) {
        const res = await send("POST", "/v1/articles", { "If-Match": value }, { data: { id: "post-new" } });
        expect(res.status, value).to.equal(412);
      }
      expect((await send("GET", "/v1/articles", {})).body.data.map((r: { id: string }) => r.id)).to.not.include("post-new");
    });

    it("is checked after authorization: 401 for an anonymous caller who may not create", async () => {
      const res = await server.request("POST", "/v1/articles", { headers: { "If-Match": '"1"' }, body: { data: {} } });
      expect(res.status).to.equal(401);
    });

    it("on a collection compares with the collection timestamp", async () => {
      const list = await send("GET", "/v1/articles", {});
      const etag = list.headers.get("etag") ?? "";
      expect((await send("GET", "/v1/articles", { "If-Match": etag })).status).to.equal(200);
      expect((await send("GET", "/v1/articles", { "If-Match": '"1"' })).status).to.equal(412);
      expect((await send("DELETE", "/v1/articles", { "If-Match": '"1"' })).status).to.equal(412);
    });
  });

  describe("If-None-Match", () => {
    it("answers 304 with ETag and no body on GET/HEAD when equal to the record timestamp", async () => {
      const rec = await article();
      for (const method of ["GET", "HEAD"]) {
        const res = await send(method, rec.path, { "If-None-Match": `"${rec.last_modified}"` });
        expect(res.status, method).to.equal(304);
        expect(res.headers.get("etag")).to.equal(`"${rec.last_modified}"`);
        expect(res.body).to.equal(undefined);
      }
      expect((await send("GET", rec.path, { "If-None-Match": `"${rec.last_modified - 1}"` })).status).to.equal(200);
    });

    it("answers 304 on a collection equal to its ETag, and 200 after a write", async () => {
      const first = await send("GET", "/v1/articles", {});
      const etag = first.headers.get("etag") ?? "";
      const same = await send("GET", "/v1/articles", { "If-None-Match": etag });
      expect(same.status).to.equal(304);
      expect(same.headers.get("etag")).to.equal(etag);
      expect((await send("HEAD", "/v1/articles", { "If-None-Match": etag })).status).to.equal(304);
      await article();
      expect((await send("GET", "/v1/articles", { "If-None-Match": etag })).status).to.equal(200);
    });

    it("has no effect with a timestamp on writes (never a 304)", async () => {
      for (const [method, body] of [
        ["PATCH", { data: { v: 2 } }],
        ["PUT", { data: { v: 3 } }],
        ["DELETE", undefined],
      ] as const) {
        const rec = await article();
        const res = await send(method, rec.path, { "If-None-Match": `"${rec.last_modified}"` }, body);
        expect(res.status, method).to.equal(200);
      }
      const rec = await article();
      const again = await send("POST", "/v1/articles", { "If-None-Match": `"${rec.last_modified}"` }, { data: { id: rec.id } });
      expect(again.status, "POST of an existing id").to.equal(200);
      const collection = (await send("GET", "/v1/articles", {})).headers.get("etag") ?? "";
      expect((await send("DELETE", "/v1/articles", { "If-None-Match": collection })).status, "collection DELETE").to.equal(200);
    });

    it("* answers 412 when the record exists, on reads and writes", async () => {
      for (const [method, body] of [
        ["GET", undefined],
        ["PUT", { data: {} }],
        ["PATCH", { data: { v: 2 } }],
        ["DELETE", undefined],
      ] as const) {
        const rec = await article();
        const res = await send(method, rec.path, { "If-None-Match": "*" }, body);
        expect(res.status, method).to.equal(412);
        expect(res.body.details.existing.id).to.equal(rec.id);
      }
    });

    it("* lets PUT create a missing record, also over a tombstone", async () => {
      expect((await send("PUT", "/v1/articles/inm-new", { "If-None-Match": "*" }, { data: {} })).status).to.equal(201);
      await send("DELETE", "/v1/articles/inm-new", {});
      expect((await send("PUT", "/v1/articles/inm-new", { "If-None-Match": "*" }, { data: {} })).status).to.equal(201);
    });

    it("* answers 412 on collection GET and DELETE, which always exist", async () => {
      expect((await send("GET", "/v1/articles", { "If-None-Match": "*" })).status).to.equal(412);
      expect((await send("DELETE", "/v1/articles", { "If-None-Match": "*" })).status).to.equal(412);
    });

    it("* lets POST without id create: the new record does not exist yet", async () => {
      expect((await send("POST", "/v1/articles", { "If-None-Match": "*" }, { data: {} })).status).to.equal(201);
    });
  });

  describe("header syntax", () => {
    it("refuses malformed values with 400 at location header", async () => {
      const rec = await article();
      for (const header of ["If-Match", "If-None-Match"]) {
        for (const value of ["123", 'W/"123"', '"abc"', '"1", "2"', "**"]) {
          const res = await send("GET", rec.path, { [header]: value });
          expect(res.status, `${header}: ${value}`).to.equal(400);
          expect(res.body.errno).to.equal(107);
          expect(res.body.details[0]).to.include({ location: "header", name: header });
        }
      }
    });

    it("ignores If-Modified-Since and If-Unmodified-Since", async () => {
      const rec = await article();
      const old = new Date(0).toUTCString();
      expect((await send("GET", rec.path, { "If-Modified-Since": new Date(Date.now() + 1e9).toUTCString() })).status).to.equal(200);
      expect((await send("PATCH", rec.path, { "If-Unmodified-Since": old }, { data: { v: 7 } })).status).to.equal(200);
    });
  });

  describe("ETag and Last-Modified", () => {
    const expectValidators = (res: { headers: Headers }, ts: number, what: string) => {
      expect(res.headers.get("etag"), what).to.equal(`"${ts}"`);
      expect(res.headers.get("last-modified"), what).to.equal(new Date(ts).toUTCString());
    };

    it("are the record timestamp on every record read and write", async () => {
      const post = await send("POST", "/v1/articles", {}, { data: { v: 1 } });
      expectValidators(post, post.body.data.last_modified, "POST");
      const path = `/v1/articles/${post.body.data.id}`;
      expectValidators(await send("GET", path, {}), post.body.data.last_modified, "GET");
      expectValidators(await send("HEAD", path, {}), post.body.data.last_modified, "HEAD");
      const put = await send("PUT", path, {}, { data: { v: 2 } });
      expectValidators(put, put.body.data.last_modified, "PUT");
      const patch = await send("PATCH", path, {}, { data: { v: 3 } });
      expectValidators(patch, patch.body.data.last_modified, "PATCH");
      const del = await send("DELETE", path, {});
      expectValidators(del, del.body.data.last_modified, "DELETE");
    });

    it("are the collection timestamp on collection GET, HEAD and DELETE", async () => {
      const user = "validators:pw";
      const empty = await server.request("GET", "/v1/notes", { user });
      const again = await server.request("HEAD", "/v1/notes", { user });
      expect(empty.headers.get("etag")).to.match(/^"\d+"$/);
      expect(again.headers.get("etag"), "stable while empty").to.equal(empty.headers.get("etag"));
      const a = await server.request("POST", "/v1/notes", { user, body: { data: {} } });
      const b = await server.request("POST", "/v1/notes", { user, body: { data: {} } });
      expect(b.body.data.last_modified).to.be.above(a.body.data.last_modified);
      expectValidators(await server.request("GET", "/v1/notes", { user }), b.body.data.last_modified, "GET");
      expectValidators(await server.request("HEAD", "/v1/notes", { user }), b.body.data.last_modified, "HEAD");
      const del = await server.request("DELETE", "/v1/notes", { user });
      const newest = Math.max(...del.body.data.map((t: { last_modified: number }) => t.last_modified));
      expectValidators(del, newest, "DELETE");
    });
  });

  describe("PATCH media types", () => {
    it("merge-patch merges data recursively and removes null keys", async () => {
      const rec = await article({ a: { x: 1, y: 2 }, b: 1, c: false });
      const res = await send("PATCH", rec.path, MERGE, { data: { a: { y: null, z: 3 }, b: null, d: 0 } });
      expect(res.status).to.equal(200);
      expect(res.body.data).to.deep.equal({ id: rec.id, last_modified: res.body.data.last_modified, a: { x: 1, z: 3 }, c: false, d: 0 });
    });

    it("plain JSON stores null and replaces nested objects", async () => {
      const rec = await article({ a: { x: 1, y: 2 }, b: 1 });
      const res = await send("PATCH", rec.path, {}, { data: { a: { z: 3 }, b: null } });
      expect(res.body.data).to.include({ b: null });
      expect(res.body.data.a).to.deep.equal({ z: 3 });
    });

    it("merge-patch on permissions: a list replaces, null removes the permission", async () => {
      const rec = await article({}, { read: ["group:r"] });
      const replaced = await send("PATCH", rec.path, MERGE, { permissions: { read: ["group:s"] } });
      expect(replaced.body.permissions).to.deep.equal({ read: ["group:s"], write: [userId(ALICE)] });
      const removed = await send("PATCH", rec.path, MERGE, { permissions: { read: null } });
      expect(removed.body.permissions).to.deep.equal({ write: [userId(ALICE)] });
    });

    it("plain JSON ignores null permission values", async () => {
      const rec = await article({}, { read: ["group:r"] });
      const res = await send("PATCH", rec.path, {}, { permissions: { read: null } });
      expect(res.status).to.equal(200);
      expect(res.body.permissions.read).to.deep.equal(["group:r"]);
    });

    it("refuses other media types with 415", async () => {
      const rec = await article();
      const res = await server.request("PATCH", rec.path, { user: ALICE, rawBody: "<a/>", headers: { "Content-Type": "application/xml" } });
      expect(res.status).to.equal(415);
    });
  });

  describe("DELETE ?last_modified", () => {
    it("forces a greater tombstone timestamp, quoted or not, and refuses non-integers", async () => {
      const rec = await article();
      const forced = rec.last_modified + 5000;
      const res = await send("DELETE", `${rec.path}?last_modified=%22${forced}%22`, {});
      expect(res.status).to.equal(200);
      expect(res.body.data.last_modified).to.equal(forced);
      expect(res.headers.get("etag")).to.equal(`"${forced}"`);
      const other = await article();
      for (const value of ["abc", "1.5", "-3"]) {
        const bad = await send("DELETE", `${other.path}?last_modified=${value}`, {});
        expect(bad.status, value).to.equal(400);
        expect(bad.body.details[0]).to.include({ location: "querystring", name: "last_modified" });
      }
    });
  });
});
