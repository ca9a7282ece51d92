/**
 * A real PostgreSQL streaming standby for tests and benchmarks. The shared server accepts no
 * replication connections, so this starts a primary cluster of its own and a hot standby that
 * replicates it over the streaming protocol, each on a free port of 127.0.0.1, in a few seconds.
 *
 * Pairs are shared by name within a process: each start adds a user (and its database), each
 * close removes one, and the last close stops both servers. What one user does to the servers
 * (pausing replay, stopping or promoting the standby) every user of that name sees.
 */
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import pg from "pg";
import { LocalCluster, localPostgres } from "./local-postgres.js";
import { ownedDirectory, release, sweepAbandonedClusters } from "./owned-clusters.js";

export interface StreamingPair {
  readonly primaryUrl: string;
  /** The same database on the standby (read-only until promoted). */
  readonly standbyUrl: string;
  /** Where both data directories and their logs (primary.log, standby.log) are. */
  readonly directory: string;
  /** Waits until the standby has replayed everything the primary has written so far (never while replay is paused). */
  caughtUp(timeoutMs?: number): Promise<void>;
  /** A standby that falls behind: it still receives WAL but applies none until resumed. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** A standby that disconnects; once started again it catches up (its replication slot kept the WAL it missed). */
  stopStandby(): Promise<void>;
  startStandby(): Promise<void>;
  /** The standby stops being one and takes writes; the next start of this name gets a new pair. */
  promote(): Promise<void>;
  /** Bytes of WAL the primary has written and the standby has not replayed yet. */
  lagBytes(): Promise<number>;
  /** Ends this user of the pair; the last one stops both servers and removes the directory. */
  close(): Promise<void>;
}

export interface StreamingPairOptions {
  /** Created on the primary if missing; the standby gets it by replication. */
  readonly database: string;
  /** Starts with the same name share one pair. */
  readonly name?: string;
}

const WAIT_STEP_MS = 10;

/** Both servers, and the connections this module itself uses to watch and steer them. */
class Servers {
  private readonly pools = new Map<LocalCluster, pg.Pool>();
  promoted = false;

  constructor(
    readonly directory: string,
    readonly primary: LocalCluster,
    readonly standby: LocalCluster,
  ) {}

  /** The first column of the first row, as text. */
  async value(cluster: LocalCluster, sql: string, params: readonly unknown[] = []): Promise<string | null> {
    const result = await this.pool(cluster).query<{ value: string | null }>(sql, [...params]);
    return result.rows[0]?.value ?? null;
  }

  /** Where the primary's WAL ends now. */
  async written(): Promise<string> {
    const position = await this.value(this.primary, "SELECT pg_current_wal_lsn()::text AS value");
    if (position === null) throw new Error("the primary reports no WAL position");
    return position;
  }

  /** Bytes from the standby's replay position to `position` (null before any replay). */
  async gapTo(position: string): Promise<number | null> {
    const gap = await this.value(this.standby, "SELECT pg_wal_lsn_diff($1::pg_lsn, pg_last_wal_replay_lsn())::text AS value", [position]);
    return gap === null ? null : Number(gap);
  }

  /** Drops the standby connections, as stopping the standby ends them anyway. */
  async forgetStandby(): Promise<void> {
    const pool = this.pools.get(this.standby);
    this.pools.delete(this.standby);
    await pool?.end();
  }

  async shutDown(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.end()));
    release(this.directory);
  }

  private pool(cluster: LocalCluster): pg.Pool {
    let pool = this.pools.get(cluster);
    if (pool === undefined) {
      pool = new pg.Pool({ connectionString: cluster.url, max: 2, allowExitOnIdle: true });
      // An idle connection dies when its server stops; the pool replaces it on the next query.
      pool.on("error", () => undefined);
      this.pools.set(cluster, pool);
    }
    return pool;
  }
}

async function startServers(): Promise<Servers> {
  const postgres = await localPostgres();
  if (typeof postgres === "string") throw new Error(`cannot start a streaming standby: ${postgres}`);
  sweepAbandonedClusters(postgres);
  const directory = await ownedDirectory(postgres);
  try {
    const primary = new LocalCluster(postgres, path.join(directory, "primary"));
    await primary.initPrimary();
    await primary.start();
    const standby = new LocalCluster(postgres, path.join(directory, "standby"));
    await standby.initStandbyOf(primary, "standby");
    await standby.start();
    return new Servers(directory, primary, standby);
  } catch (error) {
    release(directory);
    throw error;
  }
}

