/**
 * The sharing contract (test/contract/sharing.contract.ts) on every backend combination: memory,
 * PostgreSQL storage and permissions in one database (listings join the ACE table, single writes
 * join group commits), and PostgreSQL storage with Redis permissions (ids resolved through Redis,
 * every write with an ACL in a transaction of its own).
 */
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { sharingContract, SHARING_SETTINGS } from "../contract/sharing.contract.js";
import { startTestServer, type TestServer } from "../support/http.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { REDIS_URL, requireService } from "../support/services.js";

interface Combination {
  readonly name: string;
  readonly services: readonly ("postgresql" | "redis")[];
  settings(): Promise<Record<string, string>>;
}

const DATABASE = "tessera_sharing_contract_test";
const REDIS_DATABASE = "tessera_sharing_contract_redis_test";

const COMBINATIONS: readonly Combination[] = [
  { name: "memory", services: [], settings: () => Promise.resolve({}) },
  {
    name: "PostgreSQL storage and permissions",
    services: ["postgresql"],
    async settings() {
      await ensureDatabase(DATABASE);
      const url = databaseUrl(DATABASE);
      return { storage_backend: "postgresql", storage_url: url, permission_backend: "postgresql", permission_url: url };
    },
  },
  {
    name: "PostgreSQL storage, Redis permissions",
    services: ["postgresql", "redis"],
    async settings() {
      await ensureDatabase(REDIS_DATABASE);
      return {
        storage_backend: "postgresql",
        storage_url: databaseUrl(REDIS_DATABASE),
        permission_backend: "redis",
        permission_url: REDIS_URL,
        permission_prefix: `tessera-sharing-contract-${process.pid}:`,
      };
    },
  },
];

for (const combination of COMBINATIONS) {
  describe(`sharing contract [${combination.name}]`, function () {
    for (const service of combination.services) requireService(service);
    this.timeout(20_000);
    let server: TestServer | undefined;

    before(async function () {
      this.timeout(120_000);
      server = await startTestServer({ ...SHARING_SETTINGS, ...(await combination.settings()) });
      await (await server.running.container.getAsync(TOKENS.Migrator)).migrate();
    });
    after(async () => {
      await server?.stop();
      server = undefined;
    });

    sharingContract(() => {
      if (!server) throw new Error("the server is not started");
      return server;
    });
  });
}
