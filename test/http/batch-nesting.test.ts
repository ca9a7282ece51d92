import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http.js";

const ALICE = "alice:pw";

/** Every spelling the router sends to the batch endpoint; none may run a batch inside a batch. */
const SPELLINGS = [
  "/batch",
  "/v1/batch",
  "/BATCH",
  "/Batch",
  "/v1/Batch/",
  "/v1/BATCH",
  "/batch/",
  "/v1/batch//",
  "/batch?x=1",
  "/v1/Batch?_limit=1",
];

describe("HTTP batch nesting", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());
  afterEach(() => server.request("DELETE", "/v1/notes", { user: ALICE }));

  const inner = { requests: [{ method: "POST", path: "/notes", body: { data: { nested: true } } }] };

  for (const path of SPELLINGS) {
    it(`refuses a sub-request to ${path} before running anything`, async () => {
      const res = await server.request("POST", "/v1/batch", {
        user: ALICE,
        body: {
          requests: [
            { method: "POST", path: "/notes", body: { data: { outer: true } } },
            { method: "POST", path, body: inner },
          ],
        },
      });
      expect(res.status).to.equal(400);
      expect(res.body.details).to.deep.include({
        location: "body",
        name: "requests.1.path",
        description: "Recursive calls to the batch endpoint are not allowed",
      });
      const listed = await server.request("GET", "/v1/notes", { user: ALICE });
      expect(listed.body.data).to.deep.equal([]);
    });
  }

  // Spellings the router does not send to the batch endpoint: whatever they answer, nothing nests.
  for (const path of ["/v1//batch", "/v1/%62atch", "/v1/%62atch/", "/%2Fbatch"]) {
    it(`never runs a batch for ${path}`, async () => {
      const res = await server.request("POST", "/v1/batch", { user: ALICE, body: { requests: [{ method: "POST", path, body: inner }] } });
      expect(res.status).to.be.oneOf([200, 400]);
      if (res.status === 200) expect(res.body.responses[0].status).to.be.within(400, 499);
      const listed = await server.request("GET", "/v1/notes", { user: ALICE });
      expect(listed.body.data).to.deep.equal([]);
    });
  }

  it("still serves collections whose path merely contains the word batch", async () => {
    const res = await server.request("POST", "/v1/batch", {
      user: ALICE,
      body: { requests: [{ path: "/notes?title=/batch" }, { path: "/batches" }] },
    });
    expect(res.status).to.equal(200);
    expect(res.body.responses.map((r: { status: number }) => r.status)).to.deep.equal([200, 404]);
  });
});
