/**
 * The live feed's one reading engine (docs/adr/0016): reads what changed in a scope after the
 * lowest cursor of a group of subscribers (records and tombstones with the ACL of each version,
 * the losses, one filtered read per distinct filter set), page by page, and decides in memory
 * who sees what with the listing's rules (Audience, restricted-view.ts). A burst costs a handful
 * of store calls whatever the number of subscribers.
 *
 * Two groups use it. A replaying subscription is read alone ("solo": a group of one, from its own
 * cursor, started at once, larger pages), so that a long replay never holds up the others; it
 * first gets the records its principals gained after its cursor (a group change), and once it
 * has read everything it is handed over. Its scope's shared reader then reads for it with the
 * others, per burst of signals after `windowMs`, so writers never wait for subscribers.
 */
import type { RecordOrTombstone } from "../../domain/records.js";
import { Audience, entryKey, type SharedRead } from "./feed-audience.js";
import { feedEvent, isSingleWrite, type Subscription } from "./feed-subscription.js";
import type { ChangeAction } from "../events.js";
import { ID_FIELD, MODIFIED_FIELD, type Filter } from "../listing.js";
import type { FeedEvent } from "./feed-types.js";
import type { ChangeSignal } from "../ports/change-broadcast.js";
import type { AccessJournal, RecordedLoss } from "../ports/access-journal.js";
import type { RecordStore, Scope } from "../ports/record-store.js";
import { readersOf, type ChangeReaders, type RecordAcls, type SharedRecords } from "../ports/shared-records.js";
import { readsVersion, showsGained } from "../shared-records/restricted-view.js";

const MAX_PAGES_PER_READ = 1000;
/**
 * Losses of a scope past which a shared read asks for its members' only: below, one statement
 * without the members' principals (thousands of them) is cheaper.
 */
const MANY_LOSSES = 1000;
const ASCENDING = [{ field: MODIFIED_FIELD, descending: false }] as const;

export interface CursorReaderDeps {
  readonly store: RecordStore;
  /** Who lost or gained access after a cursor (restricted subscribers, replays). */
  readonly journal: AccessJournal;
  /** The records with the ACL of each version (one snapshot, or paired by version). */
  readonly shared: SharedRecords;
  /** How the scope's records map to ACLs, as the kind gives them to every SharedRecords call: what is read of each ACL. */
  readonly acls: RecordAcls;
  /**
   * The record permissions through which a restricted listing's grants reach a record
   * (Grants.permissions, what the joined SQL matches ACEs on): a version's readers are the
   * principals its ACL names under them (readersOf), so a restricted subscriber sees what its
   * listing would.
   */
  readonly readPermissions: readonly string[];
  readonly actionOf: (id: string, timestamp: number) => ChangeAction | undefined;
  readonly log: (error: unknown, message: string) => void;
}

/** How a group is read: a scope's shared bursts, or one replaying subscription alone. */
export interface ReadMode {
  /** Entries per read of the changes. */
  readonly page: number;
  /** Pause before a burst, so that close writes share it; undefined: read at once (a replay). */
  readonly windowMs: number | undefined;
  /** Solo: the subscription has read everything up to now and leaves this reader for its scope's. */
  readonly caughtUp?: (subscription: Subscription) => void;
}

export class CursorReader {
  private readonly audience = new Audience<Subscription>();
  private readonly members = new Set<Subscription>();
  private joining: Subscription[] = [];
  private running = false;
  private dirty = false;
  private scheduled = false;
  /** Solo: its gains after the cursor were read (once, before its first read of changes). */
  private gainsRead = false;
  /** Solo: the store narrowed its last read of changes to the members' readers (or was not asked yet). */
  private narrows = true;
  /** The highest timestamp a subscriber of this group has read up to. */
  private highWater = 0;
  /** Single-record writes signalled during a burst: re-checked if the burst read past them. */
  private inFlight: { id: string; timestamp: number }[] = [];
  private readonly recheck = new Map<string, number>();
  /** `id@last_modified` → the readers the last burst found for it: a re-check is needed only if they changed. */
  private seenReaders = new Map<string, ReadonlySet<string>>();

  constructor(
    readonly scope: Scope,
    private readonly deps: CursorReaderDeps,
    private readonly mode: ReadMode,
  ) {}

  get size(): number {
    return this.members.size + this.joining.length;
  }

  /** Reads for `subscription` from its cursor on. */
  join(subscription: Subscription): void {
    this.joining.push(subscription);
    this.highWater = Math.max(this.highWater, subscription.cursor);
    this.wake();
  }

  leave(subscription: Subscription): void {
    this.members.delete(subscription);
    this.audience.delete(subscription);
    this.joining = this.joining.filter((s) => s !== subscription);
  }

