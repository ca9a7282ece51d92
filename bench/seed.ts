/**
 * Data the workloads read: users, the bench database, and the listing collections of W3/W4
 * (N records of one owner, exactly 100 of them — every N/100-th — readable by a second user).
 *
 * On PostgreSQL the rows are written in bulk (`INSERT … SELECT generate_series`) in the shape the
 * adapters write (sql/schema.sql): each record with its owner in `write`, the scope's counter row
 * at the highest timestamp, timestamps strictly increasing and in the past. Redis ACEs go through
 * the permission adapter; the memory backends are seeded through the API (batches of 25 creates).
 * A collection already holding exactly that data is kept, so 1M records are seeded once.
 */
import pg from "pg";
import { BasicAuthPolicy } from "../src/adapters/auth/basic-auth-policy.js";
import { RedisPermissionStore } from "../src/adapters/redis/redis-permission-store.js";

export const BENCH_SECRET = "tessera-bench-secret";

/** The settings every bench server runs with: loopback, quiet logs, the bench HMAC secret, Basic Auth, a memory cache. */
export function baseServerSettings(port: number): Record<string, string> {
  return {
    listen_host: "127.0.0.1",
    listen_port: String(port),
    log_level: "warn",
    userid_hmac_secret: BENCH_SECRET,
    "multiauth.policies": "basicauth",
    cache_backend: "memory",
  };
}

/** Records and permissions: both in memory, both in the PostgreSQL database `sql`, or records there and permissions in Redis. */
export function backendSettings(backend: "memory" | "postgresql" | "redis", sql: string, redis?: string): Record<string, string> {
  switch (backend) {
    case "memory":
      return { storage_backend: "memory", permission_backend: "memory" };
    case "postgresql":
      return { storage_backend: "postgresql", storage_url: sql, permission_backend: "postgresql", permission_url: sql };
    case "redis":
      return { storage_backend: "postgresql", storage_url: sql, permission_backend: "redis", permission_url: redis ?? "" };
  }
}
export const OWNER = "owner:bench-password";
export const READER = "alice:bench-password";
export const SHARED_COUNT = 100;

export function principalOf(credentials: string): string {
  return `basicauth:${new BasicAuthPolicy(BENCH_SECRET).userId(credentials)}`;
}

export function authorization(credentials: string): string {
  return `Basic ${Buffer.from(credentials).toString("base64")}`;
}

/** The ~200-byte record of W2 (and of every seeded record). */
export function recordData(n: number): Record<string, unknown> {
  const number = String(n).padStart(7, "0");
  return {
    title: `Record ${number}`,
    done: false,
    priority: 3,
    tags: ["alpha", "beta", "gamma"],
    note: "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore.",
  };
}

export function recordId(n: number): string {
  return `r${String(n).padStart(7, "0")}`;
}

/** `list10000`: the collection of size N. */
export function listCollection(n: number): string {
  return `list${n}`;
}

/** The records of size N readable by the reader: every N/100-th. */
export function sharedNumbers(n: number): number[] {
  return Array.from({ length: SHARED_COUNT }, (_, i) => (i + 1) * Math.floor(n / SHARED_COUNT));
}

export function databaseUrl(server: string, database: string): string {
  const url = new URL(server);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function ensureDatabase(server: string, database: string): Promise<void> {
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } finally {
    await admin.end();
  }
}

/** Drops and creates the database: a run that must not inherit the dead rows of earlier runs (autovacuum may be off). */
export async function recreateDatabase(server: string, database: string): Promise<void> {
  const name = `"${database.replace(/"/g, '""')}"`;
  await withClient(server, async (admin) => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  });
}

export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Object ids of a collection as a `[lower, upper)` range on the C-collated primary key. */
function objectRange(collection: string): [string, string] {
  return [`/${collection}/`, `/${collection}0`];
}

/** Empties a collection written by the workloads (W2/W6 creates) so tables do not grow run after run. */
export async function clearCollectionSql(url: string, collection: string, withAces: boolean): Promise<void> {
  await withClient(url, async (client) => {
    await client.query("DELETE FROM records WHERE collection = $1 AND parent_id = ''", [collection]);
    await client.query("DELETE FROM timestamps WHERE collection = $1 AND parent_id = ''", [collection]);
    if (withAces)
      await client.query("DELETE FROM access_control_entries WHERE object_id >= $1 AND object_id < $2", objectRange(collection));
  });
}

/**
 * Records (and, with `aces`, their ACEs) of the size-N listing collection; returns seconds spent
 * (0 when kept). `collection`: the storage scope's name, also its records' ACL prefix (a tree's
 * records list, `buckets/b/collections/c/records`, holds the same data under its own name).
 */
