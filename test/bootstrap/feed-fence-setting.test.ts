/**
 * `feed_lease_seconds` (docs/feed-fence.md) and the fence the composition picks: a lease on the
 * storage database wherever storage is PostgreSQL (permissions in PostgreSQL or Redis alike),
 * the in-process fence on memory storage or with `feed_lease_seconds = 0`.
 */
import { expect } from "chai";
import { pino } from "pino";
import { LeasedPrincipalFence } from "../../src/application/leased-principal-fence.js";
import { SingleProcessFence } from "../../src/application/single-process-fence.js";
import { buildContainer } from "../../src/bootstrap/container.js";
import { loadSettings, SettingsError } from "../../src/bootstrap/settings.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { settingsFrom } from "../support/http.js";
import { databaseUrl } from "../support/postgres.js";
import { REDIS_URL } from "../support/services.js";

function load(env: Record<string, string> = {}) {
  return loadSettings({ argv: [], env: { TESSERA_USERID_HMAC_SECRET: "secret", ...env }, defaultFile: false });
}

function problemsOf(env: Record<string, string>): string {
  try {
    load(env);
  } catch (error) {
    if (error instanceof SettingsError) return error.problems.join("\n");
    throw error;
  }
  return "";
}

describe("feed_lease_seconds and the principal fence", () => {
  it("defaults to 10 seconds, takes 0 (no fence) and fractions, refuses negative or non-numeric values", () => {
    expect(load().feedLeaseSeconds).to.equal(10);
    expect(load({ TESSERA_FEED_LEASE_SECONDS: "0" }).feedLeaseSeconds).to.equal(0);
    expect(load({ TESSERA_FEED_LEASE_SECONDS: "2.5" }).feedLeaseSeconds).to.equal(2.5);
    expect(problemsOf({ TESSERA_FEED_LEASE_SECONDS: "-1" })).to.contain("feed_lease_seconds");
    expect(problemsOf({ TESSERA_FEED_LEASE_SECONDS: "soon" })).to.contain("feed_lease_seconds");
  });

  const url = databaseUrl("tessera_fence_composition_unused");
  const compositions: [string, Record<string, string>, unknown][] = [
    ["memory storage", {}, SingleProcessFence],
    [
      "PostgreSQL storage and permissions",
      { storage_backend: "postgresql", storage_url: url, permission_backend: "postgresql", permission_url: url },
      LeasedPrincipalFence,
    ],
    [
      "PostgreSQL storage, Redis permissions",
      { storage_backend: "postgresql", storage_url: url, permission_backend: "redis", permission_url: REDIS_URL },
      LeasedPrincipalFence,
    ],
    [
      "PostgreSQL storage with feed_lease_seconds = 0",
      { storage_backend: "postgresql", storage_url: url, permission_backend: "postgresql", permission_url: url, feed_lease_seconds: "0" },
      SingleProcessFence,
    ],
  ];
  for (const [name, settings, expected] of compositions) {
    it(`binds ${(expected as { name: string }).name} for ${name}`, async () => {
      // Resolving the fence opens no connection: the ledger connects on first use.
      const container = buildContainer(settingsFrom(settings), { logger: pino({ level: "silent" }) });
      try {
        expect(await container.getAsync(TOKENS.PrincipalFence)).to.be.instanceOf(expected);
      } finally {
        await container.unbindAllAsync();
      }
    });
  }
});
