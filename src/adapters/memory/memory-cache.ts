/** In-process Cache with expiry. Values are stored as JSON text, so callers never share objects. */
/* eslint-disable @typescript-eslint/require-await -- the port is async; memory answers at once */
import type { Cache } from "../../application/ports/cache.js";
import type { Clock } from "../../application/ports/clock.js";
import type { JsonValue } from "../../domain/json.js";

export interface MemoryCacheEntry {
  json: string;
  /** Absolute expiry, ms since the epoch. */
  expiresAt: number;
}

/** A store several MemoryCache instances (with different prefixes) may share, like one Redis server. */
export type MemoryCacheStore = Map<string, MemoryCacheEntry>;

export function createMemoryCacheStore(): MemoryCacheStore {
  return new Map();
}

const systemClock: Clock = { now: () => Date.now() };

export class MemoryCache implements Cache {
  /** Store size at which `set` next sweeps expired entries (amortised: the threshold doubles). */
  private sweepAt = 1024;

  constructor(
    private readonly prefix = "",
    private readonly clock: Clock = systemClock,
    private readonly store: MemoryCacheStore = createMemoryCacheStore(),
  ) {}

  async initializeSchema(): Promise<void> {}

  async get(key: string): Promise<JsonValue | undefined> {
    const entry = this.live(key);
    return entry ? (JSON.parse(entry.json) as JsonValue) : undefined;
  }

  async set(key: string, value: JsonValue, ttlSeconds: number): Promise<void> {
    this.purgeExpired();
    this.store.set(this.prefix + key, { json: JSON.stringify(value), expiresAt: this.clock.now() + ttlSeconds * 1000 });
  }

  async expire(key: string, ttlSeconds: number): Promise<void> {
    const entry = this.live(key);
    if (entry) entry.expiresAt = this.clock.now() + ttlSeconds * 1000;
  }

  /** Atomic: nothing is awaited between the read and the write (`set` stores before it yields). */
  async increment(key: string, by: number, ttlSeconds: number): Promise<number> {
    const entry = this.live(key);
    const current: unknown = entry ? JSON.parse(entry.json) : undefined;
    if (entry && typeof current === "number" && Number.isSafeInteger(current)) {
      const next = current + by;
      entry.json = JSON.stringify(next);
      return next;
    }
    await this.set(key, by, ttlSeconds);
    return by;
  }

  async ttl(key: string): Promise<number> {
    const entry = this.live(key);
    return entry ? (entry.expiresAt - this.clock.now()) / 1000 : -2;
  }

  async delete(key: string): Promise<JsonValue | undefined> {
    const value = await this.get(key);
    this.store.delete(this.prefix + key);
    return value;
  }

  async flush(): Promise<void> {
    for (const key of [...this.store.keys()]) if (key.startsWith(this.prefix)) this.store.delete(key);
  }

  async heartbeat(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {}

  /** The entry when present and not expired; an expired one is dropped on the way. */
  private live(key: string): MemoryCacheEntry | undefined {
    const full = this.prefix + key;
    const entry = this.store.get(full);
    if (!entry) return undefined;
    if (entry.expiresAt > this.clock.now()) return entry;
    this.store.delete(full);
    return undefined;
  }

  /** Drops expired entries so a cache written to but rarely read does not grow forever. */
  private purgeExpired(): void {
    if (this.store.size < this.sweepAt) return;
    const now = this.clock.now();
    for (const [key, entry] of this.store) if (entry.expiresAt <= now) this.store.delete(key);
    this.sweepAt = Math.max(1024, this.store.size * 2);
  }
}
