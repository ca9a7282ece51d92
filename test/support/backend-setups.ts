/**
 * The permission-backend setups HTTP tests run on: memory, PostgreSQL storage and permissions in
 * one database, and Redis permissions. Each has its own database or key prefix, named by `tag`.
 */
import { databaseUrl, ensureDatabase } from "./postgres.js";
import { REDIS_URL } from "./services.js";

export interface BackendSetup {
  readonly name: string;
  /** The service the setup needs (its suites fail under CI, skip otherwise, when it is down). */
  readonly service?: "postgresql" | "redis";
  settings(): Promise<Record<string, string>>;
}

export function permissionBackendSetups(tag: string): BackendSetup[] {
  const database = `tessera_${tag}_test`;
  return [
    { name: "memory", settings: () => Promise.resolve({}) },
    {
      name: "PostgreSQL storage and permissions",
      service: "postgresql",
      async settings() {
        await ensureDatabase(database);
        const url = databaseUrl(database);
        return { storage_backend: "postgresql", storage_url: url, permission_backend: "postgresql", permission_url: url };
      },
    },
    {
      name: "Redis permissions",
      service: "redis",
      settings: () =>
        Promise.resolve({ permission_backend: "redis", permission_url: REDIS_URL, permission_prefix: `tessera-${tag}-${process.pid}:` }),
    },
  ];
}

/**
 * PostgreSQL storage with Redis permissions: a record and its ACL live in two backends that no
 * snapshot joins (the setup `permissionBackendSetups` lacks). Needs both services.
 */
export function postgresWithRedisSetup(tag: string): BackendSetup & { readonly alsoNeeds: "postgresql" } {
  const database = `tessera_${tag}_redis_test`;
  return {
    name: "PostgreSQL storage, Redis permissions",
    service: "redis",
    alsoNeeds: "postgresql",
    async settings() {
      await ensureDatabase(database);
      return {
        storage_backend: "postgresql",
        storage_url: databaseUrl(database),
        permission_backend: "redis",
        permission_url: REDIS_URL,
        permission_prefix: `tessera-${tag}-pg-${process.pid}:`,
      };
    },
  };
}
