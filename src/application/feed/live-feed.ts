/**
 * The live change feed (docs/adr/0011, 0016): subscribers of a collection get one event per
 * change they may see, read back after each signal, never pushed from the writer's data. A
 * subscription is authorized once, by the listing (its view: caller, grants); then one reader
 * (CursorReader) reads for it: alone while it replays what changed after its start, then with
 * its scope's other subscribers, per burst of changes, deciding in memory who sees what with the
 * listing's rules (Audience, restricted-view.ts). Cursors (the last `last_modified` read) make
 * replay then live gapless and without duplicates. Writers never wait: a signal only schedules a read.
 */
import { BackendError, ForbiddenError, ResyncRequiredError, UnauthenticatedError } from "../../domain/errors.js";
import { READ, recordObjectId } from "../../domain/permissions.js";
import type { Caller } from "../../domain/principals.js";
import type { ChangeAction, ChangeEvents } from "../events.js";
import { CursorReader, type CursorReaderDeps } from "./cursor-reader.js";
import { Subscription } from "./feed-subscription.js";
import type { ResourceKindPolicy, ResourceKinds } from "../kinds/resource-kind-policy.js";
import type { FeedRequest, FeedSink } from "./feed-types.js";
import { MODIFIED_FIELD } from "../listing.js";
import { EVERY_SCOPE, PRINCIPALS_CHANGED, type ChangeBroadcast, type ChangeSignal } from "../ports/change-broadcast.js";
import type { PrincipalFence } from "../ports/principal-fence.js";
import type { AccessJournal } from "../ports/access-journal.js";
import type { RecordStore } from "../ports/record-store.js";
import type { Grants, RecordAcls, SharedRecords } from "../ports/shared-records.js";
import type { RecordService } from "../record-service.js";
import type { ResourceDefinition } from "../resources.js";

export type { FeedEvent, FeedRequest, FeedSink } from "./feed-types.js";

export interface LiveFeedOptions {
  /** Authorizes each subscription, with the listing's rules, and decides its view (RecordService.listAs). */
  readonly records: RecordService;
  /** The reads go to the ports directly (the subscribers' access was decided at subscription). */
  readonly store: RecordStore;
  /** Losses and gains of access after a cursor. */
  readonly journal: AccessJournal;
  /** The shared reads' entries with the ACL of each version (SharedRecords.changes). */
  readonly shared: SharedRecords;
  readonly kinds: ResourceKinds;
  /** Pause before a scope's shared read (default 15 ms). */
  readonly windowMs?: number;
  readonly events: ChangeEvents;
  readonly broadcast: ChangeBroadcast;
  /** Makes a principal change wait for the other processes' streams (docs/feed-fence.md); none: signals only. */
  readonly fence?: PrincipalFence;
  readonly keepAliveMs: number;
  readonly log: (error: unknown, message: string) => void;
}

function scopeKey(collection: string, parentId: string): string {
  return JSON.stringify([collection, parentId]);
}

/** Actions of recent single-record writes per scope, to tell `create` from `update`. */
const RECENT_ACTIONS = 1000;
/** Default pause before a scope's shared read, so that writes close together share it. */
const DEFAULT_WINDOW_MS = 15;
/** Entries per read of a scope's shared reads. */
const SHARED_PAGE = 200;
/** Entries per read of a replay: larger, since a followed group change may owe thousands at once. */
export const REPLAY_PAGE = 1000;

