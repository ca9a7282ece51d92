/** What only the composition root can check: resources and policies added by code. */
import { expect } from "chai";
import { pino } from "pino";
import { SystemClock } from "../../src/adapters/system/system-clock.js";
import { startServer } from "../../src/bootstrap/server.js";
import { buildContainer } from "../../src/bootstrap/container.js";
import { SettingsError } from "../../src/bootstrap/settings.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { REDIS_URL, requireService } from "../support/services.js";
import { settingsFrom } from "../support/http.js";

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(SettingsError);
    return [...(error as SettingsError).problems];
  }
  throw new Error("expected a SettingsError");
}

describe("composition root", () => {
  it("refuses at startup a shareable resource defined in code without a permission backend", () => {
    const settings = settingsFrom({ resources: "notes:user", permission_backend: undefined, articles_create_principals: undefined });
    const problems = problemsOf(() => buildContainer(settings, { extensions: [{ resources: [{ name: "posts", kind: "shareable" }] }] }));
    expect(problems.join("\n")).to.contain("permission_backend").and.contain("posts");
  });

  it("refuses a policy name that no code registers, and an invalid resource name", () => {
    const settings = settingsFrom({ "multiauth.policies": "basicauth sso" });
    const problems = problemsOf(() => buildContainer(settings, { extensions: [{ resources: [{ name: "bad-name", kind: "user" }] }] }));
    expect(problems.join("\n")).to.contain('"sso"').and.contain('"bad-name"');
  });

  it("refuses an unknown system principal in a collection's principals setting (a typo grants nothing)", () => {
    const settings = settingsFrom({ resources: "articles:shareable", articles_read_principals: "system.everyone group:staff" });
    const problems = problemsOf(() => buildContainer(settings));
    expect(problems.join("\n")).to.contain("articles_read_principals").and.contain('"system.everyone"');
    expect(() =>
      buildContainer(settingsFrom({ resources: "articles:shareable", articles_read_principals: "system.Everyone" })),
    ).to.not.throw();
  });

  it("accepts a policy registered by code", () => {
    const settings = settingsFrom({ "multiauth.policies": "basicauth sso" });
    expect(() =>
      buildContainer(settings, {
        extensions: [{ authenticationPolicies: { sso: () => ({ name: "sso", authenticate: () => undefined }) } }],
      }),
    ).to.not.throw();
  });
});

describe("startup warnings", () => {
  it("calls a setting unknown unless an extension declares that it reads it", async () => {
    const lines: string[] = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => lines.push(line) });
    const running = await startServer(settingsFrom({ colour: "blue", shop_currency: "EUR" }), {
      logger,
      extensions: [{ settings: ["shop_currency"] }],
    });
    await running.stop();
    const warnings = lines.join("");
    expect(warnings).to.contain('unknown setting \\"colour\\"').and.not.contain("shop_currency");
  });
});

/** The adapter suites' database (suites run one after the other); only migrated and pinged here. */
const DATABASE = "tessera_test";

