/**
 * The live change feed (docs/adr/0011): subscribers of a collection get one event per change
 * they may see, read back under their own permissions after each signal, never pushed from the
 * writer's data. Each subscription keeps a cursor (the last `last_modified` sent) and reads
 * "what changed after it" exactly as a `_since` sync does, so replay then live has no gap and no
 * duplicate. One read at a time per subscription: signals arriving meanwhile only mark it dirty,
 * so writers never wait for subscribers and a burst of writes costs one read per subscriber.
 */
import type { JsonObject } from "../domain/json.js";
import { bodyOf, type RecordOrTombstone } from "../domain/records.js";
import type { ChangeAction, ChangeEvents } from "./events.js";
import { ID_FIELD, MODIFIED_FIELD, type Filter } from "./listing.js";
import { EVERY_SCOPE, type ChangeBroadcast, type ChangeSignal } from "./ports/change-broadcast.js";
import type { RecordService } from "./record-service.js";
import type { Requester } from "./requester.js";
import type { ResourceDefinition } from "./resources.js";

export interface FeedEvent {
  /** The entry's `last_modified`: what a client sends back as `Last-Event-ID`. */
  readonly id: number;
  readonly event: ChangeAction;
  /** The record as a listing shows it, or the tombstone `{id, last_modified, deleted: true}`. */
  readonly data: JsonObject;
}

/** Where a subscription's events go (an SSE stream). */
export interface FeedSink {
  /** Queues an event; false when the subscriber left too much unread (it is then dropped). */
  send(event: FeedEvent): boolean;
  /** A keep-alive line; false as for send. */
  keepAlive(): boolean;
  end(): void;
}

export interface FeedRequest {
  readonly requester: Requester;
  readonly resource: ResourceDefinition;
  /** The listing's filters, applied to records; deletions always pass. */
  readonly filters: readonly Filter[];
  /** Replay what changed after this timestamp first; undefined: only what changes from now on. */
  readonly since: number | undefined;
}

export interface LiveFeedOptions {
  readonly records: RecordService;
  readonly events: ChangeEvents;
  readonly broadcast: ChangeBroadcast;
  readonly keepAliveMs: number;
  readonly log: (error: unknown, message: string) => void;
}

/** Entries read per query; a subscription keeps reading while pages come back full. */
const PAGE = 200;
const MAX_PAGES_PER_READ = 1000;
/** Actions of recent single-record writes per scope, to tell `create` from `update`. */
const RECENT_ACTIONS = 1000;
/** Per subscription: the timestamp last sent for each recent id, so a re-check never repeats one. */
const SENT_MEMORY = 1000;

function scopeKey(collection: string, parentId: string): string {
  return JSON.stringify([collection, parentId]);
}

class Subscription {
  private cursor: number;
  private running = false;
  private dirty = false;
  /** Single-record writes signalled at or below the cursor: checked one by one (see wake). */
  private readonly recheck = new Map<string, number>();
  private readonly sent = new Map<string, number>();
  closed = false;

  constructor(
    private readonly feed: LiveFeed,
    readonly key: string,
    private readonly request: FeedRequest,
    readonly sink: FeedSink,
    private readonly start: number,
  ) {
    this.cursor = start;
  }

  /**
   * Where an ACL is written after its record (backends without a shared transaction), a read
   * between the two writes moves the cursor past a record the caller could not see yet; the
   * write's signal, sent after both, then names a timestamp at or below the cursor (or arrives
   * while such a read is under way). That one record is read again instead of being lost.
   */
  wake(signal?: ChangeSignal): void {
    if (this.closed) return;
    // At or below the start, the client already has it (it asked for what came after).
    if (signal?.id !== undefined && signal.timestamp > this.start && (this.running || signal.timestamp <= this.cursor))
      this.recheck.set(signal.id, signal.timestamp);
    if (this.running) {
      this.dirty = true;
      return;
    }
    this.running = true;
    void this.drain();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.feed.forget(this);
    this.sink.end();
  }

