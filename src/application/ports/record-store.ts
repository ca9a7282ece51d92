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
   * Entries in query order, at most `limit`. Work is proportional to the page, not the scope. A
   * listing restricted by an access naming principals also asks the access journal of the same
   * storage (lost tombstones, gained records: see listing.ts).
   */
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
   * Removes tombstones with `last_modified` strictly below `before` (all of them when undefined),
   * in one scope or, when `scope` is undefined, everywhere. Returns how many it removed. The
   * access journal purges its own entries (`tessera purge` runs both).
   */
  purgeTombstones(scope: Scope | undefined, before?: number): Promise<number>;

  /** Deletes everything (records, tombstones, timestamps). For tests and resets. */
  flush(): Promise<void>;

  /** True when the backend answers. Never throws. */
  heartbeat(): Promise<boolean>;

  close(): Promise<void>;
}