  /**
   * Something changed. Where an ACL is written after its record, a burst between the two moves
   * cursors past a record its readers could not see yet; the write's signal, sent after both,
   * then names a timestamp at or below what was read (or arrives during the burst): that record
   * is checked again for its readers.
   */
  wake(signal?: ChangeSignal): void {
    if (this.deps.shared.aclMayTrailRecord && isSingleWrite(signal)) {
      if (this.running) this.inFlight.push({ id: signal.id, timestamp: signal.timestamp });
      else if (signal.timestamp <= this.highWater) this.recheck.set(signal.id, signal.timestamp);
    }
    if (this.running) {
      this.dirty = true;
      return;
    }
    this.schedule();
  }

  subscriptions(): Subscription[] {
    return [...this.members, ...this.joining];
  }

  closeAll(): void {
    for (const subscription of this.subscriptions()) subscription.close();
  }

  private schedule(): void {
    if (this.scheduled) return;
    const start = () => {
      this.scheduled = false;
      this.running = true;
      void this.burst();
    };
    if (this.mode.windowMs === undefined) {
      start();
      return;
    }
    this.scheduled = true;
    setTimeout(start, this.mode.windowMs);
  }

  private async burst(): Promise<void> {
    let complete = false;
    try {
      for (const subscription of this.joining.splice(0)) {
        if (subscription.closed) continue;
        this.members.add(subscription);
        this.audience.add(subscription);
      }
      if (this.members.size === 0) return;
      if (this.mode.caughtUp && !this.gainsRead) {
        this.gainsRead = true;
        for (const subscription of this.members) await this.readGains(subscription);
      }
      complete = await this.readChanges();
      for (const { id, timestamp } of this.inFlight.splice(0)) if (timestamp <= this.highWater) this.recheck.set(id, timestamp);
      await this.readRechecks();
    } catch (error) {
      complete = false;
      // Every member closed meanwhile (a shutdown ends the streams, then closes the pools): nobody to fail.
      if (this.members.size > 0)
        this.deps.log(
          error,
          this.mode.caughtUp
            ? "a live feed subscription failed and was closed"
            : "a live feed read failed; the scope's subscribers were closed",
        );
      for (const subscription of [...this.members]) subscription.close();
    } finally {
      this.running = false;
      // A join or a signal during the burst marked it dirty. Re-checks are left only when nobody
      // is left to read for (no members, or all closed after a failure): no read for them.
      if (this.dirty || (this.mode.caughtUp && !complete && this.members.size > 0)) {
        this.dirty = false;
        this.schedule();
      } else if (complete) this.handOver();
    }
  }

  /** Solo: everything up to now was read; the subscription goes on with its scope's shared reads. */
  private handOver(): void {
    const { caughtUp } = this.mode;
    if (!caughtUp) return;
    for (const subscription of [...this.members]) {
      this.leave(subscription);
      if (!subscription.closed) caughtUp(subscription);
    }
  }

  /**
   * Reads what changed after the lowest cursor, page by page, and delivers it; true once it read
   * up to the scope's timestamp (false when the page budget ran out first, or nobody is left).
   */
  private async readChanges(): Promise<boolean> {
    const { store } = this.deps;
    const { page: size } = this.mode;
    for (let page = 0; page < MAX_PAGES_PER_READ && this.members.size > 0; page += 1) {
      const low = Math.min(...[...this.members].map((s) => s.cursor));
      const upTo = await store.collectionTimestamp(this.scope);
      if (upTo <= low) return true;
      const restricted = this.audience.hasRestricted;
      const readers = this.commonReaders();
      const { entries, judged } = await this.judgedChanges(low, upTo, restricted, readers);
      const last = entries.length === size ? entries[size - 1] : undefined;
      const bound = last ? last.lastModified : upTo;
      const losses = restricted ? (await this.lossesAfter(low, readers)).filter((l) => l.lastModified <= bound) : [];
      const inPage = new Set(entries.map((e) => e.id));
      // A record of the page is judged on its version's ACL (absent: unconfirmed); one only lost, on its ACL now.
      const readersById = new Map([
        ...(await this.readersOf([...new Set(losses.map((l) => l.id))].filter((id) => !inPage.has(id)))),
        ...judged,
      ]);
      // Narrowed, (low, bound] holds more records than the page: the filters are asked about the page's only.
      const matching = await this.matching(low, bound, readers ? entries.filter((e) => !e.deleted).map((e) => e.id) : undefined);
      const read: SharedRead = { entries, bound, losses, readers: readersById, matching };
      if (this.deps.shared.aclMayTrailRecord && restricted)
        for (const entry of entries) {
          const found = judged.get(entry.id);
          if (found) this.seenReaders.set(entryKey(entry), found);
          // Unconfirmed (rewritten meanwhile, or a write in flight): looked at again with the re-checks.
          else if (!entry.deleted) this.recheck.set(entry.id, entry.lastModified);
        }
      const eventOf = this.eventCache();
      for (const [subscription, delivered] of this.audience.deliveries(read)) subscription.deliver(delivered, eventOf);
      for (const subscription of this.members) subscription.cursor = Math.max(subscription.cursor, bound);
      this.highWater = Math.max(this.highWater, bound);
      if (!last) return this.members.size > 0;
    }
    return false;
  }

