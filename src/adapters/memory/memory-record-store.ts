/**
 * RecordStore kept in process memory: for tests, development and single-process use. It passes
 * the same contract suite as PostgreSQL, so the layers above can trust it. Access by ids looks
 * those ids up; a listing bounded below on `last_modified` (`_since`, the live feed) reads the
 * scope's change log from that bound; other listings scan the scope (no indexes on fields). A
 * listing restricted by an access naming principals asks the memory access journal (lost
 * tombstones, gained records); both take their timestamps from the same scope clocks.
 */
/* eslint-disable @typescript-eslint/require-await -- the port is async; memory has nothing to await, and async keeps errors as rejections */
import type { JsonObject } from "../../domain/json.js";
import { ConflictError, PreconditionFailedError, RecordNotFoundError } from "../../domain/errors.js";
import { recordBody, splitManagedFields, type RecordOrTombstone, type StoredRecord, type Tombstone } from "../../domain/records.js";
import { showsGained } from "../../application/shared-records/restricted-view.js";
import { MODIFIED_FIELD, type CountQuery, type Filter, type ListQuery, type RecordAccess } from "../../application/listing.js";
import type { Clock } from "../../application/ports/clock.js";
import {
  NEVER_WRITTEN,
  type ConditionalWriteOptions,
  type RecordStore,
  type Scope,
  type WriteOptions,
} from "../../application/ports/record-store.js";
import { ChangeLog } from "./change-log.js";
import { MemoryAccessJournal } from "./memory-access-journal.js";
import { MemoryScopeClocks, scopeKey } from "./scope-clocks.js";
import { compileAccess, compileAfter, compileFilters, compileSort } from "./record-matching.js";

interface ScopeState {
  readonly records: Map<string, StoredRecord>;
  readonly tombstones: Map<string, Tombstone>;
  /** Ids of records and tombstones in `last_modified` order (an id is current while its entry has that timestamp). */
  readonly changes: ChangeLog<string>;
}

/** Callers get copies: mutating a returned record must never change what is stored. */
function copyRecord(record: StoredRecord): StoredRecord {
  return { id: record.id, lastModified: record.lastModified, data: structuredClone(record.data) };
}

function copyTombstone(tombstone: Tombstone): Tombstone {
  return { id: tombstone.id, lastModified: tombstone.lastModified, deleted: true };
}

function copyEntry(entry: RecordOrTombstone): RecordOrTombstone {
  return entry.deleted ? copyTombstone(entry) : copyRecord(entry);
}

/** Stored data never holds the managed fields, and never shares objects with the caller. */
function ownData(data: JsonObject): JsonObject {
  return splitManagedFields(structuredClone(data)).fields;
}

/**
 * The entries of `map` a query may reach. Access by ids reads just those ids (a listing costs what
 * the caller may see, not the scope's size), unless they outnumber the map, where a scan is
 * cheaper. Callers still apply the access predicate, so both paths keep the same entries.
 */
function reachable<T>(map: ReadonlyMap<string, T>, access: RecordAccess | undefined): Iterable<T> {
  if (access === undefined || access.ids.length >= map.size) return map.values();
  const found: T[] = [];
  for (const id of new Set(access.ids)) {
    const entry = map.get(id);
    if (entry !== undefined) found.push(entry);
  }
  return found;
}

/**
 * The lowest `last_modified` a query's filters allow (`gt`/`min` on a number), or undefined: the
 * change log can then serve the listing from there. The filters still decide, so it only narrows.
 */
function isLowerBound(f: Filter): f is Filter & { value: number } {
  return (
    f.field === MODIFIED_FIELD && typeof f.value === "number" && Number.isFinite(f.value) && (f.operator === "gt" || f.operator === "min")
  );
}

function sinceBound(filters: ListQuery["filters"]): { after: number; inclusive: boolean } | undefined {
  let bound: { after: number; inclusive: boolean } | undefined;
  for (const f of filters) {
    if (!isLowerBound(f)) continue;
    const candidate = { after: f.value, inclusive: f.operator === "min" };
    if (!bound || candidate.after > bound.after || (candidate.after === bound.after && !candidate.inclusive)) bound = candidate;
  }
  return bound;
}

function requestedTimestamp(options: WriteOptions | undefined): number | undefined {
  const requested = options?.lastModified;
  return requested !== undefined && Number.isSafeInteger(requested) && requested >= 0 ? requested : undefined;
}

export class MemoryRecordStore implements RecordStore {
  private readonly scopes = new Map<string, ScopeState>();

  /** `clocks` and `journal`: the scope timestamps it shares with its access journal, and that journal. */
  constructor(
    private readonly clocks: MemoryScopeClocks,
    private readonly journal: MemoryAccessJournal,
  ) {}