/** One name's pair, counted in users from the moment a start asks for it. */
interface Shared {
  readonly servers: Promise<Servers>;
  users: number;
}

const shared = new Map<string, Shared>();

function urlOf(cluster: LocalCluster, database: string): string {
  const url = new URL(cluster.url);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

class PairUser implements StreamingPair {
  readonly primaryUrl: string;
  readonly standbyUrl: string;
  readonly directory: string;
  private closed = false;

  constructor(
    private readonly name: string,
    private readonly entry: Shared,
    private readonly servers: Servers,
    database: string,
  ) {
    this.primaryUrl = urlOf(servers.primary, database);
    this.standbyUrl = urlOf(servers.standby, database);
    this.directory = servers.directory;
  }

  async caughtUp(timeoutMs = 10_000): Promise<void> {
    if (this.servers.promoted) throw new Error("the standby was promoted: it replicates nothing any more");
    const deadline = Date.now() + timeoutMs;
    const written = await this.servers.written();
    for (;;) {
      const gap = await this.servers.gapTo(written);
      if (gap !== null && gap <= 0) return;
      if (Date.now() > deadline)
        throw new Error(`the standby is still ${gap ?? "an unknown number of"} bytes behind after ${timeoutMs} ms`);
      await delay(WAIT_STEP_MS);
    }
  }

  async pauseReplay(): Promise<void> {
    await this.servers.value(this.servers.standby, "SELECT pg_wal_replay_pause()::text AS value");
    // Until "paused", the record being applied when the pause was asked for may still land.
    const deadline = Date.now() + 10_000;
    while ((await this.servers.value(this.servers.standby, "SELECT pg_get_wal_replay_pause_state() AS value")) !== "paused") {
      if (Date.now() > deadline) throw new Error("standby replay did not pause within 10 s");
      await delay(WAIT_STEP_MS);
    }
  }

  async resumeReplay(): Promise<void> {
    await this.servers.value(this.servers.standby, "SELECT pg_wal_replay_resume()::text AS value");
  }

  async stopStandby(): Promise<void> {
    await this.servers.forgetStandby();
    await this.servers.standby.stop("fast");
  }

  startStandby(): Promise<void> {
    return this.servers.standby.start();
  }

  async promote(): Promise<void> {
    await this.servers.standby.promote();
    this.servers.promoted = true;
    if (shared.get(this.name) === this.entry) shared.delete(this.name);
  }

  async lagBytes(): Promise<number> {
    const gap = await this.servers.gapTo(await this.servers.written());
    if (gap === null) throw new Error("the standby has replayed nothing yet");
    return Math.max(0, gap);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.entry.users -= 1;
    if (this.entry.users > 0) return;
    if (shared.get(this.name) === this.entry) shared.delete(this.name);
    await this.servers.shutDown();
  }
}

async function ensureDatabase(servers: Servers, database: string): Promise<void> {
  const exists = await servers.value(servers.primary, "SELECT datname::text AS value FROM pg_database WHERE datname = $1", [database]);
  if (exists !== null) return;
  try {
    await servers.value(servers.primary, `CREATE DATABASE "${database.replaceAll('"', '""')}"`);
  } catch (error) {
    if ((error as { code?: string }).code !== "42P04") throw error; // another user created it meanwhile
  }
}

/**
 * Starts (or joins, by name) a primary and its streaming standby, with `database` created on the
 * primary and already replayed on the standby when this resolves.
 */
export async function startStreamingPair(options: StreamingPairOptions): Promise<StreamingPair> {
  const name = options.name ?? "shared";
  let entry = shared.get(name);
  if (entry === undefined) {
    const created: Shared = { servers: startServers(), users: 0 };
    created.servers.catch(() => shared.get(name) === created && shared.delete(name));
    shared.set(name, created);
    entry = created;
  }
  entry.users += 1;
  let servers: Servers;
  try {
    servers = await entry.servers;
  } catch (error) {
    entry.users -= 1;
    throw error;
  }
  const user = new PairUser(name, entry, servers, options.database);
  try {
    await ensureDatabase(servers, options.database);
    if (!servers.promoted) await user.caughtUp();
    return user;
  } catch (error) {
    await user.close();
    throw error;
  }
}
