/** The HTTP API with Redis permissions: sharing works, and a Redis outage is a 503, never a grant. */
import { expect } from "chai";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { startTestServer, userId, type TestServer } from "../support/http.js";
import { REDIS_URL, requireService } from "../support/services.js";
import { TcpProxy } from "../support/tcp-proxy.js";

describe("HTTP with Redis permissions", function () {
  requireService("redis");
  this.timeout(20_000);
  let proxy: TcpProxy;
  let server: TestServer;

  before(async () => {
    proxy = await TcpProxy.start(REDIS_URL, 6379);
    const url = proxy.rewrite(REDIS_URL);
    server = await startTestServer({
      permission_backend: "redis",
      permission_url: url,
      permission_prefix: `tessera-http-test-${process.pid}:`,
      cache_backend: "redis",
      cache_url: url,
      cache_prefix: `tessera-http-cache-${process.pid}:`,
    });
  });
  after(async () => {
    await (await server?.running.container.getAsync(TOKENS.PermissionStore))?.flush();
    await (await server?.running.container.getAsync(TOKENS.Cache))?.flush();
    await server?.stop();
    await proxy?.close();
  });

  it("shares a record through Redis ACEs and lists it for the reader", async () => {
    await server.request("PUT", "/v1/articles/shared", {
      user: "alice:pw",
      body: { data: { n: 1 }, permissions: { read: [userId("bob:pw")] } },
    });
    await server.request("PUT", "/v1/articles/private", { user: "alice:pw", body: { data: { n: 2 } } });
    expect((await server.request("GET", "/v1/articles/shared", { user: "bob:pw" })).status).to.equal(200);
    expect((await server.request("GET", "/v1/articles/private", { user: "bob:pw" })).status).to.equal(403);
    const listed = await server.request("GET", "/v1/articles", { user: "bob:pw" });
    expect(listed.body.data.map((r: { id: string }) => r.id)).to.deep.equal(["shared"]);
  });

  it("answers 503 (not 200, not a crash) when Redis stops answering mid-request, and recovers", async () => {
    await server.request("PUT", "/v1/articles/r1", { user: "alice:pw", body: { data: {} } });
    await proxy.cut();
    const down = await server.request("GET", "/v1/articles/r1", { user: "alice:pw" });
    expect(down.status).to.equal(503);
    expect(down.headers.get("retry-after")).to.equal("30");
    expect(down.body.details).to.deep.equal({ backend: "permission" });
    await proxy.restore();
    let status = 0;
    for (let attempt = 0; attempt < 40 && status !== 200; attempt++) {
      status = (await server.request("GET", "/v1/articles/r1", { user: "alice:pw" })).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).to.equal(200);
  });
});
