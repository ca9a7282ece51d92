/**
 * CORS and credentials: an origin echoed from an explicit `cors_origins` list is told it may send
 * credentials (preflights included); `*` never is.
 */
import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http.js";

const ALICE = "alice:pw";
const ORIGIN = "https://app.example.com";

describe("HTTP CORS credentials", () => {
  let listed: TestServer;
  let everyone: TestServer;
  before(async () => {
    listed = await startTestServer({ cors_origins: "https://*.example.com http://localhost:3000" });
    everyone = await startTestServer({ cors_origins: "*" });
  });
  after(async () => {
    await listed.stop();
    await everyone.stop();
  });

  const preflight = (server: TestServer, origin: string) =>
    server.request("OPTIONS", "/v1/articles", {
      headers: { Origin: origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization" },
    });

  it("allows credentials for an origin echoed from an explicit list, on answers, errors and preflights", async () => {
    for (const origin of [ORIGIN, "http://localhost:3000"]) {
      for (const res of [
        await listed.request("GET", "/v1/notes", { user: ALICE, headers: { Origin: origin } }),
        await listed.request("GET", "/v1/notes", { headers: { Origin: origin } }), // 401
        await preflight(listed, origin),
      ]) {
        expect(res.headers.get("access-control-allow-origin"), `${origin} ${res.status}`).to.equal(origin);
        expect(res.headers.get("access-control-allow-credentials"), `${origin} ${res.status}`).to.equal("true");
        expect(res.headers.get("vary") ?? "").to.match(/origin/i);
      }
    }
  });

  it("never allows credentials with *", async () => {
    for (const res of [
      await everyone.request("GET", "/v1/notes", { user: ALICE, headers: { Origin: ORIGIN } }),
      await preflight(everyone, ORIGIN),
    ]) {
      expect(res.headers.get("access-control-allow-origin")).to.equal("*");
      expect(res.headers.get("access-control-allow-credentials")).to.equal(null);
    }
  });

  it("still refuses other origins, without CORS headers", async () => {
    const res = await listed.request("GET", "/v1/notes", { user: ALICE, headers: { Origin: "https://evil.com" } });
    expect(res.status).to.equal(400);
    expect(res.headers.get("access-control-allow-origin")).to.equal(null);
    expect(res.headers.get("access-control-allow-credentials")).to.equal(null);
  });
});
