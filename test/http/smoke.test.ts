import { expect } from "chai";
import { startTestServer, userId, type TestServer } from "../support/http.js";

describe("HTTP smoke", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  it("creates a shareable record and makes its creator a writer", async () => {
    const created = await server.request("POST", "/v1/articles", { user: "alice:pw", body: { data: { title: "t" } } });
    expect(created.status).to.equal(201);
    expect(created.body.permissions.write).to.deep.equal([userId("alice:pw")]);
  });
});