  /** Scopes holding state (written at least once): for tests that prove reads store nothing. */
  get scopeCount(): number {
    return this.scopes.size;
  }

  async initializeSchema(): Promise<void> {}

  async get(scope: Scope, id: string): Promise<StoredRecord | undefined> {
    const record = this.peek(scope)?.records.get(id);
    return record && copyRecord(record);
  }

  async create(scope: Scope, id: string, data: JsonObject, options?: WriteOptions): Promise<StoredRecord> {
    const state = this.state(scope);
    const existing = state.records.get(id);
    if (existing) throw new ConflictError(recordBody(copyRecord(existing)));
    const record: StoredRecord = { id, lastModified: this.stamp(scope, options), data: ownData(data) };
    if (state.tombstones.delete(id)) state.changes.superseded();
    state.records.set(id, record);
    state.changes.append(id, record.lastModified);
    return copyRecord(record);
  }

  async update(scope: Scope, id: string, data: JsonObject, options?: ConditionalWriteOptions): Promise<StoredRecord> {
    const state = this.existingScope(scope, id, options);
    this.existing(scope, state, id, options);
    const record: StoredRecord = { id, lastModified: this.stamp(scope, options), data: ownData(data) };
    state.records.set(id, record);
    state.changes.append(id, record.lastModified);
    state.changes.superseded();
    return copyRecord(record);
  }

  async delete(scope: Scope, id: string, options?: ConditionalWriteOptions): Promise<Tombstone> {
    const state = this.existingScope(scope, id, options);
    this.existing(scope, state, id, options);
    return copyTombstone(this.bury(scope, state, id, options));
  }

  async deleteMany(scope: Scope, query: CountQuery): Promise<Tombstone[]> {
    const state = this.peek(scope);
    if (!state) return [];
    const matching = this.liveMatching(state, query).sort((a, b) => a.lastModified - b.lastModified);
    // Oldest first, so the tombstones come out ascending by their new timestamps.
    return matching.map((record) => copyTombstone(this.bury(scope, state, record.id, undefined)));
  }

  async list(scope: Scope, query: ListQuery): Promise<RecordOrTombstone[]> {
    const allowed = compileAccess(query.access);
    const state = this.peek(scope);
    if (!state || query.limit <= 0) return [];
    const matches = compileFilters(query.filters);
    const isAfter = compileAfter(query.sort, query.after);
    const upTo = query.upTo ?? Number.POSITIVE_INFINITY;
    const keep = (entry: RecordOrTombstone) => entry.lastModified <= upTo && allowed(entry) && matches(entry) && isAfter(entry);
    const kept: RecordOrTombstone[] = [];
    const since = sinceBound(query.filters);
    if (since && (query.access === undefined || state.changes.sizeAfter(since.after, since.inclusive) < query.access.ids.length)) {
      // Fewer changes since the bound than ids to look up (or no ids at all): the log has them all.
      for (const { key } of state.changes.after(since.after, since.inclusive)) {
        const entry = state.records.get(key) ?? (query.includeDeleted ? state.tombstones.get(key) : undefined);
        if (entry && keep(entry)) kept.push(entry);
      }
    } else {
      for (const record of reachable(state.records, query.access)) if (keep(record)) kept.push(record);
      if (query.includeDeleted)
        for (const tombstone of reachable(state.tombstones, query.access)) if (keep(tombstone)) kept.push(tombstone);
    }
    if (query.includeDeleted && query.access?.principals) {
      // Records the caller's principals lost, as tombstones, from the journal (RecordAccess).
      const lost = this.journal.tombstonesFor(scope, query.access.principals, new Set(query.access.ids));
      const ungranted = (entry: RecordOrTombstone) => entry.lastModified <= upTo && matches(entry) && isAfter(entry);
      for (const tombstone of lost) if (ungranted(tombstone)) kept.push(tombstone);
    }
    if (since && query.access?.principals) {
      // Records given to the caller after the position, whatever their own timestamp (RecordAccess).
      const beyond = (t: number) => (since.inclusive ? t >= since.after : t > since.after);
      const others = compileFilters(query.filters.filter((f) => !isLowerBound(f)));
      const readable = new Set(query.access.ids);
      for (const id of this.journal.idsGained(scope, query.access.principals, (t) => t <= upTo && beyond(t))) {
        const record = state.records.get(id);
        if (
          record &&
          showsGained(readable.has(id), beyond(record.lastModified)) &&
          record.lastModified <= upTo &&
          others(record) &&
          isAfter(record)
        )
          kept.push(record);
      }
    }
    // Only the returned page is copied: stored entries never leave, the others are not touched.
    return kept.sort(compileSort(query.sort)).slice(0, query.limit).map(copyEntry);
  }

