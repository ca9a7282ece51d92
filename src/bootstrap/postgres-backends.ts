/** `postgresql` in settings: the PostgreSQL adapters, one pool per distinct URL. */
import type { PostgresDatabaseOptions } from "../adapters/postgres/postgres-database.js";
import { openPostgres } from "../adapters/postgres/postgres-backends.js";
import type { BackendRequest, OpenedBackends } from "./backends.js";
import type { BackendSettings } from "./settings.js";

function databaseOptions(settings: BackendSettings<string>): PostgresDatabaseOptions {
  return {
    url: settings.url ?? "",
    poolSize: settings.poolSize,
    maxOverflow: settings.maxOverflow,
    maxBacklog: settings.maxBacklog,
    poolRecycleSeconds: settings.poolRecycleSeconds,
    poolTimeoutSeconds: settings.poolTimeoutSeconds,
    passwordFile: settings.passwordFile,
  };
}

export function openPostgresBackends(request: BackendRequest): Promise<OpenedBackends> {
  const opened = openPostgres({
    storage: request.storage && databaseOptions(request.storage),
    permission: request.permission && databaseOptions(request.permission),
    cache: request.cache && { ...databaseOptions(request.cache), prefix: request.cache.prefix },
  });
  const sameDatabase = request.storage !== undefined && request.permission !== undefined && request.storage.url === request.permission.url;
  return Promise.resolve({
    records: opened.recordStore,
    permissions: opened.permissionStore,
    cache: opened.cache,
    unitOfWork: opened.unitOfWork,
    broadcast: opened.broadcast,
    recordsJoinPermissions: sameDatabase,
    // Each pool is named after the backends using it ("storage,permission"): never its URL.
    pools: opened.databases.map((database) => ({
      name: (["storage", "permission", "cache"] as const).filter((kind) => request[kind]?.url === database.url).join(","),
      status: () => database.poolStatus(),
      backlogRefusals: () => database.backlogRefusals,
    })),
    migrate: () => opened.migrate(),
    close: () => opened.close(),
  });
}
