/**
 * ChangeBroadcast over PostgreSQL LISTEN/NOTIFY, so that several `serve` processes on one
 * database feed each other's subscribers. A notification carries the scope, the timestamp and,
 * for a single-record write, its id and action: never record data (subscribers read it back
 * under their own permissions). Notifications go out through the pool, after commit, those
 * published while one statement is under way together in the next (statement-bursts.ts: one
 * round trip per burst of writes, not per write, in their order); one dedicated connection
 * listens. When it breaks it is reopened (with a growing delay) and every subscriber is woken,
 * since signals may have been missed meanwhile: an error on that connection never reaches the
 * process as an unhandled 'error' event.
 *
 * NOTIFY is only the fast path: a NOTIFY that fails after its commit (the connection cut right
 * after COMMIT) is lost for good. So every `catchUpMs` one statement reads the counters of the
 * scopes this process has subscribers for (watch), and any counter above what was last heard of
 * is signalled here: a missed change arrives at the latest one period (plus that statement) late.
 * The same tick pings the listening connection, which a silently dead peer would otherwise hold
 * forever: no answer within the statement timeout, and it is dropped and reopened.
 */
import pg from "pg";
import { EVERY_SCOPE, type ChangeBroadcast, type ChangeSignal } from "../../application/ports/change-broadcast.js";
import { KEEPALIVE_IDLE_MS, statementTimeouts, type PostgresDatabase, type Statement } from "./postgres-database.js";
import { StatementBursts } from "./statement-bursts.js";

export const CHANGES_CHANNEL = "tessera_changes";
const NOTIFY = {
  name: "tessera_changes_notify",
  text: `SELECT pg_notify('${CHANGES_CHANNEL}', payload) FROM unnest($1::text[]) WITH ORDINALITY AS n(payload, i) ORDER BY i`,
};
/** Notifications per statement at most (each payload is well under PostgreSQL's 8000 bytes). */
const MAX_NOTIFY_BATCH = 500;

const MAX_RECONNECT_DELAY_MS = 5000;
/** On a hot standby LISTEN is refused: the catch-up alone serves the feed; LISTEN is retried this rarely. */
const STANDBY_RETRY_MS = 60_000;
/** SQLSTATE read_only_sql_transaction: "cannot execute LISTEN during recovery" on a standby. */
const READ_ONLY = "25006";

const CATCH_UP: Statement = {
  name: "tessera_changes_catch_up",
  text: `SELECT t.collection, t.parent_id, t.last_modified FROM timestamps t
    JOIN unnest($1::text[], $2::text[]) AS w(collection, parent_id) ON t.collection = w.collection AND t.parent_id = w.parent_id`,
};

export interface PostgresChangeBroadcastOptions {
  /** Connection string of the listening connection (password included). */
  readonly connectionString: string;
  /** Period of the catch-up check and of the listener's ping (default 2000 ms). */
  readonly catchUpMs?: number;
  /** Longest wait to open the listening connection (default 30 s). */
  readonly connectTimeoutMs?: number;
  /** Longest wait for the listener's ping (default: 15 s; 0: the ping is not bounded). */
  readonly statementTimeoutMs?: number;
}

interface Watched {
  readonly collection: string;
  readonly parentId: string;
  watchers: number;
  /** The newest timestamp heard of (signal or check); undefined until the first check. */
  known: number | undefined;
}

function parseSignal(payload: string | undefined): ChangeSignal | undefined {
  try {
    const value = JSON.parse(payload ?? "") as Partial<Record<string, unknown>>;
    if (typeof value.c !== "string" || typeof value.p !== "string" || typeof value.t !== "number") return undefined;
    const action = value.a === "create" || value.a === "update" || value.a === "delete" ? value.a : undefined;
    return {
      collection: value.c,
      parentId: value.p,
      timestamp: value.t,
      ...(typeof value.i === "string" && action ? { id: value.i, action } : {}),
    };
  } catch {
    return undefined;
  }
}

export class PostgresChangeBroadcast implements ChangeBroadcast {
  private readonly listeners = new Set<(signal: ChangeSignal) => void>();
  private readonly errorListeners = new Set<(error: unknown) => void>();
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private delayMs = 100;
  private closed = false;
  private readonly options: Required<PostgresChangeBroadcastOptions>;
  private readonly watched = new Map<string, Watched>();
  private readonly ticker: ReturnType<typeof setInterval>;
  private checking = false;
  private pinging = false;
  private standbyReported = false;
  // One statement in flight at a time keeps the notifications in the order they were published;
  // the writes of a group commit, answered in one turn, go in one statement.
  private readonly bursts = new StatementBursts<string, void>((payloads) => this.notify(payloads), {
    maxInFlight: 1,
    maxBurst: MAX_NOTIFY_BATCH,
    gatherTurn: true,
  });

  constructor(
    private readonly database: PostgresDatabase,
    /** The options, or only the listening connection's connection string. */
    options: PostgresChangeBroadcastOptions | string,
  ) {
    const given = typeof options === "string" ? { connectionString: options } : options;
    this.options = { catchUpMs: 2000, connectTimeoutMs: 30_000, statementTimeoutMs: 15_000, ...given };
    this.ticker = setInterval(() => this.tick(), this.options.catchUpMs);
    this.ticker.unref();
  }