export async function seedListSql(url: string, n: number, aces: boolean, collection = listCollection(n)): Promise<number> {
  const owner = principalOf(OWNER);
  const reader = principalOf(READER);
  const started = Date.now();
  const seeded = await withClient(url, async (client) => {
    const [lower, upper] = objectRange(collection);
    const records = await client.query<{ n: string }>(
      "SELECT count(*) AS n FROM records WHERE collection = $1 AND parent_id = '' AND NOT deleted",
      [collection],
    );
    let complete = Number(records.rows[0]?.n) === n;
    if (complete && aces) {
      const counts = await client.query<{ writes: string; reads: string }>(
        `SELECT count(*) FILTER (WHERE permission = 'write' AND principal = $3) AS writes,
                count(*) FILTER (WHERE permission = 'read' AND principal = $4) AS reads
         FROM access_control_entries WHERE object_id >= $1 AND object_id < $2`,
        [lower, upper, owner, reader],
      );
      complete = Number(counts.rows[0]?.writes) === n && Number(counts.rows[0]?.reads) === SHARED_COUNT;
    }
    if (complete) return false;
    await client.query("DELETE FROM records WHERE collection = $1 AND parent_id = ''", [collection]);
    await client.query("DELETE FROM timestamps WHERE collection = $1 AND parent_id = ''", [collection]);
    // In the past and strictly increasing, like timestamps the counter would have handed out.
    const base = Date.now() - n - 60_000;
    await client.query(
      `INSERT INTO records (collection, parent_id, id, last_modified, data, deleted)
       SELECT $1, '', 'r' || lpad(g::text, 7, '0'), $3::bigint + g,
              jsonb_build_object('title', 'Record ' || lpad(g::text, 7, '0'), 'done', false, 'priority', 3,
                                 'tags', jsonb_build_array('alpha', 'beta', 'gamma'), 'note', $4::text),
              FALSE
       FROM generate_series(1, $2::int) g`,
      [collection, n, base, recordData(0).note],
    );
    await client.query("INSERT INTO timestamps (collection, parent_id, last_modified) VALUES ($1, '', $2::bigint + $3::bigint)", [
      collection,
      base,
      n,
    ]);
    if (aces) {
      await client.query("DELETE FROM access_control_entries WHERE object_id >= $1 AND object_id < $2", [lower, upper]);
      await client.query(
        `INSERT INTO access_control_entries (object_id, permission, principal)
         SELECT '/' || $1 || '/r' || lpad(g::text, 7, '0'), 'write', $3 FROM generate_series(1, $2::int) g`,
        [collection, n, owner],
      );
      await client.query(
        `INSERT INTO access_control_entries (object_id, permission, principal)
         SELECT '/' || $1 || '/' || id, 'read', $3 FROM unnest($2::text[]) AS id`,
        [collection, sharedNumbers(n).map(recordId), reader],
      );
    }
    // What autovacuum does after a bulk insert: statistics, and a visibility map for index-only scans.
    await client.query("VACUUM ANALYZE records");
    if (aces) await client.query("VACUUM ANALYZE access_control_entries");
    return true;
  });
  return seeded ? (Date.now() - started) / 1000 : 0;
}

/** The ACEs of the size-N collection in Redis, through the permission adapter; returns seconds spent (0 when kept). */
export async function seedListRedis(redisUrl: string, n: number): Promise<number> {
  const store = new RedisPermissionStore({ url: redisUrl, prefix: "tessera:permission:", poolSize: 16, maxBacklog: -1 });
  const collection = listCollection(n);
  const owner = principalOf(OWNER);
  const reader = principalOf(READER);
  const started = Date.now();
  try {
    const shared = await store.principalsAccessibleObjects([reader], "read", `/${collection}/*`);
    const last = await store.objectPermissionPrincipals(`/${collection}/${recordId(n)}`, "write");
    const first = await store.objectPermissionPrincipals(`/${collection}/${recordId(1)}`, "write");
    if (shared.size === SHARED_COUNT && last.has(owner) && first.has(owner)) return 0;
    await store.deleteObjectPermissions(`/${collection}/*`);
    let next = 1;
    const worker = async () => {
      while (next <= n) {
        const i = next++;
        await store.addPrincipalToAce(`/${collection}/${recordId(i)}`, "write", owner);
      }
    };
    await Promise.all(Array.from({ length: 64 }, worker));
    for (const i of sharedNumbers(n)) await store.addPrincipalToAce(`/${collection}/${recordId(i)}`, "read", reader);
    return (Date.now() - started) / 1000;
  } finally {
    await store.close();
  }
}

/** A tiny JSON client for set-up requests. */
export async function api(
  base: string,
  method: string,
  path: string,
  credentials: string,
  body?: unknown,
): Promise<{ status: number; etag: string | null; json: unknown }> {
  const response = await fetch(`${base}/v1${path}`, {
    method,
    headers: { Authorization: authorization(credentials), ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, etag: response.headers.get("etag"), json: text ? (JSON.parse(text) as unknown) : undefined };
}

/** The size-N collection through the API (memory backends): batches of 25 creates, 4 in flight; `collection`: its path under /v1. */
export async function seedListApi(base: string, n: number, collection = listCollection(n)): Promise<number> {
  const reader = principalOf(READER);
  const shared = new Set(sharedNumbers(n));
  const started = Date.now();
  let next = 1;
  const worker = async () => {
    while (next <= n) {
      const from = next;
      next = Math.min(n + 1, next + 25);
      const requests = [];
      for (let i = from; i < next; i++) {
        requests.push({
          method: "PUT",
          path: `/${collection}/${recordId(i)}`,
          body: { data: recordData(i), ...(shared.has(i) ? { permissions: { read: [reader] } } : {}) },
        });
      }
      const result = await api(base, "POST", "/batch", OWNER, { requests });
      const failed = (result.json as { responses?: { status: number }[] } | undefined)?.responses?.find((r) => r.status >= 300);
      if (result.status !== 200 || failed)
        throw new Error(`seeding ${collection}: batch answered ${result.status}: ${JSON.stringify(failed ?? result.json).slice(0, 500)}`);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return (Date.now() - started) / 1000;
}
