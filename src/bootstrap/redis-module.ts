/** `redis` in settings: the Redis permission backend and cache, each with its own connections and key prefix. */
import { ContainerModule } from "inversify";
import type { RedisConnectionOptions } from "../adapters/redis/redis-connection.js";
import { RedisCache } from "../adapters/redis/redis-cache.js";
import { RedisPermissionStore } from "../adapters/redis/redis-permission-store.js";
import type { BackendSettings } from "./settings.js";
import type { TechnologyModule } from "./technology-roles.js";
import { TOKENS } from "./tokens.js";

function connectionOptions(settings: BackendSettings<string>): RedisConnectionOptions {
  return {
    url: settings.url ?? "",
    prefix: settings.prefix,
    poolSize: settings.poolSize,
    maxBacklog: settings.maxBacklog,
    poolTimeoutMs: settings.poolTimeoutSeconds * 1000,
  };
}

export const redisModule: TechnologyModule = (roles) =>
  new ContainerModule(({ bind }) => {
    const { permission, cache } = roles;
    if (permission) {
      bind(TOKENS.PermissionStore)
        .toResolvedValue(() => new RedisPermissionStore(connectionOptions(permission), roles.groupMaxDepth))
        .onDeactivation((store) => store.close());
    }
    if (cache) {
      bind(TOKENS.Cache)
        .toResolvedValue(() => new RedisCache(connectionOptions(cache)))
        .onDeactivation((store) => store.close());
    }
  });