  private async drain(): Promise<void> {
    try {
      do {
        this.dirty = false;
        await this.readChanges();
        await this.readRechecks();
      } while (this.dirty && !this.closed);
    } catch (error) {
      this.feed.options.log(error, "a live feed subscription failed and was closed");
      this.close();
    } finally {
      this.running = false;
    }
  }

  /** Sends everything after the cursor, page by page, in `last_modified` order. */
  private async readChanges(): Promise<void> {
    for (let page = 0; page < MAX_PAGES_PER_READ && !this.closed; page += 1) {
      const { entries, bound, more } = await this.nextPage();
      for (const entry of entries) if (!this.send(entry)) return;
      this.cursor = Math.max(this.cursor, bound);
      if (!more) return;
    }
  }

  /**
   * Records matching the filters, and tombstones whatever the filters, after the cursor, both up
   * to one bound: the collection timestamp, or the last entry of a full page, so that nothing
   * between the cursor and the bound is left behind.
   */
  private async nextPage(): Promise<{ entries: RecordOrTombstone[]; bound: number; more: boolean }> {
    const { requester, resource, filters } = this.request;
    const after: Filter = { field: MODIFIED_FIELD, operator: "gt", value: this.cursor };
    const sort = [{ field: MODIFIED_FIELD, descending: false }];
    const records = await this.feed.options.records.list(requester, resource, {
      filters: [...filters, after],
      sort,
      limit: PAGE,
      includeDeleted: false,
      neverRefuse: true,
    });
    const lastRecord = records.entries.length === PAGE ? records.entries[PAGE - 1] : undefined;
    const recordsFull = lastRecord !== undefined;
    let bound = lastRecord ? lastRecord.lastModified : records.timestamp;
    const deletions = await this.feed.options.records.list(requester, resource, {
      filters: [after, { field: MODIFIED_FIELD, operator: "max", value: bound }, { field: "deleted", operator: "eq", value: true }],
      sort,
      limit: PAGE,
      includeDeleted: true,
      neverRefuse: true,
    });
    const lastDeletion = deletions.entries.length === PAGE ? deletions.entries[PAGE - 1] : undefined;
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
      if (this.closed || timestamp > this.cursor || this.sent.get(id) === timestamp) continue;
      const found = await this.feed.options.records.list(requester, resource, {
        filters: [...filters, { field: ID_FIELD, operator: "eq", value: id }, { field: MODIFIED_FIELD, operator: "eq", value: timestamp }],
        sort: [{ field: MODIFIED_FIELD, descending: false }],
        limit: 1,
        includeDeleted: false,
        neverRefuse: true,
      });
      for (const entry of found.entries) if (!this.send(entry)) return;
    }
  }

  private send(entry: RecordOrTombstone): boolean {
    if (!this.sink.send(this.eventOf(entry))) {
      this.close();
      return false;
    }
    this.sent.delete(entry.id);
    this.sent.set(entry.id, entry.lastModified);
    if (this.sent.size > SENT_MEMORY) {
      const oldest = this.sent.keys().next();
      if (!oldest.done) this.sent.delete(oldest.value);
    }
    return true;
  }

  private eventOf(entry: RecordOrTombstone): FeedEvent {
    const event: ChangeAction = entry.deleted
      ? "delete"
      : this.feed.actionOf(this.key, entry.id, entry.lastModified) === "create"
        ? "create"
        : "update";
    return { id: entry.lastModified, event, data: bodyOf(entry) };
  }
}

export class LiveFeed {
  private readonly byScope = new Map<string, Set<Subscription>>();
  /** Per scope: action of each recent single-record write, by `id` and timestamp. */
  private readonly recent = new Map<string, Map<string, ChangeAction>>();
  private readonly stops: (() => void)[] = [];
  private keepAlive: ReturnType<typeof setInterval> | undefined;

  constructor(readonly options: LiveFeedOptions) {}

