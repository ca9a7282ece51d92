/** Cache on Redis (ioredis): one string key `<prefix><key>` per entry holding JSON, expiry in ms. */
import type { Cache } from "../../application/ports/cache.js";
import type { JsonValue } from "../../domain/json.js";
import { luaScript, RedisPool, runScript, type RedisConnectionOptions, unlinkByPrefix } from "./redis-connection.js";

export const DEFAULT_CACHE_PREFIX = "tessera:cache:";

const HEARTBEAT_KEY = "__heartbeat__";

/** Seconds (fractions allowed) to whole milliseconds, never rounding a positive ttl down to 0. */
function millis(ttlSeconds: number): number {
  return ttlSeconds > 0 ? Math.max(1, Math.round(ttlSeconds * 1000)) : 0;
}

/**
 * ARGV: key, by, ttl in ms. INCRBY reads a JSON integer as it reads a Redis one; it refuses
 * anything else (a string, an object, a float), which starts over from 0. A key INCRBY created has
 * no expiry yet (PTTL -1); a live one keeps its own.
 */
const INCREMENT = luaScript(`local key, by, ms = ARGV[1], ARGV[2], ARGV[3]
local value = redis.pcall("INCRBY", key, by)
if type(value) == "table" and value.err then
  redis.call("SET", key, by, "PX", ms)
  return tonumber(by)
end
if redis.call("PTTL", key) == -1 then redis.call("PEXPIRE", key, ms) end
return value`);

function parse(json: string | null): JsonValue | undefined {
  return json === null ? undefined : (JSON.parse(json) as JsonValue);
}

export class RedisCache implements Cache {
  private readonly pool: RedisPool;

  constructor(options: RedisConnectionOptions) {
    this.pool = new RedisPool(options, "cache", DEFAULT_CACHE_PREFIX);
  }

  get prefix(): string {
    return this.pool.prefix;
  }

  async initializeSchema(): Promise<void> {
    await this.pool.run((client) => client.ping());
  }

  async get(key: string): Promise<JsonValue | undefined> {
    return this.pool.run(async (client) => parse(await client.get(this.prefix + key)));
  }

  async set(key: string, value: JsonValue, ttlSeconds: number): Promise<void> {
    const json = JSON.stringify(value);
    const ms = millis(ttlSeconds);
    await this.pool.run(async (client) => {
      if (ms > 0) await client.set(this.prefix + key, json, "PX", ms);
      else await client.del(this.prefix + key);
    });
  }

  async expire(key: string, ttlSeconds: number): Promise<void> {
    // PEXPIRE 0 deletes the key at once, as an elapsed ttl should.
    await this.pool.run((client) => client.pexpire(this.prefix + key, millis(ttlSeconds)));
  }

  /** One script, which Redis runs atomically: no other client's command comes between read and write. */
  async increment(key: string, by: number, ttlSeconds: number): Promise<number> {
    const args = [this.prefix + key, String(by), String(millis(ttlSeconds))];
    return Number(await this.pool.run((client) => runScript(client, INCREMENT, args)));
  }

  async ttl(key: string): Promise<number> {
    const ms = await this.pool.run((client) => client.pttl(this.prefix + key));
    // -2: missing; -1: no expiry (never written by this adapter) — both negative, as the port says.
    return ms < 0 ? ms : ms / 1000;
  }

  async delete(key: string): Promise<JsonValue | undefined> {
    // GETDEL: value and removal in one atomic step (Kinto did GET then DEL).
    return this.pool.run(async (client) => parse(await client.getdel(this.prefix + key)));
  }

  async flush(): Promise<void> {
    // SCAN + UNLINK under our prefix only, never FLUSHDB.
    await this.pool.run((client) => unlinkByPrefix(client, this.prefix));
  }

  async heartbeat(): Promise<boolean> {
    try {
      await this.set(HEARTBEAT_KEY, "alive", 3600);
      return (await this.get(HEARTBEAT_KEY)) === "alive";
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
