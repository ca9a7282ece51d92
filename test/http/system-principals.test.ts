/**
 * A `system.` principal that does not exist (`system.everyone`, a typo of `system.Everyone`) would
 * silently grant nothing: it is refused with a 400 naming the permission, in every body dialect.
 */
import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http.js";

const ALICE = "alice:pw";
const DESCRIBED = (principal: string) => `"${principal}" is not a system principal (system.Everyone, system.Authenticated)`;

describe("HTTP unknown system principals", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  it("refuses them in POST, PUT and PATCH bodies, and writes nothing", async () => {
    await server.request("PUT", "/v1/articles/a1", { user: ALICE, body: { data: {} } });
    for (const principal of ["system.everyone", "system.Everybody", "System.Authenticated", "system."]) {
      const permissions = { read: ["basicauth:someone", principal] };
      const writes = [
        server.request("POST", "/v1/articles", { user: ALICE, body: { data: { id: "a2" }, permissions } }),
        server.request("PUT", "/v1/articles/a1", { user: ALICE, body: { data: {}, permissions } }),
        server.request("PATCH", "/v1/articles/a1", { user: ALICE, body: { permissions } }),
        server.request("PATCH", "/v1/articles/a1", {
          user: ALICE,
          body: [{ op: "add", path: `/permissions/read/${principal}` }],
          headers: { "Content-Type": "application/json-patch+json" },
        }),
      ];
      for (const res of await Promise.all(writes)) {
        expect(res.status, principal).to.equal(400);
        expect(res.body.details, principal).to.deep.equal([
          { location: "body", name: "permissions.read", description: DESCRIBED(principal) },
        ]);
      }
    }
    const stored = await server.request("GET", "/v1/articles/a1", { user: ALICE });
    expect(stored.body.permissions.read ?? []).to.deep.equal([]);
    const listed = await server.request("GET", "/v1/articles", { user: ALICE });
    expect(listed.body.data.map((r: { id: string }) => r.id)).to.deep.equal(["a1"]);
  });

  it("accepts the real ones", async () => {
    const res = await server.request("PUT", "/v1/articles/a3", {
      user: ALICE,
      body: { data: {}, permissions: { read: ["system.Everyone", "system.Authenticated"] } },
    });
    expect(res.status).to.equal(201);
    expect(res.body.permissions.read).to.have.members(["system.Everyone", "system.Authenticated"]);
  });
});
