/**
 * A client `last_modified` that is an integer is bounded like `_since`: not negative, at most 24 h
 * ahead. One that is not an integer is ignored and overwritten, as Kinto does (`IgnoredFieldsTest`).
 */
import { expect } from "chai";
import type { Clock } from "../../src/application/ports/clock.js";
import { startTestServer, type TestServer } from "../support/http.js";

const ALICE = "alice:pw";
const NOW = 1_800_000_000_000;
const DAY = 24 * 3600 * 1000;
const fixedClock: Clock = { now: () => NOW };

describe("HTTP client timestamps", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({}, [], fixedClock);
  });
  after(() => server.stop());
  afterEach(() => server.request("DELETE", "/v1/notes", { user: ALICE }));

  const REFUSED: unknown[] = [4102444800000, NOW + DAY + 1, -1, 2 ** 53];
  const IGNORED: unknown[] = [1.5, "1800000000000", "abc", true, [1], { t: 1 }];

  it("refuses what _since would refuse, on POST, PUT and PATCH, and writes nothing", async () => {
    await server.request("PUT", "/v1/notes/n1", { user: ALICE, body: { data: { v: 0 } } });
    for (const value of REFUSED) {
      const writes = [
        server.request("POST", "/v1/notes", { user: ALICE, body: { data: { id: "n2", last_modified: value } } }),
        server.request("PUT", "/v1/notes/n1", { user: ALICE, body: { data: { last_modified: value } } }),
        server.request("PATCH", "/v1/notes/n1", { user: ALICE, body: { data: { last_modified: value } } }),
        server.request("PATCH", "/v1/notes/n1", {
          user: ALICE,
          body: { data: { last_modified: value } },
          headers: { "Content-Type": "application/merge-patch+json" },
        }),
      ];
      for (const res of await Promise.all(writes)) {
        expect(res.status, JSON.stringify(value)).to.equal(400);
        expect(res.body.details, JSON.stringify(value)).to.deep.equal([
          {
            location: "body",
            name: "data.last_modified",
            description: "last_modified must be an integer of milliseconds since the epoch, at most 24 hours ahead of the server clock",
          },
        ]);
      }
    }
    const listed = await server.request("GET", "/v1/notes", { user: ALICE });
    expect(listed.body.data.map((r: { id: string }) => r.id)).to.deep.equal(["n1"]);
    expect(listed.body.data[0].last_modified).to.be.at.most(NOW + DAY);
  });

  it("ignores and overwrites a last_modified that is not an integer, on POST, PUT and PATCH (Kinto)", async () => {
    for (const value of IGNORED) {
      const label = JSON.stringify(value);
      const post = await server.request("POST", "/v1/notes", { user: ALICE, body: { data: { id: "n2", v: 1, last_modified: value } } });
      expect(post.status, label).to.equal(201);
      expect(post.body.data, label).to.deep.include({ id: "n2", v: 1 });
      expect(post.body.data.last_modified, label).to.be.a("number").and.not.equal(value);
      const put = await server.request("PUT", "/v1/notes/n1", { user: ALICE, body: { data: { v: 2, last_modified: value } } });
      expect(put.status, label).to.be.oneOf([200, 201]);
      expect(put.body.data.last_modified, label).to.be.a("number").and.not.equal(value);
      for (const type of ["application/json", "application/merge-patch+json"]) {
        const patch = await server.request("PATCH", "/v1/notes/n1", {
          user: ALICE,
          body: { data: { v: 3, last_modified: value } },
          headers: { "Content-Type": type },
        });
        expect(patch.status, `${label} ${type}`).to.equal(200);
        expect(patch.body.data, `${label} ${type}`).to.deep.include({ id: "n1", v: 3 });
        expect(patch.body.data.last_modified, `${label} ${type}`).to.be.a("number").and.not.equal(value);
      }
      const jsonPatch = await server.request("PATCH", "/v1/notes/n1", {
        user: ALICE,
        body: [{ op: "replace", path: "/data/last_modified", value }],
        headers: { "Content-Type": "application/json-patch+json" },
      });
      expect(jsonPatch.status, `${label} json-patch`).to.equal(200);
      expect(jsonPatch.body.data.last_modified, `${label} json-patch`).to.be.a("number");
      const stored = await server.request("GET", "/v1/notes/n1", { user: ALICE });
      expect(stored.body.data.last_modified, label)
        .to.be.a("number")
        .and.at.most(NOW + DAY);
      await server.request("DELETE", "/v1/notes", { user: ALICE });
    }
  });

  it("bounds JSON Patch operations that set last_modified", async () => {
    await server.request("PUT", "/v1/notes/n1", { user: ALICE, body: { data: { t: 4102444800000 } } });
    const patch = (operations: unknown) =>
      server.request("PATCH", "/v1/notes/n1", {
        user: ALICE,
        body: operations,
        headers: { "Content-Type": "application/json-patch+json" },
      });
    const cases: [unknown, string, string][] = [
      [
        [{ op: "replace", path: "/data/last_modified", value: 4102444800000 }],
        "0.value",
        "last_modified must be an integer of milliseconds since the epoch, at most 24 hours ahead of the server clock",
      ],
      [
        [{ op: "add", path: "/data", value: { last_modified: -5 } }],
        "0.value",
        "last_modified must be an integer of milliseconds since the epoch, at most 24 hours ahead of the server clock",
      ],
      [[{ op: "copy", from: "/data/t", path: "/data/last_modified" }], "0.path", "last_modified cannot be copied or moved"],
    ];
    for (const [operations, name, description] of cases) {
      const res = await patch(operations);
      expect(res.status, JSON.stringify(operations)).to.equal(400);
      expect(res.body.details, JSON.stringify(operations)).to.deep.equal([{ location: "body", name, description }]);
    }
    expect((await patch([{ op: "replace", path: "/data/last_modified", value: NOW + 1000 }])).status).to.equal(200);
  });

  it("honours a value up to 24 hours ahead, and sync with _since keeps working after it", async () => {
    const ahead = NOW + DAY;
    const res = await server.request("PUT", "/v1/notes/n1", { user: ALICE, body: { data: { last_modified: ahead } } });
    expect(res.status).to.equal(201);
    expect(res.body.data.last_modified).to.equal(ahead);
    const since = await server.request("GET", `/v1/notes?_since=${ahead - 1}`, { user: ALICE });
    expect(since.status).to.equal(200);
    expect(since.body.data).to.have.length(1);
  });

  it("bounds DELETE ?last_modified= the same way", async () => {
    await server.request("PUT", "/v1/notes/n1", { user: ALICE, body: { data: {} } });
    for (const value of ["4102444800000", String(NOW + DAY + 1), "-1", "1.5", "abc"]) {
      const res = await server.request("DELETE", `/v1/notes/n1?last_modified=${value}`, { user: ALICE });
      expect(res.status, value).to.equal(400);
      expect(res.body.details, value).to.deep.equal([
        {
          location: "querystring",
          name: "last_modified",
          description: "last_modified must be an integer of milliseconds since the epoch, at most 24 hours ahead of the server clock",
        },
      ]);
    }
    // Accepted at the bound (honoured only when above the collection's clock, which earlier tests moved).
    const res = await server.request("DELETE", `/v1/notes/n1?last_modified="${NOW + DAY}"`, { user: ALICE });
    expect(res.status).to.equal(200);
    expect(res.body.data.last_modified).to.be.at.least(NOW + DAY);
  });
});
