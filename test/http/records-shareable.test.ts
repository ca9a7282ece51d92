import { expect } from "chai";
import { startTestServer, userId, type TestServer } from "../support/http.js";

const ALICE = "alice:pw";
const BOB = "bob:pw";
const ADMIN = "admin:pw";
const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("HTTP records of a shareable resource (articles)", () => {
  let server: TestServer;
  before(async () => {
    // Bob reads everything (collection-level); admin writes everything, to clean up.
    server = await startTestServer({ articles_read_principals: userId(BOB), articles_write_principals: userId(ADMIN) });
  });
  after(() => server.stop());
  afterEach(async () => {
    await server.request("DELETE", "/v1/articles", { user: ADMIN });
  });

  const create = async (data: object, permissions?: object, user = ALICE) => {
    const res = await server.request("POST", "/v1/articles", { user, body: { data, permissions } });
    expect(res.status).to.equal(201);
    return res.body;
  };

  describe("collection endpoint", () => {
    it("POST answers 201 with a UUID4 id, the data and the creator in write", async () => {
      const res = await server.request("POST", "/v1/articles", { user: ALICE, body: { data: { title: "t" } } });
      expect(res.status).to.equal(201);
      expect(res.body.data.id).to.match(UUID4);
      expect(res.body.data.title).to.equal("t");
      expect(res.body.permissions).to.deep.equal({ write: [userId(ALICE)] });
      expect(res.headers.get("etag")).to.equal(`"${res.body.data.last_modified}"`);
    });

    it("POST stores the given permissions and adds the creator to write", async () => {
      const body = await create({}, { read: ["system.Everyone"], write: ["group:editors"] });
      expect(body.permissions.read).to.deep.equal(["system.Everyone"]);
      expect([...body.permissions.write].sort()).to.deep.equal(["group:editors", userId(ALICE)].sort());
      const got = await server.request("GET", `/v1/articles/${body.data.id}`, { user: ALICE });
      expect(got.body.permissions).to.deep.equal(body.permissions);
    });

    it("POST without a body creates {} ", async () => {
      const res = await server.request("POST", "/v1/articles", { user: ALICE });
      expect(res.status).to.equal(201);
      expect(Object.keys(res.body.data).sort()).to.deep.equal(["id", "last_modified"]);
    });

    it("POST with an existing id answers 200 with the stored record unchanged", async () => {
      const first = await create({ id: "a1", title: "first" });
      const again = await server.request("POST", "/v1/articles", {
        user: ALICE,
        body: { data: { id: "a1", title: "second" }, permissions: { read: ["x"] } },
      });
      expect(again.status).to.equal(200);
      expect(again.body.data).to.deep.equal(first.data);
      expect(again.body.permissions).to.deep.equal(first.permissions);
    });

    it("POST with an existing id the caller may not read answers 403", async () => {
      await create({ id: "a1" });
      const res = await server.request("POST", "/v1/articles", { user: "carol:pw", body: { data: { id: "a1" } } });
      expect(res.status).to.equal(403);
      expect(res.body).to.include({ code: 403, errno: 121, error: "Forbidden" });
    });

    it("POST with an existing id the caller may read answers 200 with permissions {}", async () => {
      await create({ id: "a1", v: 1 });
      const res = await server.request("POST", "/v1/articles", { user: BOB, body: { data: { id: "a1" } } });
      expect(res.status).to.equal(200);
      expect(res.body.data.v).to.equal(1);
      expect(res.body.permissions).to.deep.equal({});
    });

    it("POST with If-None-Match: * and an existing id answers 412", async () => {
      await create({ id: "a1" });
      const res = await server.request("POST", "/v1/articles", {
        user: ALICE,
        body: { data: { id: "a1" } },
        headers: { "If-None-Match": "*" },
      });
      expect(res.status).to.equal(412);
    });

    it("GET answers 200 with a list without permissions", async () => {
      await create({ n: 1 });
      await create({ n: 2 });
      const res = await server.request("GET", "/v1/articles", { user: BOB });
      expect(res.status).to.equal(200);
      expect(res.body).to.have.keys("data");
      expect(res.body.data.map((r: { n: number }) => r.n)).to.deep.equal([2, 1]);
    });

    it("HEAD answers 200 without a body, with Total-Objects and Total-Records", async () => {
      await create({});
      await create({});
      const res = await server.request("HEAD", "/v1/articles", { user: BOB });
      expect(res.status).to.equal(200);
      expect(res.body).to.equal(undefined);
      expect(res.headers.get("total-objects")).to.equal("2");
      expect(res.headers.get("total-records")).to.equal("2");
    });

    it("DELETE answers 200 with the tombstones and deletes their ACLs", async () => {
      const a = await create({ id: "a1" }, { read: ["system.Everyone"] });
      const res = await server.request("DELETE", "/v1/articles", { user: ADMIN });
      expect(res.status).to.equal(200);
      expect(res.body.data).to.have.length(1);
      expect(res.body.data[0]).to.include({ id: "a1", deleted: true });
      expect(res.body.data[0].last_modified).to.be.above(a.data.last_modified);
      expect(res.headers.get("etag")).to.equal(`"${res.body.data[0].last_modified}"`);
      // Recreated under the same id, it does not inherit the old ACL.
      const again = await server.request("PUT", "/v1/articles/a1", { user: "carol:pw", body: { data: {} } });
      expect(again.status).to.equal(201);
      expect(again.body.permissions).to.deep.equal({ write: [userId("carol:pw")] });
    });

    it("other methods answer 405 with Allow", async () => {
      const res = await server.request("PATCH", "/v1/articles", { user: ALICE, body: { data: {} } });
      expect(res.status).to.equal(405);
      expect(res.headers.get("allow")).to.equal("GET, HEAD, POST, DELETE");
    });
  });

  describe("record endpoint", () => {
    it("GET answers 200 with data and the whole ACL for a writer", async () => {
      const a = await create({ id: "a1", t: 1 }, { read: ["group:x"] });
      const res = await server.request("GET", "/v1/articles/a1", { user: ALICE });
      expect(res.status).to.equal(200);
      expect(res.body.data).to.deep.equal(a.data);
      expect(res.body.permissions).to.deep.equal({ read: ["group:x"], write: [userId(ALICE)] });
      expect(res.headers.get("etag")).to.equal(`"${a.data.last_modified}"`);
    });

    it("GET shows permissions {} to a reader who is not a writer", async () => {
      await create({ id: "a1" }, { read: ["group:x"] });
      const res = await server.request("GET", "/v1/articles/a1", { user: BOB });
      expect(res.status).to.equal(200);
      expect(res.body.permissions).to.deep.equal({});
    });

    it("HEAD answers 200 without a body", async () => {
      await create({ id: "a1" });
      const res = await server.request("HEAD", "/v1/articles/a1", { user: ALICE });
      expect(res.status).to.equal(200);
      expect(res.body).to.equal(undefined);
    });

    it("PUT creates with 201 (creator in write) and replaces with 200", async () => {
      const created = await server.request("PUT", "/v1/articles/p1", { user: ALICE, body: { data: { a: 1, b: 2 } } });
      expect(created.status).to.equal(201);
      expect(created.body.permissions).to.deep.equal({ write: [userId(ALICE)] });
      const replaced = await server.request("PUT", "/v1/articles/p1", { user: ALICE, body: { data: { c: 3 } } });
      expect(replaced.status).to.equal(200);
      expect(replaced.body.data).to.deep.equal({ id: "p1", c: 3, last_modified: replaced.body.data.last_modified });
    });

    it("PUT over a tombstone answers 201", async () => {
      await create({ id: "p1" });
      await server.request("DELETE", "/v1/articles/p1", { user: ALICE });
      const res = await server.request("PUT", "/v1/articles/p1", { user: ALICE, body: { data: {} } });
      expect(res.status).to.equal(201);
    });

    it("PUT with only permissions keeps the existing data", async () => {
      await create({ id: "p1", keep: "me" });
      const res = await server.request("PUT", "/v1/articles/p1", { user: ALICE, body: { permissions: { read: ["group:r"] } } });
      expect(res.status).to.equal(200);
      expect(res.body.data.keep).to.equal("me");
      expect(res.body.permissions).to.deep.equal({ read: ["group:r"], write: [userId(ALICE)] });
    });

    it("PUT without permissions keeps the ACL", async () => {
      await create({ id: "p1" }, { read: ["group:r"] });
      const res = await server.request("PUT", "/v1/articles/p1", { user: ALICE, body: { data: { x: 1 } } });
      expect(res.body.permissions).to.deep.equal({ read: ["group:r"], write: [userId(ALICE)] });
    });

    it("PUT with a body id different from the URL id answers 400", async () => {
      const res = await server.request("PUT", "/v1/articles/p1", { user: ALICE, body: { data: { id: "p2" } } });
      expect(res.status).to.equal(400);
      expect(res.body.details[0]).to.include({ location: "body", name: "id" });
    });

    it("PATCH answers 200 with the merged record and the ACL", async () => {
      await create({ id: "p1", a: 1, b: 2 });
      const res = await server.request("PATCH", "/v1/articles/p1", { user: ALICE, body: { data: { b: 3 } } });
      expect(res.status).to.equal(200);
      expect(res.body.data).to.include({ a: 1, b: 3 });
      expect(res.body.permissions).to.deep.equal({ write: [userId(ALICE)] });
    });

    it("PATCH of a missing record answers 404 to a collection reader", async () => {
      const res = await server.request("PATCH", "/v1/articles/nope", { user: BOB, body: { data: { a: 1 } } });
      expect(res.status).to.equal(404);
      expect(res.body.details).to.deep.equal({ id: "nope", resource_name: "articles" });
    });

    it("PATCH that changes nothing answers the stored record with the same last_modified", async () => {
      const a = await create({ id: "p1", a: 1 });
      const res = await server.request("PATCH", "/v1/articles/p1", { user: ALICE, body: { data: { a: 1 } } });
      expect(res.status).to.equal(200);
      expect(res.body.data.last_modified).to.equal(a.data.last_modified);
    });

    it("DELETE answers 200 with the tombstone and no permissions", async () => {
      await create({ id: "d1", a: 1 });
      const res = await server.request("DELETE", "/v1/articles/d1", { user: ALICE });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ data: { id: "d1", last_modified: res.body.data.last_modified, deleted: true } });
      expect((await server.request("GET", "/v1/articles/d1", { user: BOB })).status).to.equal(404);
    });

    it("DELETE ?last_modified forces a greater tombstone timestamp and ignores a smaller one", async () => {
      const a = await create({ id: "d1" });
      const forced = a.data.last_modified + 100000;
      const res = await server.request("DELETE", `/v1/articles/d1?last_modified=${forced}`, { user: ALICE });
      expect(res.body.data.last_modified).to.equal(forced);
      const b = await create({ id: "d2" });
      const ignored = await server.request("DELETE", `/v1/articles/d2?last_modified=1`, { user: ALICE });
      expect(ignored.body.data.last_modified).to.be.above(b.data.last_modified);
    });
  });

  describe("concurrent requests", () => {
    it("parallel POSTs of one id create it once; the others answer 200 with that record", async () => {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => server.request("POST", "/v1/articles", { user: ALICE, body: { data: { id: "race", i } } })),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).to.deep.equal([200, 200, 200, 200, 200, 200, 200, 201]);
      const created = results.find((r) => r.status === 201)?.body.data;
      for (const r of results) expect(r.body.data).to.deep.equal(created);
    });

    it("parallel PATCHes of different keys lose none", async () => {
      await create({ id: "merge" });
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          server.request("PATCH", "/v1/articles/merge", { user: ALICE, body: { data: { [`k${i}`]: i } } }),
        ),
      );
      expect(results.map((r) => r.status)).to.deep.equal(Array(8).fill(200));
      const final = await server.request("GET", "/v1/articles/merge", { user: ALICE });
      for (let i = 0; i < 8; i++) expect(final.body.data[`k${i}`]).to.equal(i);
    });
  });

  describe("endpoint settings", () => {
    let custom: TestServer;
    before(async () => {
      custom = await startTestServer({
        articles_record_put_enabled: "false",
        articles_collection_delete_enabled: "false",
        articles_read_principals: "system.Everyone",
        articles_cache_expires_seconds: "60",
      });
    });
    after(() => custom.stop());

    it("answers 405 with Allow for a disabled method", async () => {
      const put = await custom.request("PUT", "/v1/articles/x", { user: ALICE, body: { data: {} } });
      expect(put.status).to.equal(405);
      expect(put.headers.get("allow")).to.not.include("PUT");
      expect(put.headers.get("allow")).to.include("PATCH");
      const del = await custom.request("DELETE", "/v1/articles", { user: ALICE });
      expect(del.status).to.equal(405);
      expect((await custom.request("POST", "/v1/articles", { user: ALICE, body: { data: {} } })).status).to.equal(201);
    });

    it("sends cache headers to anonymous collection reads only", async () => {
      const anonymous = await custom.request("GET", "/v1/articles");
      expect(anonymous.status).to.equal(200);
      expect(anonymous.headers.get("cache-control")).to.equal("max-age=60");
      expect(anonymous.headers.get("expires")).to.be.a("string");
      const authenticated = await custom.request("GET", "/v1/articles", { user: ALICE });
      expect(authenticated.headers.get("cache-control")).to.equal("no-cache, no-store");
    });

    it("refuses writes with 405 when readonly", async () => {
      const ro = await startTestServer({ readonly: "true" });
      try {
        expect((await ro.request("POST", "/v1/articles", { user: ALICE, body: { data: {} } })).status).to.equal(405);
        expect((await ro.request("PATCH", "/v1/articles/x", { user: ALICE, body: { data: {} } })).status).to.equal(405);
      } finally {
        await ro.stop();
      }
    });
  });

  describe("validation", () => {
    it("refuses an unknown permission name with 400 at body", async () => {
      const res = await server.request("POST", "/v1/articles", { user: ALICE, body: { data: {}, permissions: { delete: ["x"] } } });
      expect(res.status).to.equal(400);
      expect(res.body.details[0].location).to.equal("body");
      expect(res.body.details[0].description).to.include("delete");
    });

    it("refuses permission values that are not lists of strings with 400", async () => {
      for (const value of ["x", [1], { a: 1 }, null]) {
        const res = await server.request("POST", "/v1/articles", { user: ALICE, body: { permissions: { read: value } } });
        expect(res.status, JSON.stringify(value)).to.equal(400);
      }
    });

    it("refuses permissions that are not an object with 400", async () => {
      const res = await server.request("PUT", "/v1/articles/x1", { user: ALICE, body: { permissions: ["read"] } });
      expect(res.status).to.equal(400);
      expect(res.body.details[0]).to.include({ location: "body", name: "permissions" });
    });

    it("answers 403, not 400, to a caller without write who sends a bad body", async () => {
      await create({ id: "x1" });
      for (const method of ["PUT", "PATCH"]) {
        const res = await server.request(method, "/v1/articles/x1", { user: "carol:pw", body: { nope: 1 } });
        expect(res.status, method).to.equal(403);
      }
    });

    it("answers 401, not 400, to an anonymous caller who sends a bad body", async () => {
      const res = await server.request("POST", "/v1/articles", { body: { nope: 1 } });
      expect(res.status).to.equal(401);
      expect(res.headers.get("www-authenticate")).to.equal('Basic realm="Realm"');
    });

    it("refuses an invalid URL id with 400 at path", async () => {
      const res = await server.request("PUT", "/v1/articles/a%20b", { user: ALICE, body: { data: {} } });
      expect(res.status).to.equal(400);
      expect(res.body.details[0].location).to.equal("path");
    });
  });
});
