/**
 * What one live-feed subscriber (an `EventSource`, in Node or in a browser) went through: the
 * requests it sent (with the `Last-Event-ID` it resumed from and the status it got), the
 * connections it opened and the events each delivered, the `resync`s it obeyed, and whether it
 * stopped reconnecting. The checks a restart must pass are read from it: no event at or below the
 * position a connection resumed from, ids rising within a connection, no client that gave up.
 */
import { isDeepStrictEqual } from "node:util";

/** The events a record's change arrives as (`resync` is handled apart). */
export const FEED_EVENT_TYPES = ["create", "update", "delete"] as const;

/** A subscriber as the tests drive it, whichever client runs it. */
export interface FeedSubscriber {
  readonly log: SubscriberLog;
  /** The EventSource's readyState: 0 connecting, 1 open, 2 closed for good. */
  readyState(): Promise<number>;
  close(): Promise<void>;
}

export interface FeedEvent {
  readonly id: string;
  readonly type: string;
  readonly data: Record<string, unknown>;
}

/** One stream request: the `Last-Event-ID` it carried and how it ended (a status, or a network error). */
export interface FeedRequest {
  /** Undefined: sent without (a browser's request headers may be filled in a moment later). */
  resumedFrom: string | undefined;
  outcome: number | string | undefined;
  /** The body of an answer other than a stream (a JSON error's `message`), to tell why. */
  detail?: string;
}

type Entry = { kind: "open" } | { kind: "event"; event: FeedEvent } | { kind: "resync" };

export interface FeedConnection {
  readonly resumedFrom: string | undefined;
  readonly events: readonly FeedEvent[];
}

/** The `message` of a JSON error body, else the body itself (shortened). */
export function errorDetail(body: string): string {
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    if (typeof parsed.message === "string") return parsed.message;
  } catch {
    // not JSON: the text itself
  }
  return body.slice(0, 200);
}

export class SubscriberLog {
  readonly requests: FeedRequest[] = [];
  private readonly entries: Entry[] = [];
  /** Why the client stopped reconnecting for good (EventSource closed itself), if it did. */
  gaveUp: string | undefined;

  constructor(readonly name: string) {}

  requested(resumedFrom: string | undefined): FeedRequest {
    const request: FeedRequest = { resumedFrom, outcome: undefined };
    this.requests.push(request);
    return request;
  }

  opened(): void {
    this.entries.push({ kind: "open" });
  }

  received(event: FeedEvent): void {
    this.entries.push({ kind: "event", event });
  }

  /** The server asked for a full resync: what was received before no longer counts. */
  resynced(): void {
    this.entries.push({ kind: "resync" });
  }

  gaveUpFor(reason: string): void {
    this.gaveUp ??= reason;
  }

  get opens(): number {
    return this.entries.filter((entry) => entry.kind === "open").length;
  }

  get resyncs(): number {
    return this.entries.filter((entry) => entry.kind === "resync").length;
  }

  /**
   * The connections in order, each with the position it resumed from: the n-th opened connection
   * is the n-th request answered 200 (an EventSource has one request at a time).
   */
  connections(): FeedConnection[] {
    const answered = this.requests.filter((request) => request.outcome === 200);
    const connections: { resumedFrom: string | undefined; events: FeedEvent[] }[] = [];
    for (const entry of this.entries) {
      if (entry.kind === "open") {
        const request = answered[connections.length];
        if (!request) throw new Error(`${this.name}: a connection opened without a request answered 200`);
        connections.push({ resumedFrom: request.resumedFrom, events: [] });
      } else if (entry.kind === "event") {
        const current = connections.at(-1);
        if (!current) throw new Error(`${this.name}: an event arrived before any connection opened`);
        current.events.push(entry.event);
      }
    }
    return connections;
  }

  /**
   * Events delivered again: at or below the `Last-Event-ID` their connection resumed from, or not
   * above the previous event of the same connection (the feed sends in `last_modified` order).
   */
  duplicates(): string[] {
    const found: string[] = [];
    for (const [index, connection] of this.connections().entries()) {
      let floor = connection.resumedFrom === undefined ? Number.NEGATIVE_INFINITY : Number(connection.resumedFrom);
      for (const event of connection.events) {
        if (!(Number(event.id) > floor))
          found.push(`connection ${index} (resumed from ${connection.resumedFrom ?? "none"}): ${event.type} ${event.id} after ${floor}`);
        floor = Math.max(floor, Number(event.id));
      }
    }
    return found;
  }

  /** The newest event's data of each record, since the last resync. */
  latest(): Map<string, Record<string, unknown>> {
    const latest = new Map<string, Record<string, unknown>>();
    for (const entry of this.entries) {
      if (entry.kind === "resync") latest.clear();
      if (entry.kind === "event") latest.set(String(entry.event.data.id), entry.event.data);
    }
    return latest;
  }

  /** Where the newest events differ from `listed` (id to entry): one line per record, empty when they agree. */
  differencesFrom(listed: ReadonlyMap<string, Record<string, unknown>>): string[] {
    const latest = this.latest();
    const found: string[] = [];
    for (const id of new Set([...listed.keys(), ...latest.keys()])) {
      const [received, expected] = [latest.get(id), listed.get(id)];
      if (!isDeepStrictEqual(received, expected))
        found.push(
          `${this.name}: ${id}: newest event ${JSON.stringify(received) ?? "none"}, listed ${JSON.stringify(expected) ?? "nothing"}`,
        );
    }
    return found;
  }

  /** One line for a failure message: requests and their outcomes, connections, resyncs. */
  summary(): string {
    const outcomes = this.requests.map(
      (request) => `${request.resumedFrom ?? "-"}→${request.outcome ?? "pending"}${request.detail ? ` "${request.detail}"` : ""}`,
    );
    return `${this.name}: ${this.opens} connections, ${this.resyncs} resyncs, gave up: ${this.gaveUp ?? "no"}; requests ${outcomes.join(", ")}`;
  }
}
