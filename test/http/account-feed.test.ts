/**
 * The live feed read as a browser reads it without EventSource: `fetch` with the account's
 * `Authorization` header and a stream reader (docs/authentication.md shows the same code).
 */
import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http.js";

const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString("base64")}`;

describe("live feed signed in by an account, through fetch", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ "multiauth.policies": "account", account_scrypt_cost: "4" });
    for (const [id, password] of [
      ["alice", "pw-a"],
      ["bob", "pw-b"],
    ])
      expect((await server.request("PUT", `/v1/accounts/${id}`, { body: { data: { password } } })).status).to.equal(201);
  });
  after(() => server.stop());

  it("streams to Bob the record Alice shares with account:bob, and refuses an anonymous reader", async () => {
    const controller = new AbortController();
    const response = await fetch(`${server.url}/v1/articles`, {
      headers: { Accept: "text/event-stream", Authorization: basic("bob:pw-b") },
      signal: controller.signal,
    });
    expect(response.status).to.equal(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    const created = await server.request("POST", "/v1/articles", {
      user: "alice:pw-a",
      body: { data: { title: "for bob" }, permissions: { read: ["account:bob"] } },
    });
    const id = created.body.data.id as string;
    const deadline = Date.now() + 10_000;
    while (!text.includes(id) && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    controller.abort();
    expect(text).to.contain(id).and.contain("for bob");
    const anonymous = await fetch(`${server.url}/v1/articles`, { headers: { Accept: "text/event-stream" } });
    expect(anonymous.status).to.equal(401);
    await anonymous.text();
  });
});
