/**
 * The live feed wired by hand over the memory adapters, as the composition root wires it for the
 * memory backend, with a sink that records what a subscriber is sent. The memory clock stands
 * still at 100: each write of a scope takes the next integer, so expected timestamps can be
 * written out. Waiting is on what the sink receives, never on time.
 */
import type { Acl } from "../../src/domain/acl.js";
import type { RecordOrTombstone } from "../../src/domain/records.js";
import { Authorizer } from "../../src/application/authorizer.js";
import { ChangeEvents, CommittedChanges } from "../../src/application/events.js";
import type { Filter, ListQuery } from "../../src/application/listing.js";
import { LiveFeed, REPLAY_PAGE, type FeedEvent, type FeedSink } from "../../src/application/feed/live-feed.js";
import { RecordAclEditor } from "../../src/application/shared-records/record-acl-editor.js";
import { resourceKinds } from "../../src/application/kinds/resource-kinds.js";
import { PaginationTokens } from "../../src/application/pagination-token.js";
import type { ChangeBroadcast } from "../../src/application/ports/change-broadcast.js";
import type { LossesWanted, RecordedLoss } from "../../src/application/ports/access-journal.js";
import type { Scope } from "../../src/application/ports/record-store.js";
import { PortableSharedRecords } from "../../src/application/shared-records/portable-shared-records.js";
import type { SharedRecords } from "../../src/application/ports/shared-records.js";
import { RecordService } from "../../src/application/record-service.js";
import { authenticatedRequester, type Requester } from "../../src/application/requester.js";
import type { ResourceDefinition } from "../../src/application/resources.js";
import { InProcessBroadcast } from "../../src/adapters/memory/in-process-broadcast.js";
import { AccessStamps } from "../../src/application/memberships/access-stamps.js";
import { Memberships } from "../../src/application/memberships/memberships.js";
import { MemoryPermissionStore } from "../../src/adapters/memory/memory-permission-store.js";
import { MemoryAccessJournal } from "../../src/adapters/memory/memory-access-journal.js";
import { MemoryRecordStore } from "../../src/adapters/memory/memory-record-store.js";
import { MemoryScopeClocks } from "../../src/adapters/memory/scope-clocks.js";
import { DirectUnitOfWork } from "../../src/adapters/system/direct-unit-of-work.js";

/**
 * A test waiting for a line that never comes fails after this long (the memory feed answers in
 * milliseconds): under mutation testing, a mutant that stops delivery is then a quick failure
 * rather than a run stopped at Stryker's timeout.
 */
export const HANG_GUARD_MS = 2000;

/** Members of `group:readers` may read the whole collection; everyone authenticated may create. */
export const articles: ResourceDefinition = {
  name: "articles",
  kind: "shareable",
  permissions: ["read", "write"],
  settingsPrincipals: { create: ["system.Authenticated"], read: ["group:readers"] },
};
export const notes: ResourceDefinition = { name: "notes", kind: "user", permissions: ["read", "write"], settingsPrincipals: {} };

/**
 * Records what a subscriber gets, one line per event (`create a1@101`, `delete a1@102`), and
 * `live`, `keep-alive`, `end`. Refuses what it is told to refuse (a subscriber that stopped reading).
 */
export class RecordingSink implements FeedSink {
  readonly lines: string[] = [];
  /** Event lines per `send` call. */
  readonly batches: string[][] = [];
  accepts = true;
  acceptsKeepAlive = true;
  acceptsLive = true;
  private waiting: { line: string; resolve: () => void }[] = [];

  send(events: readonly FeedEvent[]): boolean {
    if (!this.accepts) return false;
    const lines = events.map((e) => `${e.event} ${typeof e.data.id === "string" ? e.data.id : "?"}@${e.id}`);
    this.batches.push(lines);
    for (const line of lines) this.log(line);
    return true;
  }

  keepAlive(): boolean {
    this.log("keep-alive");
    return this.acceptsKeepAlive;
  }

  live(): boolean {
    this.log("live");
    return this.acceptsLive;
  }

  end(): void {
    this.log("end");
  }

  resync(): void {
    this.log("resync");
  }

  get events(): string[] {
    return this.lines.filter((line) => line !== "live" && line !== "keep-alive" && line !== "end" && line !== "resync");
  }