  /**
   * The losses after `low` the members may be owed. A replay of subscribers restricted alike reads
   * their own. A shared read reads the scope's, unless there are many (a group removal that took
   * thousands of records from other streams, which replay them alone): then only its members'.
   */
  private async lossesAfter(low: number, readers: ChangeReaders | undefined): Promise<RecordedLoss[]> {
    const { journal } = this.deps;
    if (readers) return journal.lostAccessAfter(this.scope, low, { principals: readers.principals });
    const losses = await journal.lostAccessAfter(this.scope, low, { limit: MANY_LOSSES });
    if (losses.length < MANY_LOSSES) return losses;
    return journal.lostAccessAfter(this.scope, low, { principals: this.audience.restrictedPrincipals() });
  }

  /**
   * A replay's records given to its principals after its cursor (a group change) whatever their
   * own timestamp, as a `_since` listing holds them (restricted-view.ts `showsGained`): those its
   * filters keep whose version it reads now, delivered before what changed after the cursor.
   */
  private async readGains(subscription: Subscription): Promise<void> {
    const principals = subscription.principals;
    if (principals === undefined) return;
    const { store, journal, shared } = this.deps;
    const ids = await journal.gainedAccessAfter(this.scope, [...principals], subscription.cursor);
    if (ids.length === 0) return;
    const found = await store.list(this.scope, {
      filters: subscription.request.filters.filter((f) => !isLowerBound(f)),
      sort: ASCENDING,
      limit: ids.length,
      upTo: subscription.cursor,
      includeDeleted: false,
      access: { ids },
    });
    const acls = await shared.aclsOfVersions(found, this.deps.acls);
    const gained = found.filter((record) => {
      const acl = acls.get(record.id);
      const readers = acl && readersOf(this.deps.readPermissions, acl);
      return showsGained(readsVersion(principals, readers), record.lastModified > subscription.cursor);
    });
    // Older than the client's position, each comes because access to it was gained: never a creation.
    subscription.deliver(gained, (entry) => feedEvent(entry, "update"));
  }

  /**
   * A page of the changes in (low, upTo] and, when a restricted subscriber is present, per record
   * the principals that the ACL of exactly the version read grants read to ("judged"). A version
   * must never be judged by another version's ACL (a hidden version by the ACL that re-shares it).
   *
   * Where the ACEs share the records' database, the entries and their ACLs come from one
   * statement (one snapshot). Elsewhere the ACLs are read after the entries, with the version
   * stamp every ACL write made with a record write stores, and paired by the rule a GET uses
   * (kinds/shareable-kind.ts `aclOfVersion`): an ACL of a later write, done or in flight, leaves
   * the version unjudged. A version left unjudged goes to collection-level readers only; the
   * newer version comes with a later read, and one whose write was rolled back is re-checked
   * (readRechecks).
   */
  private async judgedChanges(
    low: number,
    upTo: number,
    restricted: boolean,
    readers: ChangeReaders | undefined,
  ): Promise<{ entries: RecordOrTombstone[]; judged: Map<string, ReadonlySet<string>> }> {
    const range = { after: low, upTo, limit: this.mode.page };
    const { entries, acls, narrowed } = await this.deps.shared.changes(this.scope, range, this.deps.acls, restricted, readers);
    // Not narrowed (they read more than a page): asking again would cost without sparing anything.
    if (readers && narrowed !== true) this.narrows = false;
    const judged = new Map<string, ReadonlySet<string>>();
    for (const [id, acl] of acls) judged.set(id, readersOf(this.deps.readPermissions, acl));
    return { entries, judged };
  }

  /**
   * A replay read alone whose members are all restricted to the same principals: the store may
   * leave out the versions none of them reads (SharedRecords.changes), so that a replay costs
   * what its grants reach, not every change of the scope. Audience still judges each entry;
   * losses are read and judged as for any group. A scope's shared reads stay whole: their bursts
   * are short, and seldom serve one caller alone.
   */
  private commonReaders(): ChangeReaders | undefined {
    if (!this.mode.caughtUp || !this.narrows) return undefined;
    let principals: ReadonlySet<string> | undefined;
    for (const member of this.members) {
      if (member.principals === undefined) return undefined;
      if (principals === undefined) principals = member.principals;
      else if (principals !== member.principals && !sameSet(principals, member.principals)) return undefined;
    }
    return principals && { principals: [...principals], permissions: this.deps.readPermissions };
  }