describe("technology modules", () => {
  const quiet = { logger: pino({ level: "silent" }), clock: new SystemClock() };
  const postgres = (name: string) => databaseUrl(name);

  it("binds the ports each configured technology serves, and a permission store only when one is configured", async () => {
    const withPermissions = buildContainer(settingsFrom(), quiet);
    for (const port of [TOKENS.RecordStore, TOKENS.PermissionStore, TOKENS.Cache, TOKENS.UnitOfWork])
      expect(withPermissions.isBound(port)).to.equal(true);
    const without = buildContainer(
      settingsFrom({ resources: "notes:user", permission_backend: undefined, articles_create_principals: undefined }),
      quiet,
    );
    expect(without.isBound(TOKENS.PermissionStore)).to.equal(false);
    // Services still resolve: a null permission store stands in for the missing one.
    expect(await without.getAsync(TOKENS.RecordService)).to.be.an("object");
    await Promise.all([withPermissions.unbindAllAsync(), without.unbindAllAsync()]);
  });

  it("chooses the joined SharedRecords only where records and ACEs share a PostgreSQL database", async () => {
    const capable = async (overrides: Record<string, string | undefined>) => {
      const container = buildContainer(settingsFrom(overrides), quiet);
      const joined = !(await container.getAsync(TOKENS.SharedRecords)).aclMayTrailRecord;
      await container.unbindAllAsync();
      return joined;
    };
    const storage = { storage_backend: "postgresql", storage_url: postgres(DATABASE) };
    expect(await capable({})).to.equal(false);
    expect(await capable({ ...storage, permission_backend: "postgresql", permission_url: postgres(DATABASE) })).to.equal(true);
    expect(await capable({ ...storage, permission_backend: "postgresql", permission_url: postgres("tessera_acl_elsewhere") })).to.equal(
      false,
    );
    expect(await capable({ ...storage, permission_backend: "redis", permission_url: REDIS_URL })).to.equal(false);
    expect(await capable({ ...storage, permission_backend: "memory" })).to.equal(false);
  });

  describe("group_max_depth reaches every permission backend and every path reading principals", () => {
    /** user → group:1 → group:2 → group:3, stored through the container's permission store. */
    async function principalsAt(depth: string, overrides: Record<string, string | undefined>): Promise<string[][]> {
      const container = buildContainer(settingsFrom({ ...overrides, group_max_depth: depth }), quiet);
      try {
        const migrator = container.isBound(TOKENS.Migrator) ? await container.getAsync(TOKENS.Migrator) : undefined;
        await migrator?.migrate();
        const permissions = await container.getAsync(TOKENS.PermissionStore);
        await permissions.flush();
        for (const [member, group] of [
          ["account:depth", "group:1"],
          ["group:1", "group:2"],
          ["group:2", "group:3"],
        ])
          await permissions.addUserPrincipal(member ?? "", group ?? "");
        const seen = [[...(await permissions.userPrincipals("account:depth"))].sort()];
        if (container.isBound(TOKENS.PrincipalsWithCheck)) {
          const combined = await container.getAsync(TOKENS.PrincipalsWithCheck);
          seen.push([...(await combined.principalsAndCheck("account:depth", [], "/x", "read")).principals].sort());
        }
        const shared = await container.getAsync(TOKENS.SharedRecords);
        const acls = { objectIdPrefix: "/x/", permissions: ["read"], readPermissions: () => ["read"] };
        const read = await shared.read({ collection: "x", parentId: "" }, "none", acls, "account:depth");
        if (read.principals) seen.push([...read.principals].sort());
        await permissions.flush();
        return seen;
      } finally {
        await container.unbindAllAsync();
      }
    }
    const url = postgres(DATABASE);
    const backends: [string, Record<string, string>][] = [
      ["memory", { permission_backend: "memory" }],
      ["postgresql", { storage_backend: "postgresql", storage_url: url, permission_backend: "postgresql", permission_url: url }],
      ["redis", { permission_backend: "redis", permission_url: REDIS_URL, permission_prefix: `tessera:depth-test:${process.pid}:` }],
    ];
    for (const [name, overrides] of backends) {
      describe(`on ${name}`, () => {
        if (name !== "memory") requireService(name === "redis" ? "redis" : "postgresql");
        if (name === "postgresql") before(() => ensureDatabase(DATABASE));
        it("follows the configured levels and no more", async () => {
          for (const seen of await principalsAt("2", overrides)) expect(seen).to.deep.equal(["group:1", "group:2"]);
          for (const seen of await principalsAt("1", overrides)) expect(seen).to.deep.equal(["group:1"]);
        });
      });
    }
  });

  describe("on PostgreSQL", () => {
    requireService("postgresql");
    before(() => ensureDatabase(DATABASE));

    it("migrates through the container and closes the pools it opened when unbound", async () => {
      const url = postgres(DATABASE);
      const container = buildContainer(
        settingsFrom({
          storage_backend: "postgresql",
          storage_url: url,
          permission_backend: "postgresql",
          permission_url: url,
          cache_backend: "postgresql",
          cache_url: url,
        }),
        quiet,
      );
      await (await container.getAsync(TOKENS.Migrator)).migrate();
      const records = await container.getAsync(TOKENS.RecordStore);
      const cache = await container.getAsync(TOKENS.Cache);
      expect(await records.heartbeat()).to.equal(true);
      await container.unbindAllAsync();
      expect(await records.heartbeat()).to.equal(false);
      expect(await cache.heartbeat()).to.equal(false);
    });
  });
});
