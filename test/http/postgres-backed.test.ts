/**
 * A representative part of the HTTP API on PostgreSQL storage and permissions (one database, so
 * listings join the ACE table and a batch is one transaction), plus outages and recovery.
 */
import { expect } from "chai";
import { BackendError } from "../../src/domain/errors.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { startTestServer, userId, type TestServer } from "../support/http.js";
import { recordsOf, walkNextPages } from "../support/page-walk.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { requireService } from "../support/services.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import { flushStorage } from "../support/storage-reset.js";

const DATABASE = "tessera_http_test";

describe("HTTP on PostgreSQL", function () {
  requireService("postgresql");
  this.timeout(20_000);
  let proxy: TcpProxy;
  let server: TestServer;

  before(async () => {
    await ensureDatabase(DATABASE);
    proxy = await TcpProxy.start(databaseUrl(DATABASE), 5432);
    const url = proxy.rewrite(databaseUrl(DATABASE));
    server = await startTestServer({
      storage_backend: "postgresql",
      storage_url: url,
      permission_backend: "postgresql",
      permission_url: url,
      storage_pool_timeout: "2",
      retry_after_seconds: "7",
    });
    await (await server.running.container.getAsync(TOKENS.Migrator)).migrate();
  });
  beforeEach(async () => {
    await flushStorage(server.running.container);
    await (await server.running.container.getAsync(TOKENS.PermissionStore)).flush();
  });
  after(async () => {
    await server?.stop();
    await proxy?.close();
  });

  it("creates, reads, patches and deletes a record with timestamps from the database", async () => {
    const created = await server.request("PUT", "/v1/articles/a1", { user: "alice:pw", body: { data: { title: "t" } } });
    expect(created.status).to.equal(201);
    const etag = created.headers.get("etag") as string;
    const patched = await server.request("PATCH", "/v1/articles/a1", {
      user: "alice:pw",
      body: { data: { done: true } },
      headers: { "If-Match": etag },
    });
    expect(patched.status).to.equal(200);
    expect(patched.body.data).to.deep.include({ title: "t", done: true });
    expect(patched.body.data.last_modified).to.be.greaterThan(created.body.data.last_modified);
    const stale = await server.request("PATCH", "/v1/articles/a1", {
      user: "alice:pw",
      body: { data: { x: 1 } },
      headers: { "If-Match": etag },
    });
    expect(stale.status).to.equal(412);
    expect((await server.request("DELETE", "/v1/articles/a1", { user: "alice:pw" })).status).to.equal(200);
    expect((await server.request("GET", "/v1/articles/a1", { user: "alice:pw" })).status).to.equal(403);
  });

  it("lists, counts and pages through exactly the records shared with a reader", async () => {
    const bob = userId("bob:pw");
    for (let i = 0; i < 7; i++) {
      await server.request("PUT", `/v1/articles/r${i}`, {
        user: "alice:pw",
        body: { data: { rank: i }, permissions: i % 2 === 0 ? { read: [bob] } : {} },
      });
    }
    const head = await server.request("HEAD", "/v1/articles?min_rank=1", { user: "bob:pw" });
    expect(head.headers.get("total-objects")).to.equal("3");
    const pages = await walkNextPages(server, "/v1/articles?_sort=rank&_limit=2", "bob:pw", 3);
    expect(recordsOf<{ rank: number }>(pages).map((r) => r.rank)).to.deep.equal([0, 2, 4, 6]);
  });

  it("rolls a batch back when a sub-request fails with a 5xx", async () => {
    await server.request("PUT", "/v1/articles/boom", { user: "alice:pw", body: { data: {} } });
    // A GET reads record and ACL in one statement here (storage and permissions share the database).
    const reader = await server.running.container.getAsync(TOKENS.SharedRecords);
    const original = reader.read.bind(reader);
    reader.read = (scope, id, acls, principalsOf) =>
      id === "boom" ? Promise.reject(new BackendError("storage")) : original(scope, id, acls, principalsOf);
    try {
      const batch = await server.request("POST", "/v1/batch", {
        user: "alice:pw",
        body: {
          requests: [
            { method: "PUT", path: "/articles/kept", body: { data: {} } },
            { method: "GET", path: "/articles/boom" },
          ],
        },
      });
      expect(batch.status).to.equal(503);
    } finally {
      reader.read = original;
    }
    expect((await server.request("GET", "/v1/articles/kept", { user: "alice:pw" })).status).to.equal(403);
  });

  it("answers 503 with Retry-After while the database is down, then recovers by itself", async () => {
    expect((await server.request("PUT", "/v1/articles/before", { user: "alice:pw", body: { data: {} } })).status).to.equal(201);
    await proxy.cut();
    const down = await server.request("GET", "/v1/articles/before", { user: "alice:pw" });
    expect(down.status).to.equal(503);
    expect(down.headers.get("retry-after")).to.equal("7");
    expect(down.body).to.deep.include({ errno: 201 });
    const heartbeat = await server.request("GET", "/v1/__heartbeat__");
    expect(heartbeat.status).to.equal(503);
    await proxy.restore();
    let status = 0;
    for (let attempt = 0; attempt < 20 && status !== 200; attempt++) {
      status = (await server.request("GET", "/v1/articles/before", { user: "alice:pw" })).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).to.equal(200);
  });
});
