import { expect } from "chai";
import { BackendError } from "../../src/domain/errors.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { startTestServer, userId, type TestServer } from "../support/http.js";

const ALICE = "alice:pw";
const BOB = "bob:pw";
const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString("base64")}`;

const requests = (n: number) => Array.from({ length: n }, () => ({ path: "/__lbheartbeat__" }));

describe("HTTP batch", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());
  afterEach(async () => {
    await server.request("DELETE", "/v1/articles", { user: ALICE });
    await server.request("DELETE", "/v1/notes", { user: ALICE });
  });

  const batch = (body: unknown, user?: string) => server.request("POST", "/v1/batch", { user, body });

  describe("sub-request building", () => {
    it("merges defaults without overriding, headers and body key by key", async () => {
      await server.request("PUT", "/v1/notes/n1", { user: ALICE, body: { data: { keep: 1 } } });
      const res = await batch({
        defaults: { method: "PUT", headers: { Authorization: basic(BOB), "If-None-Match": "*" }, body: { data: { from: "defaults" } } },
        requests: [
          { path: "/notes/n1", headers: { Authorization: basic(ALICE) } },
          { path: "/notes/n2", method: "GET", headers: { Authorization: basic(ALICE) } },
          { path: "/notes/n3", body: { data: { own: true } } },
        ],
      });
      expect(res.status).to.equal(200);
      const [first, second, third] = res.body.responses;
      // Alice's own Authorization wins; the defaults' If-None-Match still applies: n1 exists → 412.
      expect(first.status).to.equal(412);
      // method from the request wins over the default PUT
      expect(second.status).to.equal(404);
      // body keys merged: the request's `data` replaces the default's, as a whole key
      expect(third.status).to.equal(201);
      expect(third.body.data.own).to.equal(true);
      expect(third.body.data).to.not.have.property("from");
      const bobs = await server.request("GET", "/v1/notes/n3", { user: BOB });
      expect(bobs.status).to.equal(200);
      await server.request("DELETE", "/v1/notes", { user: BOB });
    });

    it("fills a body key the request lacks from defaults", async () => {
      const res = await batch(
        {
          defaults: { body: { data: { shared: "yes" } } },
          requests: [
            { method: "POST", path: "/notes" },
            { method: "POST", path: "/notes", body: { data: { own: 1 } } },
          ],
        },
        ALICE,
      );
      expect(res.body.responses[0].status).to.equal(201);
      expect(res.body.responses[0].body.data.shared).to.equal("yes");
      expect(res.body.responses[1].body.data).to.include({ own: 1 }).and.not.have.property("shared");
    });

    it("adds the /v1 prefix when missing, keeps it when present, and reports paths without the query", async () => {
      const res = await batch({ requests: [{ path: "/" }, { path: "/v1/__lbheartbeat__" }, { path: "/notes?_limit=1" }] }, ALICE);
      expect(res.status).to.equal(200);
      expect(res.body.responses.map((r: { path: string }) => r.path)).to.deep.equal(["/v1/", "/v1/__lbheartbeat__", "/v1/notes"]);
      expect(res.body.responses.map((r: { status: number }) => r.status)).to.deep.equal([200, 200, 200]);
      expect(res.body.responses[0].body.project_name).to.equal("tessera");
    });

    it("follows one trailing-slash redirect with the same method and body, and reports the final path", async () => {
      const res = await batch(
        { requests: [{ method: "PUT", path: "/notes/n9/?x=1", body: { data: { kept: true } } }, { path: "/v1" }] },
        ALICE,
      );
      const [put, root] = res.body.responses;
      expect(put.status).to.equal(201);
      expect(put.path).to.equal("/v1/notes/n9");
      expect(put.body.data.kept).to.equal(true);
      expect(root.status).to.equal(200);
      expect(root.path).to.equal("/v1/");
    });

    it("reports the path percent-decoded", async () => {
      const res = await batch({ requests: [{ path: "/notes/caf%C3%A9" }] }, ALICE);
      expect(res.body.responses[0].path).to.equal("/v1/notes/café");
    });

    it("lets the outer Authorization flow into sub-requests", async () => {
      const res = await batch({ requests: [{ path: "/" }, { method: "POST", path: "/notes", body: { data: {} } }] }, ALICE);
      expect(res.body.responses[0].body.user.id).to.equal(userId(ALICE));
      expect(res.body.responses[1].status).to.equal(201);
    });

    it("lets a sub-request override the outer headers, even with an empty Authorization", async () => {
      const res = await batch(
        {
          requests: [
            { path: "/", headers: { Authorization: basic(BOB) } },
            { path: "/", headers: { Authorization: "" } },
            { path: "/notes", headers: { authorization: "" } },
          ],
        },
        ALICE,
      );
      expect(res.body.responses[0].body.user.id).to.equal(userId(BOB));
      expect(res.body.responses[1].body).to.not.have.property("user");
      expect(res.body.responses[2].status).to.equal(401);
    });

    it("passes other outer headers too (If-None-Match from the outer request)", async () => {
      const created = await server.request("PUT", "/v1/notes/n1", { user: ALICE, body: { data: {} } });
      const etag = created.headers.get("etag") as string;
      const res = await server.request("POST", "/v1/batch", {
        user: ALICE,
        headers: { "If-None-Match": etag },
        body: { requests: [{ path: "/notes/n1" }] },
      });
      expect(res.body.responses[0].status).to.equal(304);
    });

    it("gives a sub-request body to handlers that need its media type (merge-patch)", async () => {
      await server.request("PUT", "/v1/notes/n1", { user: ALICE, body: { data: { a: { x: 1, y: 2 } } } });
      const res = await batch(
        {
          requests: [
            {
              method: "PATCH",
              path: "/notes/n1",
              headers: { "Content-Type": "application/merge-patch+json" },
              body: { data: { a: { y: null } } },
            },
          ],
        },
        ALICE,
      );
      expect(res.body.responses[0].status).to.equal(200);
      expect(res.body.responses[0].body.data.a).to.deep.equal({ x: 1 });
    });
  });

  describe("limits and validation", () => {
    it("accepts 25 sub-requests by default and refuses 26 with a 400 naming the limit", async () => {
      expect((await batch({ requests: requests(25) })).status).to.equal(200);
      const res = await batch({ requests: requests(26) });
      expect(res.status).to.equal(400);
      expect(res.body.errno).to.equal(107);
      expect(res.body.details[0]).to.include({ location: "body", name: "requests" });
      expect(res.body.details[0].description).to.contain("25");
    });

    it("accepts an empty list", async () => {
      const res = await batch({ requests: [] });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ responses: [] });
    });

    it("refuses a recursive call on /batch (every spelling: batch-nesting.test.ts)", async () => {
      for (const path of ["/batch", "/v1/batch"]) {
        const res = await batch({ requests: [{ method: "POST", path }] });
        expect(res.status, path).to.equal(400);
        expect(res.body.errno).to.equal(107);
        expect(res.body.details[0].name).to.equal("requests.0.path");
      }
    });

    it("refuses unknown keys at the top level, in requests and in defaults", async () => {
      const cases: [object, string][] = [
        [{ requests: [], extra: 1 }, "extra"],
        [{ requests: [{ path: "/", verb: "GET" }] }, "requests.0.verb"],
        [{ defaults: { colour: "red" }, requests: [{ path: "/" }] }, "defaults.colour"],
        [{ defaults: { colour: "red" }, requests: [] }, "defaults.colour"],
      ];
      for (const [body, name] of cases) {
        const res = await batch(body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.errno).to.equal(107);
        expect(res.body.details.map((d: { name: string }) => d.name)).to.deep.equal([name]);
      }
    });

    it("refuses a lowercase method, a missing path, non-string headers and a non-object body", async () => {
      const cases: [object, string][] = [
        [{ method: "get", path: "/" }, "requests.0.method"],
        [{ method: "GET" }, "requests.0.path"],
        [{ path: "/", headers: { "X-N": 1 } }, "requests.0.headers"],
        [{ method: "POST", path: "/notes", body: [1] }, "requests.0.body"],
        [{ path: "/", headers: { "Bad Name": "x" } }, "requests.0.headers"],
        [
          {
            method: "OPTIONS",
            path: "/notes",
            headers: { Origin: "http://a", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "x\r\nSet-Cookie: y" },
          },
          "requests.0.headers",
        ],
      ];
      for (const [request, name] of cases) {
        const res = await batch({ requests: [request] });
        expect(res.status, name).to.equal(400);
        expect(res.body.details.map((d: { name: string }) => d.name)).to.include(name);
      }
    });

    it("refuses a body that is not an object with a list of requests", async () => {
      expect((await batch([])).status).to.equal(400);
      expect((await batch({ requests: "x" })).status).to.equal(400);
    });

    it("answers 405 with Allow: POST to other methods", async () => {
      const res = await server.request("GET", "/v1/batch");
      expect(res.status).to.equal(405);
      expect(res.headers.get("allow")).to.equal("POST");
    });
  });

  describe("configured limit", () => {
    let limited: TestServer;
    let unlimited: TestServer;
    before(async () => {
      limited = await startTestServer({ batch_max_requests: "3" });
      unlimited = await startTestServer({ batch_max_requests: "null" });
    });
    after(async () => {
      await limited.stop();
      await unlimited.stop();
    });

    it("honours a configured batch_max_requests", async () => {
      expect((await limited.request("POST", "/v1/batch", { body: { requests: requests(3) } })).status).to.equal(200);
      const res = await limited.request("POST", "/v1/batch", { body: { requests: requests(4) } });
      expect(res.status).to.equal(400);
      expect(res.body.details[0].description).to.contain("3");
    });

    it("null means unlimited", async () => {
      const res = await unlimited.request("POST", "/v1/batch", { body: { requests: requests(60) } });
      expect(res.status).to.equal(200);
      expect(res.body.responses).to.have.length(60);
      const root = await unlimited.request("GET", "/v1/");
      expect(root.body.settings.batch_max_requests).to.equal(null);
    });
  });

  describe("responses", () => {
    it("puts reads, writes, a 403 and a 404 each in its slot, in order, and goes on", async () => {
      await server.request("PUT", "/v1/articles/a1", { user: ALICE, body: { data: { title: "mine" } } });
      const res = await batch(
        {
          requests: [
            { method: "POST", path: "/articles", body: { data: { title: "new" } } },
            { path: "/articles/a1", headers: { Authorization: basic(BOB) } },
            { path: "/articles/a1" },
            { path: "/notes/missing" },
            { method: "PATCH", path: "/articles/a1", body: { data: { title: "changed" } } },
            { method: "GET", path: "/articles" },
          ],
        },
        ALICE,
      );
      expect(res.status).to.equal(200);
      const statuses = res.body.responses.map((r: { status: number }) => r.status);
      expect(statuses).to.deep.equal([201, 403, 200, 404, 200, 200]);
      const [created, forbidden, read, missing, patched, listed] = res.body.responses;
      expect(created.body.data.title).to.equal("new");
      expect(forbidden.body).to.include({ code: 403, errno: 121 });
      expect(read.body.data.title).to.equal("mine");
      expect(read.headers.ETag).to.equal(`"${read.body.data.last_modified}"`);
      expect(missing.body).to.include({ code: 404, errno: 110 });
      expect(patched.body.data.title).to.equal("changed");
      expect(listed.body.data).to.have.length(2);
    });

    it("carries CORS headers on sub-request errors when the outer request has an Origin", async () => {
      const res = await server.request("POST", "/v1/batch", {
        user: ALICE,
        headers: { Origin: "https://app.example.com" },
        body: { requests: [{ path: "/notes/missing" }] },
      });
      const [missing] = res.body.responses;
      expect(missing.status).to.equal(404);
      expect(missing.headers["Access-Control-Allow-Origin"]).to.be.oneOf(["https://app.example.com", "*"]);
      expect(res.headers.get("access-control-allow-origin")).to.be.oneOf(["https://app.example.com", "*"]);
    });

    it("gives each sub-response its own headers (JSON content type)", async () => {
      const res = await batch({ requests: [{ path: "/notes" }] }, ALICE);
      expect(res.body.responses[0].headers["Content-Type"]).to.contain("application/json");
    });
  });

  describe("failures", () => {
    it("answers 503 with Retry-After for the whole batch when a backend fails, and stops there", async () => {
      const records = server.running.container.get(TOKENS.RecordStore);
      const get = records.get.bind(records);
      await server.request("PUT", "/v1/notes/n1", { user: ALICE, body: { data: {} } });
      records.get = () => Promise.reject(new BackendError("storage", new Error("socket hang up")));
      let res;
      try {
        res = await batch(
          {
            requests: [
              { path: "/__lbheartbeat__" },
              { path: "/notes/n1" },
              { method: "POST", path: "/notes", body: { data: { after: true } } },
            ],
          },
          ALICE,
        );
      } finally {
        records.get = get;
      }
      expect(res.status).to.equal(503);
      expect(res.headers.get("retry-after")).to.equal("30");
      expect(res.body).to.include({ code: 503, errno: 201 });
      expect(res.body).to.not.have.property("responses");
      const notes = await server.request("GET", "/v1/notes", { user: ALICE });
      expect(notes.body.data.map((n: { id: string }) => n.id)).to.deep.equal(["n1"]);
    });
  });

  describe("unexpected failures", () => {
    it("answers 500 errno 999 for the whole batch when a sub-request hits a bug", async () => {
      const records = server.running.container.get(TOKENS.RecordStore);
      const list = records.list.bind(records);
      records.list = () => Promise.reject(new TypeError("undefined is not a function (internal detail)"));
      let res;
      try {
        res = await batch({ requests: [{ path: "/__lbheartbeat__" }, { path: "/notes" }] }, ALICE);
      } finally {
        records.list = list;
      }
      expect(res.status).to.equal(500);
      expect(res.body).to.include({ code: 500, errno: 999 });
      expect(JSON.stringify(res.body)).to.not.contain("internal detail");
    });
  });

  describe("shared request-bound data", () => {
    it("computes the principals once per batch for the same credentials", async () => {
      const permissions = server.running.container.get(TOKENS.PermissionStore);
      const original = permissions.userPrincipals.bind(permissions);
      const asked: string[] = [];
      permissions.userPrincipals = (id: string) => {
        asked.push(id);
        return original(id);
      };
      try {
        const res = await batch(
          {
            requests: [
              { path: "/articles" },
              { method: "POST", path: "/articles", body: { data: {} } },
              { path: "/articles" },
              { path: "/" },
            ],
          },
          ALICE,
        );
        expect(res.body.responses.map((r: { status: number }) => r.status)).to.deep.equal([200, 201, 200, 200]);
        expect(asked).to.deep.equal([userId(ALICE)]);
        asked.length = 0;
        await batch(
          {
            requests: [
              { path: "/articles" },
              { path: "/articles", headers: { Authorization: basic(BOB) } },
              { path: "/articles", headers: { Authorization: basic(BOB) } },
            ],
          },
          ALICE,
        );
        expect(asked.sort()).to.deep.equal([userId(ALICE), userId(BOB)].sort());
      } finally {
        permissions.userPrincipals = original;
      }
    });
  });
});
