/** `redis` in settings: the Redis permission backend and cache, each under its own key prefix. */
import type { RedisConnectionOptions } from "../adapters/redis/redis-connection.js";
import { RedisCache } from "../adapters/redis/redis-cache.js";
import { RedisPermissionStore } from "../adapters/redis/redis-permission-store.js";
import type { BackendRequest, OpenedBackends } from "./backends.js";
import type { BackendSettings } from "./settings.js";

function connectionOptions(settings: BackendSettings<string>): RedisConnectionOptions {
  return {
    url: settings.url ?? "",
    prefix: settings.prefix,
    poolSize: settings.poolSize,
    maxBacklog: settings.maxBacklog,
    poolTimeoutMs: settings.poolTimeoutSeconds * 1000,
  };
}

export function openRedisBackends(request: BackendRequest): Promise<OpenedBackends> {
  const permissions = request.permission && new RedisPermissionStore(connectionOptions(request.permission));
  const cache = request.cache && new RedisCache(connectionOptions(request.cache));
  return Promise.resolve({
    permissions,
    cache,
    async close() {
      await Promise.all([permissions?.close(), cache?.close()]);
    },
  });
}