  watch(scope: { readonly collection: string; readonly parentId: string }): () => void {
    const key = JSON.stringify([scope.collection, scope.parentId]);
    let entry = this.watched.get(key);
    if (!entry) {
      entry = { collection: scope.collection, parentId: scope.parentId, watchers: 0, known: undefined };
      this.watched.set(key, entry);
    }
    entry.watchers += 1;
    let watching = true;
    return () => {
      if (!watching) return;
      watching = false;
      const current = this.watched.get(key);
      if (current && --current.watchers === 0) this.watched.delete(key);
    };
  }

  publish(signal: ChangeSignal): Promise<void> {
    const payload = JSON.stringify({
      c: signal.collection,
      p: signal.parentId,
      t: signal.timestamp,
      ...(signal.id !== undefined ? { i: signal.id, a: signal.action } : {}),
    });
    return this.bursts.submit(payload);
  }

  private async notify(payloads: readonly string[]): Promise<void[]> {
    await this.database.query("storage", NOTIFY, [payloads]);
    return payloads.map(() => undefined);
  }

  subscribe(listener: (signal: ChangeSignal) => void, onError?: (error: unknown) => void): () => void {
    this.listeners.add(listener);
    if (onError) this.errorListeners.add(onError);
    void this.ensureListening();
    return () => {
      this.listeners.delete(listener);
      if (onError) this.errorListeners.delete(onError);
    };
  }

  ready(): Promise<void> {
    return this.ensureListening();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.ticker);
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private ensureListening(): Promise<void> {
    if (this.closed || this.client) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.options.connectionString,
      application_name: "tessera-listen",
      connectionTimeoutMillis: Math.max(1, this.options.connectTimeoutMs),
      ...statementTimeouts(this.options.statementTimeoutMs),
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    });
    // Registered before connecting: a cut connection emits 'error', which must never go unhandled.
    client.on("error", (error) => this.lost(client, error));
    client.on("end", () => this.lost(client, undefined));
    client.on("notification", (message) => {
      const signal = message.channel === CHANGES_CHANNEL ? parseSignal(message.payload) : undefined;
      if (signal) this.deliver(signal);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (error) {
      this.lost(client, error);
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    const reconnected = this.delayMs > 100;
    this.client = client;
    this.delayMs = 100;
    this.standbyReported = false;
    // Whatever was sent while nobody listened: every subscriber reads again from its cursor.
    if (reconnected) this.deliver({ collection: EVERY_SCOPE, parentId: "", timestamp: 0 });
  }

  private lost(client: pg.Client, error: unknown): void {
    const standby = (error as { code?: unknown } | undefined)?.code === READ_ONLY;
    // A standby refuses LISTEN for as long as it is one: said once, then retried rarely and quietly.
    if (error !== undefined && !(standby && this.standbyReported)) for (const onError of this.errorListeners) onError(error);
    if (standby) this.standbyReported = true;
    if (this.client === client) this.client = undefined;
    client.removeAllListeners("notification");
    client.end().catch(() => undefined);
    if (this.closed || this.retry) return;
    this.delayMs = standby ? STANDBY_RETRY_MS : Math.min(this.delayMs * 2, MAX_RECONNECT_DELAY_MS);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.ensureListening();
    }, this.delayMs);
    this.retry.unref();
  }

  private deliver(signal: ChangeSignal): void {
    const entry = this.watched.get(JSON.stringify([signal.collection, signal.parentId]));
    if (entry) entry.known = Math.max(entry.known ?? signal.timestamp, signal.timestamp);
    for (const listener of [...this.listeners]) listener(signal);
  }

  private tick(): void {
    if (this.closed) return;
    void this.ping();
    void this.catchUp();
  }

  /** A listening connection that does not answer is dead even if TCP has not noticed: reopened. */
  private async ping(): Promise<void> {
    const client = this.client;
    if (!client || this.pinging) return;
    this.pinging = true;
    try {
      await client.query("SELECT 1");
    } catch (error) {
      this.lost(client, error);
    } finally {
      this.pinging = false;
    }
  }

  /** One statement for every watched scope: a counter above what was heard of is signalled now. */
  private async catchUp(): Promise<void> {
    if (this.checking || this.watched.size === 0) return;
    this.checking = true;
    try {
      const scopes = [...this.watched.values()];
      const rows = await this.database.query<{ collection: string; parent_id: string; last_modified: string }>("storage", CATCH_UP, [
        scopes.map((scope) => scope.collection),
        scopes.map((scope) => scope.parentId),
      ]);
      for (const row of rows) {
        const entry = this.watched.get(JSON.stringify([row.collection, row.parent_id]));
        const timestamp = Number(row.last_modified);
        if (!entry || (entry.known !== undefined && timestamp <= entry.known)) continue;
        this.deliver({ collection: row.collection, parentId: row.parent_id, timestamp });
      }
    } catch {
      // The database is away: the next tick tries again (requests report the outage themselves).
    } finally {
      this.checking = false;
    }
  }
}
