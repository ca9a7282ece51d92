/**
 * A small pool of ioredis clients shared by the Redis adapters. Each operation leases one client
 * for its duration, so `poolSize` and `maxBacklog` mean what they mean for the relational pool
 * (spec §4.8): at most `poolSize` operations in flight, at most `maxBacklog` waiting, the rest
 * refused at once. Clients never queue commands while disconnected, so a dead Redis fails fast;
 * ioredis keeps reconnecting in the background, so the pool recovers by itself.
 */
import { createHash } from "node:crypto";
import { Redis } from "ioredis";
import { BackendError } from "../../domain/errors.js";

export interface RedisConnectionOptions {
  /** `redis://[:password@]host:port/db`, or `rediss://` for TLS. */
  url: string;
  /** Prefix of every key this adapter writes; the adapter's default when absent. */
  prefix?: string;
  /** Most clients (connections) open at once. Default 50 (spec §4.8, key-value). */
  poolSize?: number;
  /** Most operations waiting for a client; beyond it they fail at once. -1 (default): no limit. */
  maxBacklog?: number;
  /** A command without reply after this long fails. Default 5000. */
  commandTimeoutMs?: number;
  /** Connecting (first time or again) fails after this long. Default 2000. */
  connectTimeoutMs?: number;
  /** Most time an operation waits for a free client. Default 30000 (spec pool_timeout). */
  poolTimeoutMs?: number;
}

export type RedisBackendName = "permission" | "cache";

/**
 * Longest pause between two reconnection attempts of a client: once Redis is back, every client
 * serves again within it (refused attempts to a dead Redis cost next to nothing).
 */
export const REDIS_RECONNECT_CAP_MS = 500;

interface Waiter {
  resolve(client: Redis): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** A Lua script sent by SHA once Redis knows it. */
export interface LuaScript {
  readonly source: string;
  readonly sha: string;
}

export function luaScript(source: string): LuaScript {
  return { source, sha: createHash("sha1").update(source).digest("hex") };
}

/** EVALSHA, falling back to EVAL when the server has not seen (or has flushed) the script. */
export async function runScript(client: Redis, script: LuaScript, args: readonly string[]): Promise<unknown> {
  try {
    return await client.evalsha(script.sha, 0, ...args);
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("NOSCRIPT")) return client.eval(script.source, 0, ...args);
    throw error;
  }
}

/** Throws the first error of a pipeline or transaction, else returns the replies. */
export function repliesOf(results: [Error | null, unknown][] | null): unknown[] {
  if (!results) throw new Error("Redis transaction aborted");
  return results.map(([error, reply]) => {
    if (error) throw error;
    return reply;
  });
}

/** `*`, `?`, `[`, `]` and `\` made literal for SCAN MATCH. */
export function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, "\\$&");
}

/** Deletes every key under the prefix (SCAN + UNLINK): admin paths only (flush), never FLUSHDB. */
export async function unlinkByPrefix(client: Redis, prefix: string): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await client.scan(cursor, "MATCH", `${globEscape(prefix)}*`, "COUNT", 1000);
    if (keys.length > 0) await client.unlink(...keys);
    cursor = next;
  } while (cursor !== "0");
}

export class RedisPool {
  readonly prefix: string;
  private readonly idle: Redis[] = [];
  private readonly all = new Set<Redis>();
  private readonly waiters: Waiter[] = [];
  private opening = 0;
  private closed = false;
  private readonly poolSize: number;
  private readonly maxBacklog: number;
  private readonly poolTimeoutMs: number;

  constructor(
    private readonly options: RedisConnectionOptions,
    private readonly backend: RedisBackendName,
    defaultPrefix: string,
  ) {
    this.prefix = options.prefix ?? defaultPrefix;
    this.poolSize = Math.max(1, options.poolSize ?? 50);
    this.maxBacklog = options.maxBacklog ?? -1;
    this.poolTimeoutMs = options.poolTimeoutMs ?? 30_000;
  }

  /** Runs `work` with a leased client; every failure becomes BackendError(backend). */
  async run<T>(work: (client: Redis) => Promise<T>): Promise<T> {
    let client: Redis;
    try {
      client = await this.acquire();
    } catch (error) {
      throw this.wrap(error);
    }
    try {
      return await work(client);
    } catch (error) {
      throw this.wrap(error);
    } finally {
      this.release(client);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(new Error("Redis pool closed"));
    }
    const clients = [...this.all];
    this.all.clear();
    this.idle.length = 0;
    await Promise.all(clients.map((client) => closeClient(client)));
  }

  private wrap(error: unknown): BackendError {
    return error instanceof BackendError ? error : new BackendError(this.backend, error);
  }

  private async acquire(): Promise<Redis> {
    if (this.closed) throw new Error("Redis pool closed");
    // Prefer a connected client: a reconnecting one would only fail.
    const readyIndex = this.idle.findIndex((client) => client.status === "ready");
    const ready = readyIndex >= 0 ? this.idle.splice(readyIndex, 1)[0] : undefined;
    if (ready) return ready;
    if (this.all.size + this.opening < this.poolSize) return this.open();
    const any = this.idle.pop();
    if (any) return any;
    if (this.maxBacklog >= 0 && this.waiters.length >= this.maxBacklog) {
      throw new BackendError(this.backend, undefined, `The ${this.backend} backend is busy (max_backlog ${this.maxBacklog} reached)`);
    }
    return new Promise<Redis>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          reject(new BackendError(this.backend, undefined, `No ${this.backend} connection free after ${this.poolTimeoutMs} ms`));
        }, this.poolTimeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  private release(client: Redis): void {
    if (this.closed || !this.all.has(client)) return;
    const waiter = this.waiters.shift();
    if (waiter) {
      clearTimeout(waiter.timer);
      waiter.resolve(client);
    } else {
      this.idle.push(client);
    }
  }

  private async open(): Promise<Redis> {
    this.opening++;
    const client = new Redis(this.options.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: this.options.commandTimeoutMs ?? 5_000,
      connectTimeout: this.options.connectTimeoutMs ?? 2_000,
      // Keep trying in the background (capped backoff): the pool heals when Redis returns.
      retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 6), REDIS_RECONNECT_CAP_MS),
      connectionName: `tessera-${this.backend}`,
    });
    // Errors surface through commands; an unhandled 'error' event would crash the process.
    client.on("error", () => {});
    try {
      await client.connect();
    } catch (error) {
      client.disconnect();
      throw error;
    } finally {
      this.opening--;
    }
    if (this.closed) {
      await closeClient(client);
      throw new Error("Redis pool closed");
    }
    this.all.add(client);
    return client;
  }
}

async function closeClient(client: Redis): Promise<void> {
  try {
    if (client.status === "ready") await client.quit();
    else client.disconnect();
  } catch {
    client.disconnect();
  }
}
