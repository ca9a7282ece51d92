/**
 * Seeding shared by the feed benchmarks: `count` records of one collection, each readable by one
 * principal and written by another, at timestamps in the past, written straight into PostgreSQL
 * (and their ACLs into Redis when the permissions live there). Never part of `npm test`.
 */
import { RedisPermissionStore } from "../src/adapters/redis/redis-permission-store.js";
import { withClient } from "./seed.js";

export interface ReadableRecords {
  readonly backend: "postgresql" | "redis";
  /** The PostgreSQL database of the records (and of the ACLs on `postgresql`). */
  readonly sql: string;
  readonly redis: { readonly url: string; readonly prefix: string };
  readonly collection: string;
  readonly count: number;
  /** Who reads each record (`read`), and who wrote it (`write`). */
  readonly reader: string;
  readonly writer: string;
}

/** Records `r1`…`r<count>` readable by `reader` only, the collection's timestamp above them. */
export async function seedReadableRecords(seed: ReadableRecords): Promise<void> {
  const { collection, count, reader, writer } = seed;
  const base = Date.now() - count - 60_000;
  await withClient(seed.sql, async (client) => {
    await client.query(
      `INSERT INTO records (collection, parent_id, id, last_modified, data, deleted)
       SELECT $1, '', 'r' || g, $3::bigint + g, jsonb_build_object('n', g), FALSE FROM generate_series(1, $2::int) g`,
      [collection, count, base],
    );
    await client.query("INSERT INTO timestamps (collection, parent_id, last_modified) VALUES ($1, '', $2::bigint + $3::bigint)", [
      collection,
      base,
      count,
    ]);
    if (seed.backend === "postgresql")
      await client.query(
        `INSERT INTO access_control_entries (object_id, permission, principal)
         SELECT '/' || $1 || '/r' || g, p.permission, p.principal FROM generate_series(1, $2::int) g,
           (VALUES ('read', $3), ('write', $4)) AS p(permission, principal)`,
        [collection, count, reader, writer],
      );
  });
  if (seed.backend !== "redis") return;
  const store = new RedisPermissionStore({ url: seed.redis.url, prefix: seed.redis.prefix, poolSize: 16, maxBacklog: -1 });
  try {
    let next = 1;
    const worker = async () => {
      while (next <= count) {
        const n = next++;
        await store.replaceObjectPermissions(`/${collection}/r${n}`, { read: [reader], write: [writer] });
      }
    };
    await Promise.all(Array.from({ length: 64 }, worker));
  } finally {
    await store.close();
  }
}

/** Deletes the permission data under `prefix` (a benchmark's own). */
export async function flushRedisPermissions(url: string, prefix: string): Promise<void> {
  const store = new RedisPermissionStore({ url, prefix, poolSize: 2 });
  try {
    await store.flush();
  } finally {
    await store.close();
  }
}

/** The p-th percentile of ascending values (0 when there are none). */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}
