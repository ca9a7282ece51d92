/**
 * One streaming replica of a PostgreSQL primary (`storage_replica_urls`, ...): its pool, and what
 * is known of it: how far it has replayed the primary's WAL, whether it still follows that
 * primary. A replica that fails is left alone for a while (doubling up to a bound), then tried
 * again; one that was promoted, or follows another primary, is left alone for good.
 */
import pg from "pg";
import { BackendError } from "../../domain/errors.js";
import { freshReading } from "./fresh-reading.js";
import { GuardedClient } from "./guarded-client.js";

export type ReplicaState = "unknown" | "streaming" | "down" | "promoted" | "foreign";

/** What a probe of the replica found. */
interface Replayed {
  readonly recovering: boolean;
  readonly applied: bigint;
  readonly system: string;
}

const PROBE = {
  name: "tessera_replica_probe",
  text: `SELECT pg_is_in_recovery() AS recovering,
      COALESCE(pg_last_wal_replay_lsn() - '0/0', -1)::bigint AS applied,
      (SELECT system_identifier FROM pg_control_system())::text AS system`,
};

const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;

export class Replica {
  /** The WAL position (bytes) up to which it has replayed, as last seen; -1 before any probe. */
  applied = -1n;
  state: ReplicaState = "unknown";
  /** Reads it answered. */
  served = 0;
  /** Bytes of WAL it was behind the primary at its last probe that was compared with it. */
  lagBytes = 0n;
  private readonly pool: pg.Pool;
  private readonly replayed: () => Promise<Replayed>;
  private retryAt = 0;
  private backoffMs = FIRST_BACKOFF_MS;

  /**
   * @param label how logs and metrics name it (host, port and database: never a password)
   * @param system the primary's system identifier: a replica reporting another follows another primary
   */
  constructor(
    readonly label: string,
    config: pg.PoolConfig,
    private readonly system: () => Promise<string>,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.pool = new pg.Pool({ ...config, Client: GuardedClient });
    this.pool.on("error", () => undefined);
    this.replayed = freshReading(() => this.probe());
  }

  /** Whether reads may be tried on it now. */
  usable(): boolean {
    if (this.state === "promoted" || this.state === "foreign") return false;
    return this.state !== "down" || this.now() >= this.retryAt;
  }

  /** Its replay position read now (after this call), or undefined when it cannot serve (and why is its state). */
  async appliedNow(): Promise<bigint | undefined> {
    try {
      const replayed = await this.replayed();
      if (replayed.system !== (await this.system())) this.state = "foreign";
      else if (!replayed.recovering) this.state = "promoted";
      else {
        this.state = "streaming";
        this.backoffMs = FIRST_BACKOFF_MS;
        if (replayed.applied > this.applied) this.applied = replayed.applied;
        return this.applied;
      }
    } catch {
      this.failed();
    }
    return undefined;
  }

  async query<R extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<R[]> {
    const rows = (await this.pool.query<R>(config)).rows;
    this.served += 1;
    return rows;
  }

  /** A read or probe failed for want of the replica: left alone for a while. */
  failed(): void {
    this.state = "down";
    this.retryAt = this.now() + this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  private async probe(): Promise<Replayed> {
    try {
      const [row] = (await this.pool.query<{ recovering: boolean; applied: string; system: string }>(PROBE)).rows;
      if (!row) throw new Error("the replica probe answered no row");
      return { recovering: row.recovering, applied: BigInt(row.applied), system: row.system };
    } catch (error) {
      // A BackendError: the probe's bursts then fail every waiting call at once.
      throw new BackendError("storage", error);
    }
  }
}
