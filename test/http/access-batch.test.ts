/**
 * A batch is decided as one request (docs/api.md, Batch): principals are read once per identity,
 * and authentication runs for each sub-request, so an account deleted by a sub-request is
 * unauthenticated in the sub-requests after it.
 */
import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http.js";

describe("a batch and the caller's identity", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ "multiauth.policies": "account", account_scrypt_cost: "4" });
  });
  after(() => server.stop());

  it("answers 401 to the sub-requests that follow the deletion of their own account", async () => {
    expect((await server.request("PUT", "/v1/accounts/ann", { body: { data: { password: "pw-ann" } } })).status).to.equal(201);
    const batch = await server.request("POST", "/v1/batch", {
      user: "ann:pw-ann",
      body: {
        requests: [
          { method: "GET", path: "/accounts/ann" },
          { method: "DELETE", path: "/accounts/ann" },
          { method: "GET", path: "/accounts/ann" },
          { method: "GET", path: "/permissions" },
        ],
      },
    });
    expect(batch.status).to.equal(200);
    expect(batch.body.responses.map((r: { status: number }) => r.status)).to.deep.equal([200, 200, 401, 200]);
    expect(batch.body.responses[3].body.data).to.deep.equal([]);
  });
});