export class LiveFeed {
  /** Per scope: subscribers still replaying, each read alone by its own reader. */
  private readonly replaying = new Map<string, Map<Subscription, CursorReader>>();
  /** Per scope: the shared reader of caught-up subscribers. */
  private readonly scopes = new Map<string, CursorReader>();
  /** Per scope with a shared reader: ends the broadcast's watch of it (the catch-up of missed signals). */
  private readonly unwatch = new Map<string, () => void>();
  /** Per scope: action of each recent single-record write, by `id` and timestamp. */
  private readonly recent = new Map<string, Map<string, ChangeAction>>();
  private readonly stops: (() => void)[] = [];
  /** Per subscription being opened: the principals announced as changed meanwhile. */
  private readonly subscribing = new Set<Set<string>>();
  /** The client's stream each subscription serves (a stream outlives the subscriptions its principal changes replace). */
  private readonly streams = new WeakMap<Subscription, FeedStream>();
  private keepAlive: ReturnType<typeof setInterval> | undefined;
  /** How many times every stream was ended at once (the fence's lease lapsed). */
  private everyStreamEnded = 0;
  private readonly host = {
    /** An ACL may become visible after its record: what a subscriber was sent is remembered to re-check it. */
    aclMayTrailRecord: this.options.shared.aclMayTrailRecord,
    forget: (subscription: Subscription) => this.forget(subscription),
  };

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
      // Ended here before the change returns; on other processes when the signal reaches them.
      events.onPrincipalsChanged(async (principal, since) => {
        this.principalsChanged(principal, since);
        await broadcast.publish({ collection: PRINCIPALS_CHANGED, parentId: principal, timestamp: since ?? 0 });
        await this.options.fence?.fence(principal);
      }),
      broadcast.subscribe(
        (signal) => this.dispatch(signal),
        (error) => log(error, "the change listener connection failed; reconnecting"),
      ),
    );
    this.keepAlive = setInterval(() => this.sendKeepAlive(), this.options.keepAliveMs);
    this.keepAlive.unref();
    const leave = this.options.fence?.serve({
      endStreamsOf: (p) => this.principalsChanged(p),
      endEveryStream: () => this.endEveryStream(),
    });
    this.stops.push(() => void leave?.then((stop) => stop()));
    return Promise.all([broadcast.ready(), leave]).then(() => undefined);
  }

  /**
   * Checks the request as the listing would (401/403 thrown before anything is sent), then
   * opens the sink and streams: the replay after `since`, then every change as it commits. The
   * subscriber's view (collection-level read, or its principals) is decided here, and again on
   * the new principals when its caller's memberships change (follow), from its cursor on.
   */
  async subscribe(request: FeedRequest, open: () => FeedSink): Promise<{ close(): void; cursor(): number }> {
    const stream = new FeedStream(request.since);
    await this.attach(request, open, stream);
    // The cursor: the client has everything up to it (what a stream ended by the server tells it to resume from).
    return { close: () => stream.close(), cursor: () => stream.cursor() };
  }

  /** Decides the view of `request` and starts its subscription on `stream` (a first one, or a followed one). */
  private async attach(request: FeedRequest, open: () => FeedSink, stream: FeedStream, followed = false): Promise<void> {
    // The scope as the kind places the requester's records (a user resource: their own).
    const kind = this.options.kinds[request.resource.kind];
    const scope = kind.scope(request.requester, request.resource);
    // Principals announced as changed while this caller's were being read: they may be stale.
    const changedMeanwhile = new Set<string>();
    const endedBefore = this.everyStreamEnded;
    this.subscribing.add(changedMeanwhile);
    let caller: Caller;
    let grants: Grants | undefined;
    let check: { timestamp: number };
    try {
      if (this.options.fence && !(await this.options.fence.admit()))
        throw new BackendError("storage", undefined, "The live feed holds no lease on the database");
      // Authorized by the listing: its caller and grants (undefined: collection-level read) are the subscriber's view.
      const view = await this.options.records.listAs(request.requester, request.resource, {
        filters: [...request.filters, { field: MODIFIED_FIELD, operator: "gt", value: request.since ?? Number.MAX_SAFE_INTEGER }],
        sort: [{ field: MODIFIED_FIELD, descending: false }],
        limit: 1,
        includeDeleted: false,
        // A followed stream is owed what the change took, even when its caller may now read nothing.
        neverRefuse: followed,
      });
      ({ caller, grants } = view);
      check = view;
    } finally {
      this.subscribing.delete(changedMeanwhile);
    }
    const key = scopeKey(scope.collection, scope.parentId);
    const deps: CursorReaderDeps = {
      store: this.options.store,
      journal: this.options.journal,
      shared: this.options.shared,
      acls: recordAclsOf(kind, request.resource),
      // What a restricted listing of the resource matches ACEs on (the same for every caller).
      readPermissions: kind.grants(caller, request.resource, READ)?.permissions ?? [],
      actionOf: (id, timestamp) => this.actionOf(key, id, timestamp),
      log: this.options.log,
    };
    if (!this.scopes.has(key)) {
      this.scopes.set(key, new CursorReader(scope, deps, { page: SHARED_PAGE, windowMs: this.options.windowMs ?? DEFAULT_WINDOW_MS }));
      this.unwatch.set(key, this.options.broadcast.watch?.(scope) ?? (() => undefined));
    }
    const subscription = new Subscription(
      this.host,
      key,
      request,
      open(),
      request.since ?? check.timestamp,
      grants ? new Set(grants.principals) : undefined,
      request.filters.length > 0 ? JSON.stringify(request.filters) : "",
      new Set(caller.principals),
    );
    this.streams.set(subscription, stream);
    stream.current = subscription;
    // Its replay: the same reader, for it alone, from its own cursor.
    const alone = new CursorReader(scope, deps, { page: REPLAY_PAGE, windowMs: undefined, caughtUp: (s) => this.caughtUp(s) });
    let replaying = this.replaying.get(key);
    if (!replaying) {
      replaying = new Map();
      this.replaying.set(key, replaying);
    }
    replaying.set(subscription, alone);
    if (stream.ended) subscription.close();
    else if (endedBefore !== this.everyStreamEnded) subscription.resync();
    // Decided on principals that changed meanwhile: decided again, from where it starts.
    else if (caller.principals.some((p) => changedMeanwhile.has(p))) this.follow(subscription);
    else alone.join(subscription);
  }

  /**
   * The caller's principals changed: the subscription decided on the old ones stops at once (no
   * event is judged on them any more), and the stream goes on from its cursor with a view decided
   * on the new ones. Its replay, from `since` at the latest, brings what a `_since` listing from
   * there would: what the change took (tombstones) or gave, even to a caller who may now read nothing. When the new view
   * cannot be decided (no way to read the principals again, a failure), the stream ends with `resync`.
   */
  private follow(old: Subscription, since?: number): void {
    const stream = this.streams.get(old);
    const again = old.request.requester.resolveAgain?.bind(old.request.requester);
    if (!stream || !again || !old.retire()) {
      old.resync();
      return;
    }
    const { requester } = old.request;
    const followed = async () => {
      const caller = await again();
      const request: FeedRequest = {
        ...old.request,
        requester: { userId: requester.userId, caller: () => Promise.resolve(caller), resolveAgain: again },
        // Where the change recorded what it took or gave, if the cursor went past it meanwhile.
        since: Math.min(old.cursor, since ?? old.cursor),
      };
      await this.attach(request, () => old.sink, stream, true);
    };
    followed().catch((error: unknown) => {
      const refused = error instanceof UnauthenticatedError || error instanceof ForbiddenError || error instanceof ResyncRequiredError;
      if (!refused) this.options.log(error, "a live feed subscriber's new view could not be decided; it was told to resync");
      if (!stream.ended) old.sink.resync();
    });
  }

  /** Ends every stream (shutdown). */
  close(): void {
    if (this.keepAlive) clearInterval(this.keepAlive);
    for (const stop of this.stops.splice(0)) stop();
    for (const replaying of [...this.replaying.values()]) for (const subscription of [...replaying.keys()]) subscription.close();
    for (const shared of [...this.scopes.values()]) shared.closeAll();
  }

  get subscriberCount(): number {
    let total = 0;
    for (const set of this.replaying.values()) total += set.size;
    for (const shared of this.scopes.values()) total += shared.size;
    return total;
  }

  private caughtUp(subscription: Subscription): void {
    this.replaying.get(subscription.key)?.delete(subscription);
    subscription.caughtUp();
    if (!subscription.sink.live()) {
      subscription.close();
      return;
    }
    this.scopes.get(subscription.key)?.join(subscription);
  }

  private forget(subscription: Subscription): void {
    const replaying = this.replaying.get(subscription.key);
    replaying?.get(subscription)?.leave(subscription);
    replaying?.delete(subscription);
    if (replaying?.size === 0) this.replaying.delete(subscription.key);
    const shared = this.scopes.get(subscription.key);
    shared?.leave(subscription);
    if (shared?.size === 0 && !this.replaying.has(subscription.key)) {
      this.scopes.delete(subscription.key);
      this.unwatch.get(subscription.key)?.();
      this.unwatch.delete(subscription.key);
    }
  }

  private actionOf(key: string, id: string, timestamp: number): ChangeAction | undefined {
    return this.recent.get(key)?.get(JSON.stringify([id, timestamp]));
  }

  /**
   * The members of `principal` changed: every stream whose caller held it (a user id: that user's
   * streams) was decided on principals that may no longer hold, and follows the new ones.
   */
  private principalsChanged(principal: string, since?: number): void {
    for (const changed of this.subscribing) changed.add(principal);
    for (const subscription of this.everySubscription()) if (subscription.callerPrincipals.has(principal)) this.follow(subscription, since);
  }

  private endEveryStream(): void {
    this.everyStreamEnded += 1;
    for (const subscription of this.everySubscription()) subscription.resync();
  }

  private async recheckPrincipals(subscription: Subscription): Promise<void> {
    try {
      const now = await subscription.request.requester.resolveAgain?.();
      if (now && !sameMembers(now.principals, subscription.callerPrincipals)) this.follow(subscription);
    } catch (error) {
      this.options.log(error, "a live feed subscriber's principals could not be read again; it was told to resync");
      subscription.resync();
    }
  }

  private dispatch(signal: ChangeSignal): void {
    if (signal.collection === PRINCIPALS_CHANGED) {
      this.principalsChanged(signal.parentId, signal.timestamp > 0 ? signal.timestamp : undefined);
      return;
    }
    if (signal.collection === EVERY_SCOPE) {
      // Principal changes may have been missed too: each stream's principals are looked up again.
      for (const subscription of this.everySubscription()) void this.recheckPrincipals(subscription);
      for (const replaying of this.replaying.values()) for (const alone of replaying.values()) alone.wake();
      for (const shared of this.scopes.values()) shared.wake();
      return;
    }
    const key = scopeKey(signal.collection, signal.parentId);
    if (signal.id !== undefined && signal.action !== undefined) this.remember(key, signal.id, signal.timestamp, signal.action);
    for (const alone of this.replaying.get(key)?.values() ?? []) alone.wake(signal);
    this.scopes.get(key)?.wake(signal);
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
    for (const subscription of this.everySubscription()) if (!subscription.sink.keepAlive()) subscription.close();
  }

  private everySubscription(): Subscription[] {
    const all: Subscription[] = [];
    for (const replaying of this.replaying.values()) all.push(...replaying.keys());
    for (const shared of this.scopes.values()) all.push(...shared.subscriptions());
    return all;
  }
}

/**
 * The kind's map of records to ACLs; for a kind that keeps none, one that names no permission:
 * its records have no readers of their own, so only collection-level subscribers see them (its
 * views are never restricted anyway).
 */
function recordAclsOf(kind: ResourceKindPolicy, resource: ResourceDefinition): RecordAcls {
  return kind.recordAcls(resource) ?? { objectIdPrefix: recordObjectId(resource.name, ""), permissions: [], readPermissions: () => [] };
}

function sameMembers(principals: readonly string[], known: ReadonlySet<string>): boolean {
  const now = new Set(principals);
  return now.size === known.size && [...now].every((p) => known.has(p));
}

/** One client's stream: the subscription serving it now (replaced when its caller's principals change). */
class FeedStream {
  current: Subscription | undefined;
  ended = false;

  constructor(private readonly since: number | undefined) {}

  close(): void {
    this.ended = true;
    this.current?.close();
  }

  cursor(): number {
    return this.current?.cursor ?? this.since ?? 0;
  }
}
