import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http.js";

const ALICE = "alice:pw";
const BOB = "bob:pw";
const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("HTTP records of a user resource (notes)", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());
  afterEach(async () => {
    await server.request("DELETE", "/v1/notes", { user: ALICE });
    await server.request("DELETE", "/v1/notes", { user: BOB });
  });

  const create = async (user: string, data: object) => {
    const res = await server.request("POST", "/v1/notes", { user, body: { data } });
    expect(res.status).to.equal(201);
    return res.body.data;
  };

  describe("collection endpoint", () => {
    it("POST creates a record with a generated UUID4 id and answers 201 without a permissions key", async () => {
      const res = await server.request("POST", "/v1/notes", { user: ALICE, body: { data: { title: "a" } } });
      expect(res.status).to.equal(201);
      expect(res.body.data.id).to.match(UUID4);
      expect(res.body.data.title).to.equal("a");
      expect(res.body.data.last_modified).to.be.a("number");
      expect(res.body).to.not.have.property("permissions");
      expect(res.headers.get("etag")).to.equal(`"${res.body.data.last_modified}"`);
    });

    it("POST without a body creates an empty record", async () => {
      const res = await server.request("POST", "/v1/notes", { user: ALICE });
      expect(res.status).to.equal(201);
      expect(Object.keys(res.body.data).sort()).to.deep.equal(["id", "last_modified"]);
    });

    it("POST keeps a client id and answers 200 with the stored record, unchanged, when it exists", async () => {
      const first = await server.request("POST", "/v1/notes", { user: ALICE, body: { data: { id: "n1", title: "a" } } });
      expect(first.status).to.equal(201);
      expect(first.body.data.id).to.equal("n1");
      const again = await server.request("POST", "/v1/notes", { user: ALICE, body: { data: { id: "n1", title: "b" } } });
      expect(again.status).to.equal(200);
      expect(again.body.data).to.deep.equal(first.body.data);
    });

    it("POST with If-None-Match: * and an existing id answers 412", async () => {
      await create(ALICE, { id: "n1" });
      const res = await server.request("POST", "/v1/notes", {
        user: ALICE,
        body: { data: { id: "n1" } },
        headers: { "If-None-Match": "*" },
      });
      expect(res.status).to.equal(412);
      expect(res.body.errno).to.equal(114);
    });

    it("GET lists only the caller's records", async () => {
      await create(ALICE, { title: "alice's" });
      await create(BOB, { title: "bob's" });
      const res = await server.request("GET", "/v1/notes", { user: ALICE });
      expect(res.status).to.equal(200);
      expect(res.body.data.map((r: { title: string }) => r.title)).to.deep.equal(["alice's"]);
    });

    it("HEAD answers 200 with no body and the caller's counts", async () => {
      await create(ALICE, {});
      await create(ALICE, {});
      await create(BOB, {});
      const res = await server.request("HEAD", "/v1/notes", { user: ALICE });
      expect(res.status).to.equal(200);
      expect(res.body).to.equal(undefined);
      expect(res.headers.get("total-objects")).to.equal("2");
      expect(res.headers.get("total-records")).to.equal("2");
      expect(res.headers.get("etag")).to.match(/^"\d+"$/);
    });

    it("DELETE removes only the caller's records and answers their tombstones", async () => {
      const mine = await create(ALICE, {});
      await create(BOB, {});
      const res = await server.request("DELETE", "/v1/notes", { user: ALICE });
      expect(res.status).to.equal(200);
      expect(res.body.data).to.have.length(1);
      expect(res.body.data[0]).to.include({ id: mine.id, deleted: true });
      expect(res.body.data[0].last_modified).to.be.above(mine.last_modified);
      expect(Object.keys(res.body.data[0]).sort()).to.deep.equal(["deleted", "id", "last_modified"]);
      const bobs = await server.request("GET", "/v1/notes", { user: BOB });
      expect(bobs.body.data).to.have.length(1);
    });

    it("other methods answer 405 with Allow", async () => {
      const res = await server.request("PUT", "/v1/notes", { user: ALICE, body: { data: {} } });
      expect(res.status).to.equal(405);
      expect(res.body.errno).to.equal(115);
      expect(res.headers.get("allow")).to.include("POST");
    });
  });

  describe("record endpoint", () => {
    it("GET answers 200 with the record, ETag and Last-Modified, and no permissions key", async () => {
      const rec = await create(ALICE, { title: "x" });
      const res = await server.request("GET", `/v1/notes/${rec.id}`, { user: ALICE });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ data: rec });
      expect(res.headers.get("etag")).to.equal(`"${rec.last_modified}"`);
      expect(res.headers.get("last-modified")).to.equal(new Date(rec.last_modified).toUTCString());
    });

    it("HEAD answers 200 without a body", async () => {
      const rec = await create(ALICE, {});
      const res = await server.request("HEAD", `/v1/notes/${rec.id}`, { user: ALICE });
      expect(res.status).to.equal(200);
      expect(res.body).to.equal(undefined);
      expect(res.headers.get("etag")).to.equal(`"${rec.last_modified}"`);
    });

    it("GET of a missing id answers 404 errno 110 with details {id, resource_name}", async () => {
      const res = await server.request("GET", "/v1/notes/missing", { user: ALICE });
      expect(res.status).to.equal(404);
      expect(res.body).to.include({ code: 404, errno: 110, error: "Not Found" });
      expect(res.body.details).to.deep.equal({ id: "missing", resource_name: "notes" });
    });

    for (const method of ["GET", "HEAD", "PATCH", "DELETE"]) {
      it(`${method} of another user's id answers 404`, async () => {
        const rec = await create(BOB, { secret: 1 });
        const res = await server.request(method, `/v1/notes/${rec.id}`, {
          user: ALICE,
          body: method === "PATCH" ? { data: { a: 1 } } : undefined,
        });
        expect(res.status).to.equal(404);
        const still = await server.request("GET", `/v1/notes/${rec.id}`, { user: BOB });
        expect(still.body.data).to.deep.equal(rec);
      });
    }

    it("PUT on another user's id creates a separate record for the caller", async () => {
      await create(BOB, { id: "shared-id", owner: "bob" });
      const res = await server.request("PUT", "/v1/notes/shared-id", { user: ALICE, body: { data: { owner: "alice" } } });
      expect(res.status).to.equal(201);
      const bobs = await server.request("GET", "/v1/notes/shared-id", { user: BOB });
      expect(bobs.body.data.owner).to.equal("bob");
    });

    it("PUT creates with 201, then replaces every field with 200", async () => {
      const created = await server.request("PUT", "/v1/notes/p1", { user: ALICE, body: { data: { a: 1, b: 2 } } });
      expect(created.status).to.equal(201);
      expect(created.body.data).to.include({ id: "p1", a: 1, b: 2 });
      const replaced = await server.request("PUT", "/v1/notes/p1", { user: ALICE, body: { data: { c: 3 } } });
      expect(replaced.status).to.equal(200);
      expect(replaced.body.data).to.deep.equal({ id: "p1", c: 3, last_modified: replaced.body.data.last_modified });
      expect(replaced.body.data.last_modified).to.be.above(created.body.data.last_modified);
      expect(replaced.headers.get("etag")).to.equal(`"${replaced.body.data.last_modified}"`);
    });

    it("PUT over a tombstone answers 201", async () => {
      await create(ALICE, { id: "t1" });
      await server.request("DELETE", "/v1/notes/t1", { user: ALICE });
      const res = await server.request("PUT", "/v1/notes/t1", { user: ALICE, body: { data: { back: true } } });
      expect(res.status).to.equal(201);
    });

    it("PUT with a body id different from the URL id answers 400 at body.id", async () => {
      const res = await server.request("PUT", "/v1/notes/p1", { user: ALICE, body: { data: { id: "other" } } });
      expect(res.status).to.equal(400);
      expect(res.body.errno).to.equal(107);
      expect(res.body.details[0]).to.include({ location: "body", name: "id" });
    });

    it("PATCH replaces top-level keys, stores null, and answers 200", async () => {
      await create(ALICE, { id: "p1", a: 1, nested: { x: 1, y: 2 }, keep: "k" });
      const res = await server.request("PATCH", "/v1/notes/p1", { user: ALICE, body: { data: { a: null, nested: { x: 9 } } } });
      expect(res.status).to.equal(200);
      expect(res.body.data).to.include({ a: null, keep: "k" });
      expect(res.body.data.nested).to.deep.equal({ x: 9 });
      expect(res.body).to.not.have.property("permissions");
    });

    it("PATCH that changes nothing keeps last_modified", async () => {
      const rec = await create(ALICE, { id: "p1", a: 1 });
      const res = await server.request("PATCH", "/v1/notes/p1", { user: ALICE, body: { data: { a: 1 } } });
      expect(res.status).to.equal(200);
      expect(res.body.data.last_modified).to.equal(rec.last_modified);
    });

    it("PATCH with a body id different from the URL id answers 400", async () => {
      await create(ALICE, { id: "p1" });
      const res = await server.request("PATCH", "/v1/notes/p1", { user: ALICE, body: { data: { id: "p2" } } });
      expect(res.status).to.equal(400);
      expect(res.body.details[0]).to.include({ location: "body", name: "id" });
    });

    it("honours a client last_modified greater than the stored one and ignores a smaller one", async () => {
      const rec = await create(ALICE, { id: "lm" });
      const future = rec.last_modified + 10000;
      const honoured = await server.request("PATCH", "/v1/notes/lm", { user: ALICE, body: { data: { v: 1, last_modified: future } } });
      expect(honoured.body.data.last_modified).to.equal(future);
      const ignored = await server.request("PUT", "/v1/notes/lm", { user: ALICE, body: { data: { v: 2, last_modified: 5 } } });
      expect(ignored.body.data.last_modified).to.be.above(future);
    });

    it("PATCH of a missing record answers 404", async () => {
      const res = await server.request("PATCH", "/v1/notes/nope", { user: ALICE, body: { data: { a: 1 } } });
      expect(res.status).to.equal(404);
      expect(res.body.errno).to.equal(110);
    });

    it("PATCH of a missing record with an empty body answers 400 (validation comes before record logic)", async () => {
      const res = await server.request("PATCH", "/v1/notes/nope", { user: ALICE, body: {} });
      expect(res.status).to.equal(400);
    });

    it("PATCH with an empty body answers 400", async () => {
      await create(ALICE, { id: "p1" });
      const res = await server.request("PATCH", "/v1/notes/p1", { user: ALICE, body: {} });
      expect(res.status).to.equal(400);
      expect(res.body.errno).to.equal(107);
    });

    it("DELETE answers 200 with the tombstone only, and the record is gone", async () => {
      const rec = await create(ALICE, { a: 1 });
      const res = await server.request("DELETE", `/v1/notes/${rec.id}`, { user: ALICE });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ data: { id: rec.id, last_modified: res.body.data.last_modified, deleted: true } });
      expect(res.body.data.last_modified).to.be.above(rec.last_modified);
      expect(res.headers.get("etag")).to.equal(`"${res.body.data.last_modified}"`);
      expect((await server.request("GET", `/v1/notes/${rec.id}`, { user: ALICE })).status).to.equal(404);
      expect((await server.request("DELETE", `/v1/notes/${rec.id}`, { user: ALICE })).status).to.equal(404);
    });

    it("two users may own the same id independently", async () => {
      await create(ALICE, { id: "same", who: "alice" });
      await create(BOB, { id: "same", who: "bob" });
      expect((await server.request("GET", "/v1/notes/same", { user: ALICE })).body.data.who).to.equal("alice");
      expect((await server.request("GET", "/v1/notes/same", { user: BOB })).body.data.who).to.equal("bob");
    });

    it("other methods answer 405 with Allow", async () => {
      const res = await server.request("POST", "/v1/notes/x", { user: ALICE, body: { data: {} } });
      expect(res.status).to.equal(405);
      expect(res.headers.get("allow")).to.include("PATCH");
    });
  });

  describe("without a permission backend", () => {
    let bare: TestServer;
    before(async () => {
      bare = await startTestServer({ resources: "notes:user", permission_backend: undefined, articles_create_principals: undefined });
    });
    after(() => bare.stop());

    it("serves every endpoint of a user resource", async () => {
      expect((await bare.request("PUT", "/v1/notes/b1", { user: ALICE, body: { data: { v: 1 } } })).status).to.equal(201);
      expect((await bare.request("PATCH", "/v1/notes/b1", { user: ALICE, body: { data: { v: 2 } } })).status).to.equal(200);
      expect((await bare.request("GET", "/v1/notes", { user: ALICE })).body.data).to.have.length(1);
      expect((await bare.request("GET", "/v1/notes/b1", { user: BOB })).status).to.equal(404);
      expect((await bare.request("DELETE", "/v1/notes/b1", { user: ALICE })).status).to.equal(200);
      expect((await bare.request("DELETE", "/v1/notes", { user: ALICE })).status).to.equal(200);
    });
  });

  describe("anonymous callers", () => {
    const cases: [string, string][] = [
      ["GET", "/v1/notes"],
      ["HEAD", "/v1/notes"],
      ["POST", "/v1/notes"],
      ["DELETE", "/v1/notes"],
      ["GET", "/v1/notes/abc"],
      ["HEAD", "/v1/notes/abc"],
      ["PUT", "/v1/notes/abc"],
      ["PATCH", "/v1/notes/abc"],
      ["DELETE", "/v1/notes/abc"],
    ];
    for (const [method, path] of cases) {
      it(`${method} ${path} answers 401 with WWW-Authenticate`, async () => {
        const body = ["POST", "PUT", "PATCH"].includes(method) ? { data: { a: 1 } } : undefined;
        const res = await server.request(method, path, { body });
        expect(res.status).to.equal(401);
        expect(res.headers.get("www-authenticate")).to.equal('Basic realm="Realm"');
        if (method !== "HEAD") expect(res.body).to.include({ code: 401, errno: 104, error: "Unauthorized" });
      });
    }
  });

  describe("validation", () => {
    it("refuses a permissions attribute with 400 at body.permissions", async () => {
      for (const [method, path] of [
        ["POST", "/v1/notes"],
        ["PUT", "/v1/notes/v1"],
      ] as const) {
        const res = await server.request(method, path, { user: ALICE, body: { data: {}, permissions: { read: ["system.Everyone"] } } });
        expect(res.status, `${method}`).to.equal(400);
        expect(res.body.details[0]).to.include({ location: "body", name: "permissions" });
      }
      await create(ALICE, { id: "v2" });
      const patch = await server.request("PATCH", "/v1/notes/v2", { user: ALICE, body: { permissions: { read: [] } } });
      expect(patch.status).to.equal(400);
    });

    it("authenticates before validating the body: anonymous with a bad body gets 401", async () => {
      for (const [method, path] of [
        ["POST", "/v1/notes"],
        ["PUT", "/v1/notes/v1"],
        ["PATCH", "/v1/notes/v1"],
      ] as const) {
        const res = await server.request(method, path, { body: { data: [1], extra: true } });
        expect(res.status, method).to.equal(401);
      }
    });

    it("refuses an unknown top-level key with 400", async () => {
      const res = await server.request("POST", "/v1/notes", { user: ALICE, body: { data: {}, extra: 1 } });
      expect(res.status).to.equal(400);
      expect(res.body).to.include({ errno: 107, error: "Invalid parameters" });
      expect(res.body.details[0]).to.include({ location: "body", name: "" });
      expect(res.body.details[0].description).to.contain("extra");
    });

    it("refuses a body that is not an object with 400", async () => {
      for (const rawBody of ["[]", '"text"', "3"]) {
        const res = await server.request("POST", "/v1/notes", { user: ALICE, rawBody, headers: { "Content-Type": "application/json" } });
        expect(res.status, rawBody).to.equal(400);
        expect(res.body.errno).to.equal(107);
      }
    });

    it("refuses data that is not an object with 400 at body.data", async () => {
      const res = await server.request("POST", "/v1/notes", { user: ALICE, body: { data: [1, 2] } });
      expect(res.status).to.equal(400);
      expect(res.body.details[0]).to.include({ location: "body", name: "data" });
    });

    it("refuses an invalid JSON body with 400 errno 107", async () => {
      const res = await server.request("POST", "/v1/notes", {
        user: ALICE,
        rawBody: "{nope",
        headers: { "Content-Type": "application/json" },
      });
      expect(res.status).to.equal(400);
      expect(res.body.errno).to.equal(107);
    });

    it("refuses an invalid URL id with 400 at location path", async () => {
      for (const id of ["_bad", "-bad", "a.b", "x".repeat(256)]) {
        const res = await server.request("GET", `/v1/notes/${id}`, { user: ALICE });
        expect(res.status, id).to.equal(400);
        expect(res.body.details[0].location).to.equal("path");
      }
    });

    it("accepts ids of 255 characters and any UUID version", async () => {
      for (const id of ["x".repeat(255), "6ba7b810-9dad-11d1-80b4-00c04fd430c8", "A_b-1"]) {
        const res = await server.request("PUT", `/v1/notes/${id}`, { user: ALICE, body: { data: {} } });
        expect(res.status, id).to.equal(201);
      }
    });

    it("refuses an invalid body id on POST with 400 at location path", async () => {
      for (const id of ["_bad", 3.14, ""]) {
        const res = await server.request("POST", "/v1/notes", { user: ALICE, body: { data: { id } } });
        expect(res.status, String(id)).to.equal(400);
        expect(res.body.details[0]).to.include({ location: "path", description: "Invalid object id" });
      }
    });

    it("refuses DELETE ?last_modified that is not an integer with 400 at querystring", async () => {
      await create(ALICE, { id: "d1" });
      const res = await server.request("DELETE", "/v1/notes/d1?last_modified=abc", { user: ALICE });
      expect(res.status).to.equal(400);
      expect(res.body.details[0]).to.include({ location: "querystring", name: "last_modified" });
    });
  });
});
