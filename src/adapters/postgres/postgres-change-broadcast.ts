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
 */
import pg from "pg";
import { EVERY_SCOPE, type ChangeBroadcast, type ChangeSignal } from "../../application/ports/change-broadcast.js";
import type { PostgresDatabase } from "./postgres-database.js";
import { StatementBursts } from "./statement-bursts.js";

export const CHANGES_CHANNEL = "tessera_changes";
const NOTIFY = {
  name: "tessera_changes_notify",
  text: `SELECT pg_notify('${CHANGES_CHANNEL}', payload) FROM unnest($1::text[]) WITH ORDINALITY AS n(payload, i) ORDER BY i`,
};
/** Notifications per statement at most (each payload is well under PostgreSQL's 8000 bytes). */
const MAX_NOTIFY_BATCH = 500;

const MAX_RECONNECT_DELAY_MS = 5000;

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
  // One statement in flight at a time keeps the notifications in the order they were published;
  // the writes of a group commit, answered in one turn, go in one statement.
  private readonly bursts = new StatementBursts<string, void>((payloads) => this.notify(payloads), {
    maxInFlight: 1,
    maxBurst: MAX_NOTIFY_BATCH,
    gatherTurn: true,
  });

  constructor(
    private readonly database: PostgresDatabase,
    /** Connection string of the listening connection (password included). */
    private readonly connectionString: string,
  ) {}

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
    const client = new pg.Client({ connectionString: this.connectionString, application_name: "tessera-listen" });
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
    // Whatever was sent while nobody listened: every subscriber reads again from its cursor.
    if (reconnected) this.deliver({ collection: EVERY_SCOPE, parentId: "", timestamp: 0 });
  }

  private lost(client: pg.Client, error: unknown): void {
    if (error !== undefined) for (const onError of this.errorListeners) onError(error);
    if (this.client === client) this.client = undefined;
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

  private deliver(signal: ChangeSignal): void {
    for (const listener of [...this.listeners]) listener(signal);
  }
}
