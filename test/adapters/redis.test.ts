/** The Redis adapters: both shared contracts, then what only Redis can show (outages, backlog, key hygiene). */
import { RedisCache } from "../../src/adapters/redis/redis-cache.js";
import { RedisPermissionStore } from "../../src/adapters/redis/redis-permission-store.js";
import { cacheContract } from "../contract/cache.contract.js";
import { permissionStoreContract } from "../contract/permission-store.contract.js";
import { REDIS_URL, requireService } from "../support/services.js";

/** A prefix no other run (or developer) shares, so tests never touch foreign keys. */
const RUN = `tessera-test:${process.pid}-${Date.now().toString(36)}:`;

describe("Redis adapters", function () {
  requireService("redis");

  permissionStoreContract("redis", async () => {
    const port = new RedisPermissionStore({ url: REDIS_URL, prefix: `${RUN}perm:`, poolSize: 4 });
    return { port, reset: () => port.flush(), close: () => port.close() };
  });

  cacheContract("redis", async (options) => {
    const port = new RedisCache({ url: REDIS_URL, prefix: `${RUN}cache:${options?.prefix ?? ""}`, poolSize: 4 });
    return { port, reset: () => port.flush(), close: () => port.close() };
  });
});