  async count(scope: Scope, query: CountQuery): Promise<number> {
    const allowed = compileAccess(query.access);
    const state = this.peek(scope);
    if (!state) return 0;
    const matches = compileFilters(query.filters);
    let total = 0;
    for (const record of reachable(state.records, query.access)) if (allowed(record) && matches(record)) total += 1;
    return total;
  }

  async collectionTimestamp(scope: Scope): Promise<number> {
    // A read stores nothing: invented readers must leave no state behind.
    return this.clocks.current(scope) ?? NEVER_WRITTEN;
  }

  async purgeTombstones(scope: Scope | undefined, before?: number): Promise<number> {
    const states = scope === undefined ? [...this.scopes.values()] : [this.peek(scope)].filter((s) => s !== undefined);
    let purged = 0;
    for (const state of states) {
      for (const [id, tombstone] of state.tombstones) {
        if (before !== undefined && tombstone.lastModified >= before) continue;
        state.tombstones.delete(id);
        state.changes.superseded();
        purged += 1;
      }
    }
    // Scope timestamps stay: later writes must still come after the purged deletes.
    return purged;
  }

  async flush(): Promise<void> {
    this.scopes.clear();
    this.clocks.clear();
  }

  async heartbeat(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {}

  private peek(scope: Scope): ScopeState | undefined {
    return this.scopes.get(scopeKey(scope));
  }

  private state(scope: Scope): ScopeState {
    const key = scopeKey(scope);
    let state = this.scopes.get(key);
    if (!state) {
      const records = new Map<string, StoredRecord>();
      const tombstones = new Map<string, Tombstone>();
      const changes = new ChangeLog<string>(
        ({ key: id, lastModified }) => (records.get(id) ?? tombstones.get(id))?.lastModified === lastModified,
      );
      state = { records, tombstones, changes };
      this.scopes.set(key, state);
    }
    return state;
  }

  /** The scope of a record to rewrite: a missing scope fails as its missing record does, creating nothing. */
  private existingScope(scope: Scope, id: string, options: ConditionalWriteOptions | undefined): ScopeState {
    const state = this.peek(scope);
    if (state) return state;
    throw options?.ifMatch !== undefined ? new PreconditionFailedError(null) : new RecordNotFoundError(scope.collection, id);
  }

  /** The live record a conditional write targets, after checking `ifMatch`. */
  private existing(scope: Scope, state: ScopeState, id: string, options: ConditionalWriteOptions | undefined): StoredRecord {
    const record = state.records.get(id);
    // With ifMatch, a record deleted meanwhile fails the precondition (api-contract §7).
    if (!record) throw options?.ifMatch !== undefined ? new PreconditionFailedError(null) : new RecordNotFoundError(scope.collection, id);
    if (options?.ifMatch !== undefined && options.ifMatch !== record.lastModified) {
      throw new PreconditionFailedError(recordBody(copyRecord(record)));
    }
    return record;
  }

  /** Replaces a live record by a tombstone with a new timestamp. */
  private bury(scope: Scope, state: ScopeState, id: string, options: WriteOptions | undefined): Tombstone {
    const tombstone: Tombstone = { id, lastModified: this.stamp(scope, options), deleted: true };
    state.records.delete(id);
    state.tombstones.set(id, tombstone);
    state.changes.append(id, tombstone.lastModified);
    state.changes.superseded();
    return tombstone;
  }

  private liveMatching(state: ScopeState, query: CountQuery): StoredRecord[] {
    const allowed = compileAccess(query.access);
    const matches = compileFilters(query.filters);
    const found: StoredRecord[] = [];
    for (const record of reachable(state.records, query.access)) if (allowed(record) && matches(record)) found.push(record);
    return found;
  }

  /** Next timestamp of the scope: strictly above its current one, honouring a newer request. */
  private stamp(scope: Scope, options: WriteOptions | undefined): number {
    return this.clocks.next(scope, requestedTimestamp(options));
  }
}

/** A record store class over the memory storage's scope clocks and journal (tests derive some). */
type MemoryRecordStoreClass<S extends MemoryRecordStore> = new (clocks: MemoryScopeClocks, journal: MemoryAccessJournal) => S;

/** The memory storage: a record store (of class `Store`) and its access journal, over the same scope clocks. */
export function memoryStorage(clock: Clock): { records: MemoryRecordStore; journal: MemoryAccessJournal };
export function memoryStorage<S extends MemoryRecordStore>(
  clock: Clock,
  Store: MemoryRecordStoreClass<S>,
): { records: S; journal: MemoryAccessJournal };
export function memoryStorage(
  clock: Clock,
  Store: MemoryRecordStoreClass<MemoryRecordStore> = MemoryRecordStore,
): { records: MemoryRecordStore; journal: MemoryAccessJournal } {
  const clocks = new MemoryScopeClocks(clock);
  const journal = new MemoryAccessJournal(clocks);
  return { records: new Store(clocks, journal), journal };
}