  /** Resolves once `line` was recorded (at once if it was). */
  waitFor(line: string): Promise<void> {
    if (this.lines.includes(line)) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push({ line, resolve }));
  }

  private log(line: string): void {
    this.lines.push(line);
    for (const waiter of this.waiting.filter((w) => w.line === line)) waiter.resolve();
    this.waiting = this.waiting.filter((w) => w.line !== line);
  }
}

/**
 * Resolves once every timer set before it with no delay has run: Node runs timers of one delay in
 * the order they were set, so a shared read scheduled until now (the world's window is 0) has
 * started, and, the memory adapters taking no timer, gone as far as it can. An ordering, not a wait.
 */
export function afterPendingReads(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** How many timers are pending in this process: a scope with nothing to read leaves none behind. */
export function pendingTimers(): number {
  return process.getActiveResourcesInfo().filter((resource) => resource === "Timeout").length;
}

/** A memory journal whose next read of losses waits until released (a read caught mid-way). */
export class HoldingJournal extends MemoryAccessJournal {
  private heldLosses: { reached: () => void; released: Promise<void> } | undefined;

  /**
   * The next read of losses (lostAccessAfter) waits as HoldingRecords.holdList's: a restricted
   * subscriber's read is then caught after it read the changes and the ACLs of their versions,
   * before it sends them.
   */
  holdLostAccess(): { reached: Promise<void>; release: () => void; fail: (error: Error) => void } {
    const { hold, handle } = holding();
    this.heldLosses = hold;
    return handle;
  }

  override async lostAccessAfter(scope: Scope, after: number, only?: LossesWanted): Promise<RecordedLoss[]> {
    const held = this.heldLosses;
    if (held) {
      this.heldLosses = undefined;
      held.reached();
      await held.released;
    }
    return super.lostAccessAfter(scope, after, only);
  }
}

/** A memory store whose next list matching a condition waits until released (a read caught mid-way). */
export class HoldingRecords extends MemoryRecordStore {
  private held: { matches: (query: ListQuery) => boolean; reached: () => void; released: Promise<void> } | undefined;
  private heldTimestamp: { skip: number; reached: () => void; released: Promise<void> } | undefined;

  /**
   * The next list whose query `matches` waits for `release` (or fails with the error given to
   * `fail`); `reached` resolves when it starts waiting.
   */
  holdList(matches: (query: ListQuery) => boolean): { reached: Promise<void>; release: () => void; fail: (error: Error) => void } {
    const { hold, handle } = holding();
    this.held = { matches, ...hold };
    return handle;
  }

  /**
   * The collection timestamp read after the next `skip` ones waits as holdList's: a subscribe
   * reads it once to authorize (the listing), then its replay reads it first, even with nothing to read.
   */
  holdTimestamp(skip: number): { reached: Promise<void>; release: () => void; fail: (error: Error) => void } {
    const { hold, handle } = holding();
    this.heldTimestamp = { skip, ...hold };
    return handle;
  }

  override async collectionTimestamp(scope: Scope): Promise<number> {
    const held = this.heldTimestamp;
    if (held && held.skip-- === 0) {
      this.heldTimestamp = undefined;
      held.reached();
      await held.released;
    }
    return super.collectionTimestamp(scope);
  }

  override async list(scope: Scope, query: ListQuery): Promise<RecordOrTombstone[]> {
    const held = this.held;
    if (held?.matches(query)) {
      this.held = undefined;
      held.reached();
      await held.released;
    }
    return super.list(scope, query);
  }
}

function holding(): {
  hold: { reached: () => void; released: Promise<void> };
  handle: { reached: Promise<void>; release: () => void; fail: (error: Error) => void };
} {
  let release = () => {};
  let fail: (error: Error) => void = () => {};
  let reached = () => {};
  const released = new Promise<void>((resolve, reject) => {
    release = resolve;
    fail = reject;
  });
  const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
  return { hold: { reached, released }, handle: { reached: reachedPromise, release, fail } };
}

/** A replay's read of its scope's changes (its own reader's, with replay-sized pages), before it sends anything. */
export const replayRead = (query: ListQuery): boolean => query.includeDeleted && query.limit === REPLAY_PAGE;

export interface FeedWorldOptions {
  /** As on the memory backend (ACLs written after their record): signals are re-checked. */
  readonly aclMayTrailRecord?: boolean;
  readonly keepAliveMs?: number;
  readonly broadcast?: ChangeBroadcast;
}

export class FeedWorld {
  private readonly clocks = new MemoryScopeClocks({ now: () => 100 });
  readonly journal = new HoldingJournal(this.clocks);
  readonly records = new HoldingRecords(this.clocks, this.journal);
  readonly acls = new MemoryPermissionStore();
  /** Record ACL changes as extensions make them (`ExtensionContext.acls`): through SharedRecords, announced. */
  readonly aclChanges: RecordAclEditor;
  readonly events = new ChangeEvents(() => undefined);
  readonly service: RecordService;
  /** Membership changes as the composition root makes them: journaled, then announced. */
  readonly memberships: Memberships;
  readonly feed: LiveFeed;
  readonly logged: string[] = [];
  private nextId = 0;

  /** A started feed where carol reads the whole of articles through `group:readers`: the suites' usual world. */
  static async started(options: FeedWorldOptions = {}): Promise<FeedWorld> {
    const world = new FeedWorld(options);
    await world.acls.addUserPrincipal("carol", "group:readers");
    await world.feed.start();
    return world;
  }

  constructor(options: FeedWorldOptions = {}) {
    // As the composition root wires them: the service records its writes' losses itself.
    const kinds = resourceKinds({ authorizer: new Authorizer(this.acls) });
    const unitOfWork = new DirectUnitOfWork();
    const portable = new PortableSharedRecords(this.records, this.journal, this.acls, unitOfWork);
    // As if ACLs committed with their records (PostgreSQL's): the feed then re-checks no signal.
    const shared: SharedRecords =
      options.aclMayTrailRecord === false
        ? Object.assign(Object.create(portable) as PortableSharedRecords, { aclMayTrailRecord: false })
        : portable;
    this.service = new RecordService({
      records: this.records,
      journal: this.journal,
      kinds,
      shared,
      unitOfWork,
      ids: { generate: () => `g${++this.nextId}` },
      tokens: new PaginationTokens("secret"),
      changes: new CommittedChanges(this.events, unitOfWork),
    });
    this.memberships = new Memberships({
      permissions: this.acls,
      unitOfWork,
      sharesTransaction: false,
      events: this.events,
      stamps: new AccessStamps({
        journal: this.journal,
        permissions: this.acls,
        kinds,
        resources: () => Promise.resolve([articles, notes]),
        touched: (scope, timestamp) => this.events.publishScopeTouched({ scope, timestamp }),
        maxRecords: 1000,
      }),
    });
    this.aclChanges = new RecordAclEditor({
      shared,
      kinds,
      resource: (name) => (name === articles.name ? articles : undefined),
      changes: new CommittedChanges(this.events, unitOfWork),
    });
    this.feed = new LiveFeed({
      records: this.service,
      store: this.records,
      journal: this.journal,
      shared,
      kinds,
      windowMs: 0,
      events: this.events,
      broadcast: options.broadcast ?? new InProcessBroadcast(),
      keepAliveMs: options.keepAliveMs ?? 3_600_000,
      log: (error, message) => void this.logged.push(`${message}: ${error instanceof Error ? error.message : String(error)}`),
    });
  }

  user(id: string): Requester {
    return authenticatedRequester(id, (userId) => this.acls.userPrincipals(userId));
  }

  /** Opens a subscription of `user` to articles (or `resource`); returns its sink. */
  async subscribe(
    user: string,
    since: number | undefined,
    filters: readonly Filter[] = [],
    resource: ResourceDefinition = articles,
  ): Promise<RecordingSink & { close(): void }> {
    const sink = new RecordingSink();
    const requester = this.user(user);
    const subscription = await this.feed.subscribe({ requester, resource, filters, since }, () => sink);
    return Object.assign(sink, { close: () => subscription.close() });
  }

  put(user: string, id: string, data: Record<string, number | string>, permissions?: Acl): Promise<unknown> {
    return this.service.replace(this.user(user), articles, id, { data, ...(permissions ? { permissions } : {}) });
  }
}
