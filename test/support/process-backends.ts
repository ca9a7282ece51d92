/**
 * The two backend sets that tests of several `serve` processes run on: PostgreSQL for records and
 * permissions, and PostgreSQL records with Redis permissions under a prefix of the test's own.
 */
import { REDIS_URL } from "./services.js";

export interface ProcessBackend {
  readonly name: string;
  readonly services: readonly ("postgresql" | "redis")[];
  /** Settings of one process, given the URL it reaches the database at. */
  settings(url: string): Record<string, string>;
}

/** Both sets; `redisPrefix` keeps this test's Redis keys apart (the process id is appended). */
export function processBackends(redisPrefix: string): readonly ProcessBackend[] {
  return [
    {
      name: "postgresql",
      services: ["postgresql"],
      settings: (url) => ({ storage_backend: "postgresql", storage_url: url, permission_backend: "postgresql", permission_url: url }),
    },
    {
      name: "postgresql + redis permissions",
      services: ["postgresql", "redis"],
      settings: (url) => ({
        storage_backend: "postgresql",
        storage_url: url,
        permission_backend: "redis",
        permission_url: REDIS_URL,
        permission_prefix: `${redisPrefix}-${process.pid}:`,
      }),
    },
  ];
}
