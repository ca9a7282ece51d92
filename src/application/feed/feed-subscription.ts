/**
 * One live-feed subscriber. It first replays what changed after its start through the record
 * service (a `_since` listing under its own requester, page by page), on its own, so that a long
 * replay never holds up the others; once caught up it joins its scope's shared reads (ScopeFeed),
 * which move its cursor from then on.
 */
import { ResyncRequiredError } from "../../domain/errors.js";
import { bodyOf, type RecordOrTombstone } from "../../domain/records.js";
import type { Viewer } from "./feed-audience.js";
import type { ChangeAction } from "../events.js";
import { ID_FIELD, MODIFIED_FIELD, type Filter } from "../listing.js";
import type { ChangeSignal } from "../ports/change-broadcast.js";
import type { RecordService } from "../record-service.js";
import type { FeedEvent, FeedRequest, FeedSink } from "./feed-types.js";

/** Entries read per query; a replay keeps reading while pages come back full. */
export const PAGE = 200;
/** Entries per query of a subscription's own replay: larger, since a followed group change may owe thousands at once. */
const REPLAY_PAGE = 1000;
const MAX_PAGES_PER_READ = 1000;
/** The timestamp last sent for each recent id, so that a re-check never repeats one. */
const SENT_MEMORY = 1000;

/** What a subscription needs from the feed around it. */
export interface SubscriptionHost {
  readonly records: RecordService;
  /**
   * ACLs are written after their records: the scope's shared reads re-check signalled records
   * and must know what each subscriber was sent. Otherwise only the replay's re-checks ask.
   */
  readonly aclMayTrailRecord: boolean;
  log(error: unknown, message: string): void;
  /** The subscription caught up: its scope's shared reads take over. */
  caughtUp(subscription: Subscription): void;
  forget(subscription: Subscription): void;
  actionOf(key: string, id: string, timestamp: number): ChangeAction | undefined;
}

export class Subscription implements Viewer {
  cursor: number;
  /** Until caught up, it reads by itself; then its scope reads for it. */
  replaying = true;
  closed = false;
  private running = false;
  private dirty = false;
  private readonly sent = new Map<string, number>();
  /** Single-record writes signalled at or below the cursor while replaying: checked one by one. */
  private readonly recheck = new Map<string, number>();

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

