/** `PATCH` with `application/json-patch+json` (RFC 6902) on `/data/…` and `/permissions/<perm>/<principal>`, as in Kinto. */
import { expect } from "chai";
import { startTestServer, userId, type TestServer } from "../support/http.js";

const ALICE = "alice:pw";
const BOB = "bob:pw";
const JSON_PATCH = { "Content-Type": "application/json-patch+json" };

describe("Kinto compatibility: JSON Patch", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  const jsonPatch = (path: string, ops: unknown, user = ALICE, headers: Record<string, string> = {}) =>
    server.request("PATCH", path, { user, rawBody: JSON.stringify(ops), headers: { ...JSON_PATCH, ...headers } });

  async function article(data: Record<string, unknown>) {
    const res = await server.request("POST", "/v1/articles", { user: ALICE, body: { data, permissions: { read: ["group:readers"] } } });
    expect(res.status).to.equal(201);
    return res.body.data as { id: string; last_modified: number };
  }

  it("applies add, replace, remove, move, copy and a passing test on /data", async () => {
    const { id } = await article({ title: "old", tags: ["a"], draft: true, meta: { x: 1 } });
    const res = await jsonPatch(`/v1/articles/${id}`, [
      { op: "test", path: "/data/title", value: "old" },
      { op: "replace", path: "/data/title", value: "new" },
      { op: "add", path: "/data/tags/-", value: "b" },
      { op: "remove", path: "/data/draft" },
      { op: "move", from: "/data/meta", path: "/data/info" },
      { op: "copy", from: "/data/info", path: "/data/backup" },
    ]);
    expect(res.status).to.equal(200);
    const { last_modified: _lm, ...data } = res.body.data;
    expect(data).to.deep.equal({ id, title: "new", tags: ["a", "b"], info: { x: 1 }, backup: { x: 1 } });
    const read = await server.request("GET", `/v1/articles/${id}`, { user: ALICE });
    expect(read.body.data).to.deep.equal(res.body.data);
  });

  it("adds and removes principals through /permissions/<perm>/<principal>, without a value", async () => {
    const { id } = await article({});
    const bob = userId(BOB);
    const res = await jsonPatch(`/v1/articles/${id}`, [
      { op: "add", path: `/permissions/write/${bob}` },
      { op: "remove", path: "/permissions/read/group:readers" },
      { op: "add", path: "/permissions/read/system.Everyone" },
    ]);
    expect(res.status).to.equal(200);
    expect(res.body.permissions.read).to.deep.equal(["system.Everyone"]);
    expect(res.body.permissions.write).to.have.members([userId(ALICE), bob]);
    // Bob is now a writer: his own JSON Patch goes through.
    expect((await jsonPatch(`/v1/articles/${id}`, [{ op: "add", path: "/data/by", value: "bob" }], BOB)).status).to.equal(200);
  });

  it("revokes a whole permission removed with /permissions/<perm>: its principals lose access", async () => {
    const { id } = await article({});
    const bob = userId(BOB);
    expect((await jsonPatch(`/v1/articles/${id}`, [{ op: "add", path: `/permissions/read/${bob}` }])).status).to.equal(200);
    expect((await server.request("GET", `/v1/articles/${id}`, { user: BOB })).status).to.equal(200);
    const res = await jsonPatch(`/v1/articles/${id}`, [{ op: "remove", path: "/permissions/read" }]);
    expect(res.status).to.equal(200);
    expect(res.body.permissions).to.deep.equal({ write: [userId(ALICE)] });
    expect((await server.request("GET", `/v1/articles/${id}`, { user: BOB })).status).to.equal(403);
  });

  it("answers a failed test with 400 errno 107 'JSON Patch operation failed' and changes nothing", async () => {
    const { id, last_modified } = await article({ title: "old" });
    const res = await jsonPatch(`/v1/articles/${id}`, [
      { op: "replace", path: "/data/title", value: "new" },
      { op: "test", path: "/data/title", value: "old" },
    ]);
    expect(res.status).to.equal(400);
    expect(res.body).to.include({ code: 400, errno: 107, error: "Invalid parameters" });
    expect(res.body.details[0]).to.include({ location: "body", name: null });
    expect(res.body.details[0].description).to.match(/^JSON Patch operation failed: /);
    expect(res.body.message).to.match(/^body: JSON Patch operation failed: /);
    const read = await server.request("GET", `/v1/articles/${id}`, { user: ALICE });
    expect(read.body.data).to.deep.equal({ id, last_modified, title: "old" });
  });

  it("answers 400 to invalid operations (unknown op, bad pointer, missing target, not a list)", async () => {
    const { id } = await article({});
    const bodies = [
      [{ op: "frobnicate", path: "/data/a" }],
      [{ op: "add", path: "data/a", value: 1 }],
      [{ op: "remove", path: "/data/missing" }],
      [{ op: "add", path: "/data/a" }],
      [{ op: "add", path: "/permissions/admin/x" }],
      { op: "add", path: "/data/a", value: 1 },
    ];
    for (const body of bodies) {
      const res = await jsonPatch(`/v1/articles/${id}`, body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.errno, JSON.stringify(body)).to.equal(107);
    }
  });

  it("refuses a patch changing the id, and honours If-Match", async () => {
    const { id, last_modified } = await article({});
    const renamed = await jsonPatch(`/v1/articles/${id}`, [{ op: "replace", path: "/data/id", value: "other" }]);
    expect(renamed.status).to.equal(400);
    const stale = await jsonPatch(`/v1/articles/${id}`, [{ op: "add", path: "/data/a", value: 1 }], ALICE, {
      "If-Match": `"${last_modified - 1}"`,
    });
    expect(stale.status).to.equal(412);
  });

  it("still authorizes before looking at the patch (403 for a non-writer, 404 for a missing record)", async () => {
    const { id } = await article({});
    expect((await jsonPatch(`/v1/articles/${id}`, [{ op: "test", path: "/data/x", value: 1 }], BOB)).status).to.equal(403);
    expect((await jsonPatch("/v1/notes/missing", [{ op: "add", path: "/data/a", value: 1 }])).status).to.equal(404);
  });
});
