/**
 * The principal fence's ledger in the storage database (LeasedPrincipalFence, docs/feed-fence.md):
 * `feed_leases` holds one row per serving process with the end of its lease, by the database's
 * clock; `feed_fences` one row per fence and process that owes its acknowledgement (deleted when
 * acknowledged, or with the process's lease row). Opening a fence nudges the processes on the
 * `tessera_fences` channel in the same statement; a lost nudge only delays the fence until the
 * process's next renewal, which reads what it owes anyway.
 *
 * Its own small pool and listening connection: leases must keep being renewed when the request
 * pool is saturated, and a fence must commit at once, never inside a caller's transaction.
 */
import pg from "pg";
import type { FenceLedger, OwedFence } from "../../application/ports/fence-ledger.js";
import { KEEPALIVE_IDLE_MS, statementTimeouts } from "./postgres-database.js";
import { toDomainError } from "./postgres-errors.js";

export const FENCES_CHANNEL = "tessera_fences";
/** Leases ended longer ago than this are deleted (with what they owed) at the next renewal. */
const FORGET_AFTER = "1 hour";
const MAX_RECONNECT_DELAY_MS = 5000;

const RENEW = {
  name: "tessera_fence_renew",
  text: `WITH forgotten AS (DELETE FROM feed_leases WHERE lease_until < now() - interval '${FORGET_AFTER}')
    INSERT INTO feed_leases (process_id, lease_until) VALUES ($1, now() + $2 * interval '1 millisecond')
    ON CONFLICT (process_id) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
};
const OPEN = {
  name: "tessera_fence_open",
  text: `WITH owing AS (
      INSERT INTO feed_fences (fence_id, process_id, principal)
      SELECT $1, process_id, $2 FROM feed_leases WHERE lease_until > now() AND process_id <> $3
      RETURNING process_id)
    SELECT (SELECT count(*) FROM owing)::int AS owing, pg_notify('${FENCES_CHANNEL}', '')`,
};
const OWED = {
  name: "tessera_fence_owed",
  text: `SELECT fence_id, principal FROM feed_fences WHERE process_id = $1 ORDER BY fence_id`,
};
const OUTSTANDING = {
  name: "tessera_fence_outstanding",
  text: `SELECT count(*)::int AS outstanding FROM feed_fences f JOIN feed_leases l ON l.process_id = f.process_id
    WHERE f.fence_id = $1 AND l.lease_until > now()`,
};

export interface PostgresFenceLedgerOptions {
  /** Connection string of the storage database (password included). */
  readonly connectionString: string;
  /** Longest wait to open a connection. */
  readonly connectTimeoutMs: number;
  /** Longest statement (0: unbounded). */
  readonly statementTimeoutMs: number;
}

export class PostgresFenceLedger implements FenceLedger {
  private readonly pool: pg.Pool;
  private listener: pg.Client | undefined;
  private readonly nudges = new Set<() => void>();
  private retry: ReturnType<typeof setTimeout> | undefined;
  private delayMs = 100;
  private closed = false;

  constructor(private readonly options: PostgresFenceLedgerOptions) {
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      application_name: "tessera-fence",
      max: 2,
      connectionTimeoutMillis: Math.max(1, options.connectTimeoutMs),
      ...statementTimeouts(options.statementTimeoutMs),
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    });
    // A connection cut while idle must never reach the process as an unhandled 'error'.
    this.pool.on("error", () => undefined);
  }

  async renewLease(processId: string, leaseMs: number): Promise<void> {
    await this.query(RENEW, [processId, leaseMs]);
  }

  async releaseLease(processId: string): Promise<void> {
    await this.query("DELETE FROM feed_leases WHERE process_id = $1", [processId]);
  }

  async openFence(fenceId: string, principal: string, except: string): Promise<number> {
    const [row] = await this.query<{ owing: number }>(OPEN, [fenceId, principal, except]);
    return row?.owing ?? 0;
  }

  async owedBy(processId: string): Promise<OwedFence[]> {
    const rows = await this.query<{ fence_id: string; principal: string }>(OWED, [processId]);
    return rows.map((row) => ({ fenceId: row.fence_id, principal: row.principal }));
  }

  async acknowledge(processId: string, fenceIds: readonly string[]): Promise<void> {
    await this.query("DELETE FROM feed_fences WHERE process_id = $1 AND fence_id = ANY($2::text[])", [processId, fenceIds]);
  }

  async outstanding(fenceId: string): Promise<number> {
    const [row] = await this.query<{ outstanding: number }>(OUTSTANDING, [fenceId]);
    return row?.outstanding ?? 0;
  }

  async closeFence(fenceId: string): Promise<void> {
    await this.query("DELETE FROM feed_fences WHERE fence_id = $1", [fenceId]);
  }

  listen(nudge: () => void): () => void {
    this.nudges.add(nudge);
    void this.ensureListening();
    return () => this.nudges.delete(nudge);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }

  private async query<R extends pg.QueryResultRow>(statement: { name: string; text: string } | string, values: unknown[]): Promise<R[]> {
    const config = typeof statement === "string" ? { text: statement, values } : { ...statement, values };
    try {
      return (await this.pool.query<R>(config)).rows;
    } catch (error) {
      throw toDomainError("storage", error);
    }
  }

  private nudge(): void {
    for (const nudge of [...this.nudges]) nudge();
  }

  private async ensureListening(): Promise<void> {
    if (this.closed || this.listener || this.retry) return;
    const client = new pg.Client({
      connectionString: this.options.connectionString,
      application_name: "tessera-fence-listen",
      connectionTimeoutMillis: Math.max(1, this.options.connectTimeoutMs),
      ...statementTimeouts(this.options.statementTimeoutMs),
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    });
    this.listener = client;
    client.on("error", () => this.lost(client));
    client.on("end", () => this.lost(client));
    client.on("notification", (message) => {
      if (message.channel === FENCES_CHANNEL) this.nudge();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${FENCES_CHANNEL}`);
    } catch {
      this.lost(client);
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.delayMs = 100;
    // Fences opened while nobody listened were not heard of: look now.
    this.nudge();
  }

  private lost(client: pg.Client): void {
    if (this.listener !== client) return;
    this.listener = undefined;
    client.removeAllListeners("notification");
    client.end().catch(() => undefined);
    if (this.closed || this.retry) return;
    this.delayMs = Math.min(this.delayMs * 2, MAX_RECONNECT_DELAY_MS);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.ensureListening();
    }, this.delayMs);
    this.retry.unref();
  }
}