  /**
   * A change while replaying: read again once the current read ends. Where an ACL is written
   * after its record (backends without a shared transaction), a read between the two moves the
   * cursor past a record the caller could not see yet; the write's signal, sent after both, then
   * names a timestamp the replay may have read already. That one record is read again (unless it
   * was sent) instead of being lost.
   */
  wake(signal?: ChangeSignal): void {
    if (this.closed || !this.replaying) return;
    // A signal only reaches a replay under way (LiveFeed starts it at once, and drops it from the replaying when caught up).
    if (isSingleWrite(signal) && signal.timestamp > this.start) this.recheck.set(signal.id, signal.timestamp);
    if (this.running) {
      this.dirty = true;
      return;
    }
    this.running = true;
    void this.replay();
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

  private async replay(): Promise<void> {
    try {
      do {
        this.dirty = false;
        await this.readChanges();
        await this.readRechecks();
      } while (this.dirty && !this.closed);
      if (!this.closed) {
        this.replaying = false;
        if (!this.host.aclMayTrailRecord) this.sent.clear();
        this.host.caughtUp(this);
      }
    } catch (error) {
      // A group change too large to follow from here: the client resyncs in full (docs/api.md, "Sync").
      if (error instanceof ResyncRequiredError) {
        this.resync();
        return;
      }
      // Closed meanwhile (the client left, or a shutdown closed the stream, then the pools): nobody to fail.
      if (!this.closed) this.host.log(error, "a live feed subscription failed and was closed");
      this.close();
    } finally {
      this.running = false;
    }
  }

  /** Sends everything after the cursor, page by page, in `last_modified` order. */
  private async readChanges(): Promise<void> {
    let token: string | undefined;
    for (let page = 0; page < MAX_PAGES_PER_READ && !this.closed; page += 1) {
      const { entries, bound, more, next } = await this.nextPage(token);
      if (!this.deliver(entries, (entry) => this.eventOf(entry))) return;
      this.cursor = Math.max(this.cursor, bound);
      token = next;
      if (!more) return;
    }
  }

  /**
   * Records matching the filters, and tombstones whatever the filters, after the cursor, both up
   * to one bound: the collection timestamp, or the last entry of a full page, so that nothing
   * between the cursor and the bound is left behind.
   */
  private async nextPage(
    token: string | undefined,
  ): Promise<{ entries: RecordOrTombstone[]; bound: number; more: boolean; next?: string | undefined }> {
    const { requester, resource, filters } = this.request;
    const after: Filter = { field: MODIFIED_FIELD, operator: "gt", value: this.cursor };
    const sort = [{ field: MODIFIED_FIELD, descending: false }];
    const records = await this.host.records.list(requester, resource, {
      filters: [...filters, after],
      sort,
      limit: REPLAY_PAGE,
      includeDeleted: false,
      neverRefuse: true,
      ...(token === undefined ? {} : { token }),
    });
    const lastRecord = records.entries.length === REPLAY_PAGE ? records.entries[REPLAY_PAGE - 1] : undefined;
    // A full page of records given after the cursor but older than it (a group change) moves no
    // bound: the next page continues from its keyset token, with the same filters.
    if (lastRecord && lastRecord.lastModified <= this.cursor)
      return { entries: [...records.entries], bound: this.cursor, more: records.nextToken !== undefined, next: records.nextToken };
    const recordsFull = lastRecord !== undefined;
    let bound = lastRecord ? lastRecord.lastModified : records.timestamp;
    const deletions = await this.host.records.list(requester, resource, {
      filters: [after, { field: MODIFIED_FIELD, operator: "max", value: bound }, { field: "deleted", operator: "eq", value: true }],
      sort,
      limit: REPLAY_PAGE,
      includeDeleted: true,
      neverRefuse: true,
    });
    const lastDeletion = deletions.entries.length === REPLAY_PAGE ? deletions.entries[REPLAY_PAGE - 1] : undefined;
    const deletionsFull = lastDeletion !== undefined;
    if (lastDeletion) bound = Math.min(bound, lastDeletion.lastModified);
    const entries = [...records.entries, ...deletions.entries.filter((e) => e.deleted)]
      .filter((e) => e.lastModified <= bound)
      .sort((a, b) => a.lastModified - b.lastModified);
    return { entries, bound, more: recordsFull || deletionsFull };
  }

  private async readRechecks(): Promise<void> {
    const { requester, resource, filters } = this.request;
    for (const [id, timestamp] of [...this.recheck]) {
      this.recheck.delete(id);
      // Above the cursor, the next read covers it; already sent, nothing to do.
      if (this.closed || timestamp > this.cursor || this.hasSent(id, timestamp)) continue;
      const found = await this.host.records.list(requester, resource, {
        filters: [...filters, { field: ID_FIELD, operator: "eq", value: id }, { field: MODIFIED_FIELD, operator: "eq", value: timestamp }],
        sort: [{ field: MODIFIED_FIELD, descending: false }],
        limit: 1,
        includeDeleted: false,
        neverRefuse: true,
      });
      if (!this.deliver(found.entries, (entry) => this.eventOf(entry))) return;
    }
  }

  eventOf(entry: RecordOrTombstone): FeedEvent {
    // At or before the position it replays from, a record comes because access to it was gained: never a creation.
    if (entry.lastModified <= this.start) return feedEvent(entry, "update");
    return feedEvent(entry, entry.deleted ? "delete" : this.host.actionOf(this.key, entry.id, entry.lastModified));
  }
}

/** The event of an entry: `create` only when the write that stamped it was known as one. */
export function feedEvent(entry: RecordOrTombstone, action: ChangeAction | undefined): FeedEvent {
  const event: ChangeAction = entry.deleted ? "delete" : action === "create" ? "create" : "update";
  return { id: entry.lastModified, event, data: bodyOf(entry) };
}

/** Signals that may need a re-check (see ScopeFeed): single-record writes. */
export function isSingleWrite(signal: ChangeSignal | undefined): signal is ChangeSignal & { id: string } {
  return signal?.id !== undefined;
}
