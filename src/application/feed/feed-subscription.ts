/**
 * One live-feed subscriber: its view (decided once, when it subscribed), its cursor and its
 * stream. It is read first alone, then with its scope's other subscribers, by the same reader
 * (cursor-reader.ts); it remembers what it was sent so that a re-check never repeats a version.
 */
import { bodyOf, type RecordOrTombstone } from "../../domain/records.js";
import type { Viewer } from "./feed-audience.js";
import type { ChangeAction } from "../events.js";
import type { ChangeSignal } from "../ports/change-broadcast.js";
import type { FeedEvent, FeedRequest, FeedSink } from "./feed-types.js";

/** The timestamp last sent for each recent id, so that a re-check never repeats one. */
const SENT_MEMORY = 1000;

/** What a subscription needs from the feed around it. */
export interface SubscriptionHost {
  /**
   * ACLs are written after their records: the shared reads re-check signalled records and must
   * know what each subscriber was sent. Otherwise only what its replay sent is remembered.
   */
  readonly aclMayTrailRecord: boolean;
  forget(subscription: Subscription): void;
}

export class Subscription implements Viewer {
  cursor: number;
  /** Until caught up, it is read alone; then its scope reads for it. */
  replaying = true;
  closed = false;
  private readonly sent = new Map<string, number>();

  constructor(
    private readonly host: SubscriptionHost,
    readonly key: string,
    readonly request: FeedRequest,
    readonly sink: FeedSink,
    /** The client has everything up to here (it asked for what came after). */
    readonly start: number,
    readonly principals: ReadonlySet<string> | undefined,
    readonly filterKey: string,
    /** Every principal of the caller when it subscribed (its view was decided on them). */
    readonly callerPrincipals: ReadonlySet<string>,
  ) {
    this.cursor = start;
  }

  /** Its replay is over: what it is sent from now on comes from its scope's shared reads. */
  caughtUp(): void {
    this.replaying = false;
    if (!this.host.aclMayTrailRecord) this.sent.clear();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.host.forget(this);
    this.sink.end();
  }

  /** Stops serving its stream, which another subscription takes over (its caller's principals changed); false if already closed. */
  retire(): boolean {
    if (this.closed) return false;
    this.closed = true;
    this.host.forget(this);
    return true;
  }

  /** Its caller's principals changed and cannot be followed (or too much changed): told to resync in full, and ended. */
  resync(): void {
    if (this.closed) return;
    this.closed = true;
    this.host.forget(this);
    this.sink.resync();
  }

  /** Sends entries (ascending); false when the subscriber was dropped (too much unread). */
  deliver(entries: readonly RecordOrTombstone[], eventOf: (entry: RecordOrTombstone) => FeedEvent): boolean {
    if (this.closed) return false;
    if (entries.length === 0) return true;
    if (!this.sink.send(entries.map(eventOf))) {
      this.close();
      return false;
    }
    if (this.replaying || this.host.aclMayTrailRecord) for (const entry of entries) this.remember(entry);
    return true;
  }

  /** Whether this exact version of a record was sent already. */
  hasSent(id: string, lastModified: number): boolean {
    return this.sent.get(id) === lastModified;
  }

  private remember(entry: RecordOrTombstone): void {
    this.sent.delete(entry.id);
    this.sent.set(entry.id, entry.lastModified);
    if (this.sent.size > SENT_MEMORY) {
      const oldest = this.sent.keys().next();
      if (!oldest.done) this.sent.delete(oldest.value);
    }
  }
}

/** The event of an entry: `create` only when the write that stamped it was known as one. */
export function feedEvent(entry: RecordOrTombstone, action: ChangeAction | undefined): FeedEvent {
  const event: ChangeAction = entry.deleted ? "delete" : action === "create" ? "create" : "update";
  return { id: entry.lastModified, event, data: bodyOf(entry) };
}

/** Signals that may need a re-check (see CursorReader): single-record writes. */
export function isSingleWrite(signal: ChangeSignal | undefined): signal is ChangeSignal & { id: string } {
  return signal?.id !== undefined;
}
