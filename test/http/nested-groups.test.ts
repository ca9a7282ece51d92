/**
 * Nested groups through the HTTP API on every permission backend: a user reads and lists what is
 * shared with a group its groups belong to, up to `group_max_depth` levels and no further, and
 * loses it as soon as a link of the chain is removed (reads, listings, the joined PostgreSQL read).
 */
import { expect } from "chai";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { startTestServer, userId, type TestServer } from "../support/http.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { REDIS_URL, requireService } from "../support/services.js";
import { flushStorage } from "../support/storage-reset.js";

const DATABASE = "tessera_nested_groups_http_test";

const BACKENDS: { name: string; services: ("postgresql" | "redis")[]; settings: () => Record<string, string> }[] = [
  { name: "memory", services: [], settings: () => ({ permission_backend: "memory" }) },
  {
    name: "PostgreSQL",
    services: ["postgresql"],
    settings: () => {
      const url = databaseUrl(DATABASE);
      return { storage_backend: "postgresql", storage_url: url, permission_backend: "postgresql", permission_url: url };
    },
  },
  {
    name: "PostgreSQL + Redis",
    services: ["postgresql", "redis"],
    settings: () => ({
      storage_backend: "postgresql",
      storage_url: databaseUrl(DATABASE),
      permission_backend: "redis",
      permission_url: REDIS_URL,
      permission_prefix: `tessera-nested-http-${process.pid}:`,
    }),
  },
];

for (const backend of BACKENDS) {
  describe(`HTTP with nested groups [${backend.name}]`, function () {
    for (const service of backend.services) requireService(service);
    this.timeout(20_000);
    let server: TestServer;
    const bob = "bob:pw";

    before(async () => {
      if (backend.services.includes("postgresql")) await ensureDatabase(DATABASE);
      server = await startTestServer({ ...backend.settings(), group_max_depth: "3" });
      if (server.running.container.isBound(TOKENS.Migrator)) await (await server.running.container.getAsync(TOKENS.Migrator)).migrate();
    });
    beforeEach(async () => {
      await flushStorage(server.running.container);
      await (await server.running.container.getAsync(TOKENS.PermissionStore)).flush();
    });
    after(async () => {
      await (await server?.running.container.getAsync(TOKENS.PermissionStore))?.flush();
      await server?.stop();
    });

    async function share(id: string, readers: string[]): Promise<void> {
      const put = await server.request("PUT", `/v1/articles/${id}`, {
        user: "alice:pw",
        body: { data: { id }, permissions: { read: readers } },
      });
      expect(put.status).to.equal(201);
    }
    const listed = async (): Promise<string[]> =>
      (await server.request("GET", "/v1/articles", { user: bob })).body.data.map((r: { id: string }) => r.id).sort();

    it("grants through the chain up to the bound, and takes it back when a link is removed", async () => {
      const permissions = await server.running.container.getAsync(TOKENS.PermissionStore);
      // bob → editors (level 1) → staff (2) → everyone (3) → top (4, beyond group_max_depth = 3).
      const chain = [userId(bob), "group:editors", "group:staff", "group:everyone", "group:top"];
      for (let i = 0; i + 1 < chain.length; i++) await permissions.addUserPrincipal(chain[i] ?? "", chain[i + 1] ?? "");
      await share("for-staff", ["group:staff"]);
      await share("for-everyone", ["group:everyone"]);
      await share("for-top", ["group:top"]);
      await share("private", []);

      const principals = (await server.request("GET", "/v1/", { user: bob })).body.user.principals;
      expect(principals).to.include.members(["group:editors", "group:staff", "group:everyone"]).and.not.include("group:top");
      expect((await server.request("GET", "/v1/articles/for-staff", { user: bob })).status).to.equal(200);
      expect((await server.request("GET", "/v1/articles/for-everyone", { user: bob })).status).to.equal(200);
      expect((await server.request("GET", "/v1/articles/for-top", { user: bob })).status).to.equal(403);
      expect(await listed()).to.deep.equal(["for-everyone", "for-staff"]);

      await permissions.removeUserPrincipal("group:editors", "group:staff");
      expect((await server.request("GET", "/v1/articles/for-staff", { user: bob })).status).to.equal(403);
      expect((await server.request("GET", "/v1/articles/for-everyone", { user: bob })).status).to.equal(403);
      expect(await listed()).to.deep.equal([]);
    });

    it("survives a cycle of groups and invented group names in ACLs", async () => {
      const permissions = await server.running.container.getAsync(TOKENS.PermissionStore);
      await permissions.addUserPrincipal(userId(bob), "group:a");
      await permissions.addUserPrincipal("group:a", "group:b");
      await permissions.addUserPrincipal("group:b", "group:a");
      await share("for-b", ["group:b"]);
      await share("for-invented", ["group:no-one-%_*", "group:é😀"]);
      expect((await server.request("GET", "/v1/articles/for-b", { user: bob })).status).to.equal(200);
      expect((await server.request("GET", "/v1/articles/for-invented", { user: bob })).status).to.equal(403);
      expect(await listed()).to.deep.equal(["for-b"]);
    });
  });
}
