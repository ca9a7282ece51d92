import type { JsonObject } from "../../domain/json.js";
import type { RecordOrTombstone, StoredRecord, Tombstone } from "../../domain/records.js";
import type { CountQuery, ListQuery } from "../listing.js";

/**
 * Where records of one collection live: `collection` is the resource name, `parentId` is "" for
 * shareable resources and the owner's user id for user resources (each owner has their own ids
 * and their own timestamp sequence).
 */
/** The timestamp of a scope never written: constant, so that reading it creates nothing. */
export const NEVER_WRITTEN = 0;

export interface Scope {
  readonly collection: string;
  readonly parentId: string;
}

export interface WriteOptions {
  /** A client-requested timestamp; honoured only when above the collection timestamp. */
  readonly lastModified?: number;
}

/** Principals whose newest loss of record `id` (recordLostAccessAt) happened at `lastModified`. */
export interface RecordedLoss {
  readonly id: string;
  readonly lastModified: number;
  readonly principals: readonly string[];
}

/** Timestamps taken together, from `first` to `last` (the scope's timestamp after them). */
export interface StampRange {
  readonly first: number;
  readonly last: number;
}

export interface ConditionalWriteOptions extends WriteOptions {
  /** Write only if the stored record has exactly this `last_modified` (checked atomically). */
  readonly ifMatch?: number;
}

/**
 * Storage of records and tombstones.
 * Every write in a scope gets a `last_modified` strictly greater than the scope's collection
 * timestamp, decided by the store itself (in the database for shared stores), never by a caller.
 * Adapters wrap driver failures in BackendError("storage").
 */
export interface RecordStore {
  /** Creates tables and indices; idempotent. A no-op for memory. */
  initializeSchema(): Promise<void>;

  /** The live record, or undefined when missing or deleted. */
  get(scope: Scope, id: string): Promise<StoredRecord | undefined>;

  /**
   * Creates a record (also over a tombstone, which it replaces).
   * Throws ConflictError(existing record body) when a live record has this id.
   */
  create(scope: Scope, id: string, data: JsonObject, options?: WriteOptions): Promise<StoredRecord>;

  /**
   * Replaces the data of a live record. Throws RecordNotFoundError when missing, and
   * PreconditionFailedError(existing body) when `ifMatch` differs from the stored timestamp
   * (PreconditionFailedError(null) when `ifMatch` is given and the record is missing).
   */
  update(scope: Scope, id: string, data: JsonObject, options?: ConditionalWriteOptions): Promise<StoredRecord>;

  /**
   * Deletes a live record, leaving a tombstone with a new timestamp. Same errors as update.
   */
  delete(scope: Scope, id: string, options?: ConditionalWriteOptions): Promise<Tombstone>;

  /**
   * Deletes every live record matching the query (filters and access), returning their
   * tombstones (sorted by `last_modified` ascending). An empty match deletes nothing.
   */
  deleteMany(scope: Scope, query: CountQuery): Promise<Tombstone[]>;

  /**
   * Records lost read access caused by writes of this scope that already took their timestamps
   * (a record's update or its tombstone): each loss at its write's `lastModified`, so that whoever
   * lost the record syncs the timestamp the write answered. The scope's timestamp is not moved.
   * Losses without principals are skipped; a newer loss of the same record by a principal
   * replaces its entry. Listings restricted by an access naming these principals then show the
   * record as a tombstone while it is not readable to the caller (RecordAccess, docs/adr/0011).
   * Called by SharedRecords only, in the unit of work of the write that caused the losses.
   */
  recordLostAccessAt(scope: Scope, losses: readonly RecordedLoss[]): Promise<void>;

  /**
   * The losses still recorded (not superseded by a newer loss of the same record by the same
   * principal, nor purged) with `last_modified` above `after`, ascending: what the live feed needs
   * to tell each restricted subscriber of lost access without one listing per subscriber.
   */
  lostAccessAfter(scope: Scope, after: number): Promise<RecordedLoss[]>;

  /**
   * Access that changed without a record write (a principal removed from a user or a group,
   * docs/api.md "Sync"): takes new timestamps of the scope, one per distinct record in `lost`
   * (its counter moves; the records' own timestamps do not), and records at each that `principal`
   * lost read access to that record (as recordLostAccessAt would): a tombstone's `last_modified`
   * stays unique in the scope, as a bulk delete's do. Returns the range taken.
   */
  stampLostAccess(scope: Scope, principal: string, lost: readonly string[]): Promise<StampRange>;

  /** The ids of the records `principal` lost (still recorded, not purged): what a holder of it may be owed once it leaves. */
  lostAccessOf(scope: Scope, principal: string): Promise<string[]>;

  /**
   * As stampLostAccess, for access gained without a record write (a principal given to a user
   * or a group): `principal` was given read access to `gained` at the new timestamp returned. A
   * listing restricted by an access naming `principal`, bounded below in `last_modified` (a
   * `_since` sync, a feed's replay), then also holds each of these records that the caller can
   * read now, whatever its own timestamp, while the gain satisfies the lower bounds (RecordAccess).
   */
  stampGainedAccess(scope: Scope, principal: string, gained: readonly string[]): Promise<number>;

  /**
   * A change of `principal`'s access too large to record record by record (past
   * `group_change_max_records`, or a whole collection): takes a new timestamp of the scope and
   * records that a sync of a caller holding `principal` from a position before it cannot be
   * brought up to date incrementally (resyncAfter). Returns the timestamp.
   */
  stampResync(scope: Scope, principal: string): Promise<number>;

  /** The newest resync (stampResync) of one of `principals` above `after`; undefined when none. */
  resyncAfter(scope: Scope, principals: readonly string[], after: number): Promise<number | undefined>;

  /** The ids some of `principals` gained (stampGainedAccess) at a timestamp above `after`: candidates for a restricted sync. */
  gainedAccessAfter(scope: Scope, principals: readonly string[], after: number): Promise<string[]>;

  /** Entries in query order, at most `limit`. Work is proportional to the page, not the scope. */
  list(scope: Scope, query: ListQuery): Promise<RecordOrTombstone[]>;

  /** Live records matching filters and access (tombstones never count). */
  count(scope: Scope, query: CountQuery): Promise<number>;

  /**
   * The scope's timestamp: the newest write (deletes included). For a scope never written,
   * NEVER_WRITTEN: a read stores nothing (a standby can answer it, an invented reader leaves no
   * state), and the value stays stable until the first write, which is stamped above it.
   */
  collectionTimestamp(scope: Scope): Promise<number>;

  /**
   * Removes tombstones and lost-access entries with `last_modified` strictly below `before` (all
   * of them when undefined), in one scope or, when `scope` is undefined, everywhere. Returns how
   * many tombstones and lost- and gained-access entries (one per principal and record) it removed.
   */
  purgeTombstones(scope: Scope | undefined, before?: number): Promise<number>;

  /** Deletes everything (records, tombstones, timestamps). For tests and resets. */
  flush(): Promise<void>;

  /** True when the backend answers. Never throws. */
  heartbeat(): Promise<boolean>;

  close(): Promise<void>;
}
