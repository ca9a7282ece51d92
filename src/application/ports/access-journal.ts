import type { Scope } from "./record-store.js";

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

/** Which losses `lostAccessAfter` gives: those of some principals only, the first few only. */
export interface LossesWanted {
  readonly principals?: readonly string[];
  readonly limit?: number;
}

/**
 * The access journal (docs/adr/0011, 0015): who lost or gained read access to which records of a
 * scope, and when, and where a change was too large to record record by record (a resync). It
 * lives beside the records: its entries take timestamps of the scope's sequence (RecordStore's
 * collection timestamp), so that a sync from a position sees them as it sees writes. A stamp it
 * takes itself (stampLostAccess, stampGainedAccess, stampResync) is strictly greater than the
 * scope's collection timestamp when taken, and moves it.
 *
 * A listing restricted by an access naming principals (RecordAccess in listing.ts) asks the
 * journal too: the record store of the same storage is given its journal by the composition.
 * Adapters wrap driver failures in BackendError("storage").
 */
export interface AccessJournal {
  /** Creates tables and indices; idempotent. A no-op for memory. */
  initializeSchema(): Promise<void>;

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
   * to tell each restricted subscriber of lost access without one listing per subscriber. With
   * `principals`, only the losses of those principals (each with those of them only): a replay
   * read for one subscriber reads its own, not every loss of the scope. With `limit`, the first
   * `limit` losses only (a full answer: more may follow).
   */
  lostAccessAfter(scope: Scope, after: number, only?: LossesWanted): Promise<RecordedLoss[]>;

  /**
   * Access that changed without a record write (a principal removed from a user or a group,
   * docs/api.md "Sync"): takes new timestamps of the scope, one per distinct record in `lost`
   * (its counter moves; the records' own timestamps do not), and records at each that `principal`
   * lost read access to that record (as recordLostAccessAt would): a tombstone's `last_modified`
   * stays unique in the scope, as a bulk delete's do. Returns the range taken (one timestamp,
   * recording nothing, when `lost` is empty).
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

  /**
   * Removes lost- and gained-access entries and resync marks with `last_modified` strictly below
   * `before` (all of them when undefined), in one scope or, when `scope` is undefined, everywhere.
   * Returns how many lost- and gained-access entries (one per principal and record) it removed;
   * resync marks are not counted. Run with RecordStore.purgeTombstones (`tessera purge`).
   */
  purge(scope: Scope | undefined, before?: number): Promise<number>;

  /** Deletes every entry. For tests and resets. */
  flush(): Promise<void>;
}
