/** Cache in a PostgreSQL table: JSON text with an expiry in database-clock milliseconds. */
import type { Cache } from "../../application/ports/cache.js";
import type { JsonValue } from "../../domain/json.js";
import { prefixRange } from "./like-pattern.js";
import type { PostgresDatabase } from "./postgres-database.js";
import { NOW_MS } from "./sql-clock.js";

export interface PostgresCacheOptions {
  /** Prepended to every key (flush removes only keys under it). Default "tessera:cache:". */
  readonly prefix?: string;
  /** Expired entries are swept (a bounded batch) once every this many `set` or `increment` calls. Default 200. */
  readonly sweepEvery?: number;
}

const GET = { name: "tessera_cache_get", text: `SELECT value FROM cache WHERE key = $1 AND expires > ${NOW_MS}` };
const SET = {
  name: "tessera_cache_set",
  text: `INSERT INTO cache (key, value, expires) VALUES ($1, $2, ${NOW_MS} + $3::bigint)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires = EXCLUDED.expires`,
};
// A live row holding a JSON integer (18 digits at most, so the cast cannot overflow) keeps counting
// and keeps its expiry; an expired one, or one holding any other JSON, starts over as a new row would.
const COUNTING = `cache.expires > ${NOW_MS} AND cache.value ~ '^-?[0-9]{1,18}$'`;
const INCREMENT = {
  name: "tessera_cache_increment",
  text: `INSERT INTO cache (key, value, expires) VALUES ($1, $2::bigint::text, ${NOW_MS} + $3::bigint)
         ON CONFLICT (key) DO UPDATE SET
           value = CASE WHEN ${COUNTING} THEN (cache.value::bigint + $2::bigint)::text ELSE EXCLUDED.value END,
           expires = CASE WHEN ${COUNTING} THEN cache.expires ELSE EXCLUDED.expires END
         RETURNING value`,
};
const EXPIRE = {
  name: "tessera_cache_expire",
  text: `UPDATE cache SET expires = ${NOW_MS} + $2::bigint WHERE key = $1 AND expires > ${NOW_MS}`,
};
const TTL = {
  name: "tessera_cache_ttl",
  text: `SELECT ((expires - ${NOW_MS}) / 1000.0)::float8 AS ttl FROM cache WHERE key = $1 AND expires > ${NOW_MS}`,
};
const DELETE = { name: "tessera_cache_delete", text: `DELETE FROM cache WHERE key = $1 RETURNING value, expires > ${NOW_MS} AS live` };
// Bounded, so that no single call pays for a large backlog of expired entries.
const SWEEP = {
  name: "tessera_cache_sweep",
  text: `DELETE FROM cache WHERE key IN (SELECT key FROM cache WHERE expires <= ${NOW_MS} LIMIT 500)`,
};

export class PostgresCache implements Cache {
  private readonly prefix: string;
  private readonly sweepEvery: number;
  private writesSinceSweep = 0;

  constructor(
    private readonly database: PostgresDatabase,
    options: PostgresCacheOptions = {},
  ) {
    this.prefix = options.prefix ?? "tessera:cache:";
    this.sweepEvery = options.sweepEvery ?? 200;
  }

  async initializeSchema(): Promise<void> {
    await this.database.migrate("cache");
  }

  async get(key: string): Promise<JsonValue | undefined> {
    const rows = await this.database.query<{ value: string }>("cache", GET, [this.prefix + key]);
    return rows[0] ? (JSON.parse(rows[0].value) as JsonValue) : undefined;
  }

  async set(key: string, value: JsonValue, ttlSeconds: number): Promise<void> {
    await this.database.query("cache", SET, [this.prefix + key, JSON.stringify(value), Math.round(ttlSeconds * 1000)]);
    await this.countWrite();
  }

  /** One statement: ON CONFLICT DO UPDATE locks the row, so concurrent increments queue, across processes. */
  async increment(key: string, by: number, ttlSeconds: number): Promise<number> {
    const rows = await this.database.query<{ value: string }>("cache", INCREMENT, [this.prefix + key, by, Math.round(ttlSeconds * 1000)]);
    await this.countWrite();
    return Number(rows[0]?.value);
  }

  async expire(key: string, ttlSeconds: number): Promise<void> {
    await this.database.query("cache", EXPIRE, [this.prefix + key, Math.round(ttlSeconds * 1000)]);
  }

  async ttl(key: string): Promise<number> {
    const rows = await this.database.query<{ ttl: number }>("cache", TTL, [this.prefix + key]);
    return rows[0] ? rows[0].ttl : -2;
  }

  async delete(key: string): Promise<JsonValue | undefined> {
    const rows = await this.database.query<{ value: string; live: boolean }>("cache", DELETE, [this.prefix + key]);
    return rows[0]?.live ? (JSON.parse(rows[0].value) as JsonValue) : undefined;
  }

  async flush(): Promise<void> {
    if (this.prefix === "") {
      await this.database.query("cache", "DELETE FROM cache");
      return;
    }
    // A key range rather than LIKE: the primary key serves it and no character needs escaping.
    const { lower, upper } = prefixRange(this.prefix);
    if (upper === undefined) await this.database.query("cache", "DELETE FROM cache WHERE key >= $1", [lower]);
    else await this.database.query("cache", "DELETE FROM cache WHERE key >= $1 AND key < $2", [lower, upper]);
  }

  /** Sweeps once every `sweepEvery` writes, so that no write path lets expired rows pile up. */
  private async countWrite(): Promise<void> {
    if (++this.writesSinceSweep >= this.sweepEvery) {
      this.writesSinceSweep = 0;
      await this.database.query("cache", SWEEP);
    }
  }

  heartbeat(): Promise<boolean> {
    return this.database.heartbeat("cache");
  }

  /** Nothing of its own to close: the shared database is closed by its owner (PostgresDatabases). */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