  /** The readers of each version's own ACL, for the versions whose ACL was not rewritten since (see judgedChanges). */
  private async judged(versions: readonly RecordOrTombstone[]): Promise<Map<string, ReadonlySet<string>>> {
    const acls = await this.deps.shared.aclsOfVersions(versions, this.deps.acls);
    return new Map([...acls].map(([id, acl]) => [id, readersOf(this.deps.readPermissions, acl)] as const));
  }

  /**
   * Records signalled at or below what was read, or read unjudged: sent to readers that have not
   * had them, judged as a burst judges (the record first, then its ACL, then the confirmation).
   */
  private async readRechecks(): Promise<void> {
    const seen = this.seenReaders;
    this.seenReaders = new Map();
    // Only restricted subscribers depend on an ACL: the others saw every record already.
    if (!this.audience.hasRestricted) this.recheck.clear();
    for (const [id, timestamp] of [...this.recheck]) {
      this.recheck.delete(id);
      const record = await this.deps.store.get(this.scope, id);
      if (!record || record.lastModified !== timestamp) continue; // gone or rewritten: a later read has it
      const readers = (await this.judged([record])).get(id);
      if (!readers) {
        // Still being rewritten: looked at again after the writer's commit or rollback.
        this.recheck.set(id, timestamp);
        this.dirty = true;
        continue;
      }
      const before = seen.get(`${id}@${timestamp}`);
      // Judged on the same readers by the burst: nobody's view of it changed since.
      if (before && sameSet(before, readers)) continue;
      const passes = new Map<string, boolean>();
      for (const subscription of this.audience.recipients(record, readers)) {
        if (timestamp > subscription.cursor || timestamp <= subscription.start || subscription.hasSent(id, timestamp)) continue;
        const key = subscription.filterKey;
        if (key !== "" && !passes.has(key)) passes.set(key, await this.keeps(subscription.request.filters, id, timestamp));
        if (key !== "" && passes.get(key) !== true) continue;
        subscription.deliver([record], this.eventCache());
      }
    }
  }

  private async keeps(filters: readonly Filter[], id: string, timestamp: number): Promise<boolean> {
    const found = await this.deps.store.list(this.scope, {
      filters: [...filters, { field: ID_FIELD, operator: "eq", value: id }, { field: MODIFIED_FIELD, operator: "eq", value: timestamp }],
      sort: ASCENDING,
      limit: 1,
      includeDeleted: false,
    });
    return found.length > 0;
  }

  /**
   * Per record id, the principals its ACL grants read to (through `write` and bound permissions
   * too): one read of every ACL per burst (per set of permissions, which records of one resource share).
   */
  private async readersOf(ids: readonly string[]): Promise<Map<string, ReadonlySet<string>>> {
    const acls = await this.deps.shared.currentAcls(ids, this.deps.acls);
    return new Map([...acls].map(([id, acl]) => [id, readersOf(this.deps.readPermissions, acl)] as const));
  }

  /** Per distinct filter set of the members, the records in (low, bound] it keeps (among `ids` when given). */
  private async matching(low: number, bound: number, ids: readonly string[] | undefined): Promise<Map<string, Set<string>>> {
    const sets = new Map<string, readonly Filter[]>();
    for (const subscription of this.members)
      if (subscription.filterKey !== "") sets.set(subscription.filterKey, subscription.request.filters);
    const matching = new Map<string, Set<string>>();
    for (const [key, filters] of sets) {
      const kept = await this.deps.store.list(this.scope, {
        filters: [...filters, { field: MODIFIED_FIELD, operator: "gt", value: low }],
        sort: ASCENDING,
        limit: this.mode.page,
        upTo: bound,
        includeDeleted: false,
        ...(ids ? { access: { ids } } : {}),
      });
      matching.set(key, new Set(kept.map(entryKey)));
    }
    return matching;
  }

  /** One event object per entry, shared by every recipient (the stream serializes it once). */
  private eventCache(): (entry: RecordOrTombstone) => FeedEvent {
    const events = new Map<RecordOrTombstone, FeedEvent>();
    return (entry) => {
      let event = events.get(entry);
      if (!event) {
        event = feedEvent(entry, entry.deleted ? "delete" : this.deps.actionOf(entry.id, entry.lastModified));
        events.set(entry, event);
      }
      return event;
    };
  }
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x));
}

/** A lower bound on `last_modified` in a subscriber's own filters: a gain shows whatever its record's timestamp. */
function isLowerBound(filter: Filter): boolean {
  return filter.field === MODIFIED_FIELD && (filter.operator === "gt" || filter.operator === "min");
}
