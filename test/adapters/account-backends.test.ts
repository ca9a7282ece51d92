/** The accounts contracts on every backend: memory, PostgreSQL, PostgreSQL with the cache in Redis. */
import { MemoryAccountStore } from "../../src/adapters/memory/account-memory-store.js";
import { MemoryCache } from "../../src/adapters/memory/memory-cache.js";
import { PostgresAccountStore } from "../../src/adapters/postgres/account-postgres-store.js";
import { PostgresCache } from "../../src/adapters/postgres/postgres-cache.js";
import { PostgresDatabase } from "../../src/adapters/postgres/postgres-database.js";
import { RedisCache } from "../../src/adapters/redis/redis-cache.js";
import type { AccountStore } from "../../src/application/accounts/account-store.js";
import type { Cache } from "../../src/application/ports/cache.js";
import { accountStoreContract } from "../contract/account-store.contract.js";
import { accountsContract, type AccountBackends } from "../contract/accounts.contract.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { REDIS_URL, requireService } from "../support/services.js";

const DATABASE = "tessera_accounts";
const RUN = `tessera-test:${process.pid}-${Date.now().toString(36)}:accounts:`;
const clock = { now: () => Date.now() };

/** Deleting would retire the ids the next test signs up again: flushed instead. */
const emptied = (store: AccountStore): Promise<void> => store.flush();

describe("accounts on memory", () => {
  accountStoreContract("memory", () => {
    const port = new MemoryAccountStore();
    return Promise.resolve({ port, reset: () => emptied(port), close: () => Promise.resolve() });
  });
  accountsContract("memory", () => {
    // One process: both views share the very objects.
    const shared: AccountBackends = { store: new MemoryAccountStore(), cache: new MemoryCache("accounts:", clock) };
    return Promise.resolve({
      first: shared,
      second: shared,
      reset: async () => {
        await emptied(shared.store);
        await shared.cache.flush();
      },
      close: () => Promise.resolve(),
    });
  });
});

describe("accounts on PostgreSQL", function () {
  requireService("postgresql");
  const databases: PostgresDatabase[] = [];
  const database = () => {
    const opened = new PostgresDatabase({ url: databaseUrl(DATABASE), poolSize: 3, maxOverflow: 2 });
    databases.push(opened);
    return opened;
  };
  before(async function () {
    this.timeout(120_000);
    await ensureDatabase(DATABASE);
    await database().migrate();
  });
  after(async () => {
    await Promise.all(databases.map((d) => d.close()));
  });

  accountStoreContract("postgresql", () => {
    const port = new PostgresAccountStore(database());
    return Promise.resolve({ port, reset: () => emptied(port), close: () => Promise.resolve() });
  });

  const twoProcesses = (cacheOf: (process: number) => Cache) => {
    const first = { store: new PostgresAccountStore(database()), cache: cacheOf(1) };
    const second = { store: new PostgresAccountStore(database()), cache: cacheOf(2) };
    return Promise.resolve({
      first,
      second,
      reset: async () => {
        await emptied(first.store);
        await first.cache.flush();
      },
      close: async () => {
        await first.cache.close();
        await second.cache.close();
      },
    });
  };
  accountsContract("PostgreSQL storage and cache", () => twoProcesses(() => new PostgresCache(database(), { prefix: `${RUN}pg:` })));

  describe("with the cache in Redis", function () {
    requireService("redis");
    accountsContract("PostgreSQL storage, Redis cache", () =>
      twoProcesses(() => new RedisCache({ url: REDIS_URL, prefix: `${RUN}redis:`, poolSize: 2 })),
    );
  });
});