  /** Forwards committed changes to every process and listens to theirs (resolves once listening was tried). */
  start(): Promise<void> {
    const { events, broadcast, log } = this.options;
    const publish = (signal: ChangeSignal) =>
      broadcast.publish(signal).catch((error: unknown) => log(error, "a change signal could not be sent"));
    this.stops.push(
      events.onResourceChanged((event) => {
        const only = event.impacted.length === 1 ? event.impacted[0] : undefined;
        const single = only ? { id: only.new.id, action: event.action } : {};
        // Known here before the write is answered: this process's replays need no signal round trip.
        if (single.id !== undefined) this.remember(scopeKey(event.collection, event.parentId), single.id, event.timestamp, event.action);
        void publish({ collection: event.collection, parentId: event.parentId, timestamp: event.timestamp, ...single });
      }),
      events.onScopeTouched((event) => void publish({ ...event.scope, timestamp: event.timestamp })),
      broadcast.subscribe(
        (signal) => this.dispatch(signal),
        (error) => log(error, "the change listener connection failed; reconnecting"),
      ),
    );
    this.keepAlive = setInterval(() => this.sendKeepAlive(), this.options.keepAliveMs);
    this.keepAlive.unref();
    return broadcast.ready();
  }

  /**
   * Checks the request as the listing would (401/403 thrown before anything is sent), then
   * opens the sink and streams: the replay after `since`, then every change as it commits.
   */
  async subscribe(request: FeedRequest, scope: { collection: string; parentId: string }, open: () => FeedSink): Promise<{ close(): void }> {
    const check = await this.options.records.list(request.requester, request.resource, {
      filters: [...request.filters, { field: MODIFIED_FIELD, operator: "gt", value: request.since ?? Number.MAX_SAFE_INTEGER }],
      sort: [{ field: MODIFIED_FIELD, descending: false }],
      limit: 1,
      includeDeleted: false,
    });
    const subscription = new Subscription(
      this,
      scopeKey(scope.collection, scope.parentId),
      request,
      open(),
      request.since ?? check.timestamp,
    );
    let set = this.byScope.get(subscription.key);
    if (!set) {
      set = new Set();
      this.byScope.set(subscription.key, set);
    }
    set.add(subscription);
    subscription.wake();
    return { close: () => subscription.close() };
  }

  /** Ends every stream (shutdown). */
  close(): void {
    if (this.keepAlive) clearInterval(this.keepAlive);
    for (const stop of this.stops.splice(0)) stop();
    for (const set of [...this.byScope.values()]) for (const subscription of [...set]) subscription.close();
  }

  get subscriberCount(): number {
    let total = 0;
    for (const set of this.byScope.values()) total += set.size;
    return total;
  }

  /** @internal */
  forget(subscription: Subscription): void {
    const set = this.byScope.get(subscription.key);
    set?.delete(subscription);
    if (set?.size === 0) this.byScope.delete(subscription.key);
  }

  /** @internal */
  actionOf(key: string, id: string, timestamp: number): ChangeAction | undefined {
    return this.recent.get(key)?.get(JSON.stringify([id, timestamp]));
  }

  private dispatch(signal: ChangeSignal): void {
    if (signal.collection === EVERY_SCOPE) {
      for (const set of this.byScope.values()) for (const subscription of set) subscription.wake();
      return;
    }
    const key = scopeKey(signal.collection, signal.parentId);
    if (signal.id !== undefined && signal.action !== undefined) this.remember(key, signal.id, signal.timestamp, signal.action);
    for (const subscription of this.byScope.get(key) ?? []) subscription.wake(signal);
  }

  private remember(key: string, id: string, timestamp: number, action: ChangeAction): void {
    let actions = this.recent.get(key);
    if (!actions) {
      actions = new Map();
      this.recent.set(key, actions);
    }
    actions.set(JSON.stringify([id, timestamp]), action);
    if (actions.size > RECENT_ACTIONS) {
      const oldest = actions.keys().next();
      if (!oldest.done) actions.delete(oldest.value);
    }
  }

  private sendKeepAlive(): void {
    for (const set of [...this.byScope.values()])
      for (const subscription of [...set]) if (!subscription.sink.keepAlive()) subscription.close();
  }
}
