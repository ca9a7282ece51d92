/** Inside a batch each sub-request is identified by every configured policy, not only Basic Auth. */
import { expect } from "chai";
import type { AuthenticationPolicy } from "../../src/application/ports/authentication-policy.js";
import { startTestServer, type TestServer } from "../support/http.js";

const tokenPolicy: AuthenticationPolicy = { name: "token", authenticate: (request) => request.header("x-token") };

describe("HTTP batch identities", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ "multiauth.policies": "basicauth token" }, [{ authenticationPolicies: { token: () => tokenPolicy } }]);
  });
  after(() => server.stop());

  it("runs a sub-request with its own credentials of another policy as that identity", async () => {
    const res = await server.request("POST", "/v1/batch", {
      headers: { "X-Token": "alice" },
      body: { requests: [{ path: "/" }, { path: "/", headers: { "X-Token": "bot" } }, { path: "/", headers: { "X-Token": "" } }] },
    });
    expect(res.status).to.equal(200);
    expect(res.body.responses.map((r: { body: { user?: { id: string } } }) => r.body.user?.id ?? null)).to.deep.equal([
      "token:alice",
      "token:bot",
      null,
    ]);
  });
});
