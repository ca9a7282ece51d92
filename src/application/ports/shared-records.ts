/**
 * Records that carry their own ACL (shareable resources), behind one port: whatever needs a
 * record together with its ACL goes through here, never through RecordStore and PermissionStore
 * one after the other in the services. Two implementations, chosen once at startup
 * (docs/adr/0014): PostgreSQL, where records and ACEs share one database (joined statements,
 * group commit, lost access in the write's transaction), and a portable one over any RecordStore
 * and PermissionStore (ids first, ACL version stamps, compensation).
 */
import type { JsonObject } from "../../domain/json.js";
import type { BoundPermission, BoundPermissionsFn } from "../../domain/permissions.js";
import type { RecordOrTombstone, StoredRecord, Tombstone } from "../../domain/records.js";
import type { CountQuery, ListQuery } from "../listing.js";
import type { ObjectPermissions } from "./permission-store.js";
import type { ConditionalWriteOptions, Scope, WriteOptions } from "./record-store.js";

/** How the records of one resource map to ACLs in the permission backend: pure policy, given by the kind. */
export interface RecordAcls {
  /** `/<resource>/`: a record's object id is this prefix and its id. */
  readonly objectIdPrefix: string;
  /** Every permission a record's ACL may hold (what a read of its ACL returns). */
  readonly permissions: readonly string[];
  /** The permissions on the record itself that grant read on it (`read`, `write`, bound ones). */
  readonly readPermissions: (objectId: string) => readonly string[];
  /**
   * The grants on other objects (a tree record's collection and bucket) that decide the records'
   * views, read with a record (SharedRead.inherited) so a decision needs no second read; none when undefined.
   */
  readonly inherited?: readonly BoundPermission[];
}

/**
 * Records on which one of `principals` holds `permission` through the record's own ACL:
 * `permissions` are the record permissions that grant it (`read` and `write` for `read`, what
 * `boundPermissions` adds), the same fact for a store that joins ACEs by name.
 */
export interface Grants {
  readonly principals: readonly string[];
  readonly permission: string;
  readonly boundPermissions: BoundPermissionsFn;
  readonly permissions: readonly string[];
}

/** A record's whole ACL: every permission named (an empty list empties it). */
export type AclEntries = Readonly<Record<string, readonly string[]>>;

export interface SharedRead {
  /** As RecordStore.get: undefined when missing or deleted. */
  readonly record: StoredRecord | undefined;
  /**
   * The ACL of that very version (RecordAcls.permissions), or undefined when no ACL could be
   * paired with it (a writer died between its record and ACL writes): then it grants nothing.
   */
  readonly acl: ObjectPermissions | undefined;
  /** As PermissionStore.userPrincipals(principalsOf); undefined when not asked. */
  readonly principals: Set<string> | undefined;
  /** The ACLs of RecordAcls.inherited's objects, restricted to its permissions, by object id; undefined when not asked. */
  readonly inherited?: InheritedAcls;
}

/** ACLs of other objects read with a record, by object id: every permission asked is a key (an empty set when none holds it). */
export type InheritedAcls = ReadonlyMap<string, ObjectPermissions>;

/** A change of a record's ACL made with a record write. */
export interface AclChange {
  /** The ACL after the write (whole), and before it, with the version it belonged to. */
  readonly acl: AclEntries;
  readonly previous: AclEntries;
  readonly previousVersion: number;
}

/** What a write did: the record (or tombstone), and who lost read access at its `lastModified`. */
export interface SharedWrite<R> {
  readonly written: R;
  readonly lost: readonly string[];
}

/** What a collection view reads and deletes through: every record of the scope, or those some grants reach. */
export interface RecordSelection {
  list(scope: Scope, query: ListQuery): Promise<RecordOrTombstone[]>;
  count(scope: Scope, query: CountQuery): Promise<number>;
  deleteMany(scope: Scope, query: CountQuery): Promise<Tombstone[]>;
}

/** A page of a scope's changes, each version with the ACL that governed it (by record id; absent: not paired). */
export interface ChangesWithAcls {
  readonly entries: RecordOrTombstone[];
  readonly acls: ReadonlyMap<string, ObjectPermissions>;
  /** The entries were narrowed to the `readers` asked (SharedRecords.changes). */
  readonly narrowed?: boolean;
}

export interface ChangeRange {
  readonly after: number;
  readonly upTo: number;
  readonly limit: number;
}

/**
 * A restricted reader of changes (every reader of a group restricted to the same principals, as a
 * solo replay is): a version shows to it when its ACL gives one of `permissions` to one of
 * `principals` (restricted-view.ts readsVersion, readersOf).
 */
export interface ChangeReaders {
  readonly principals: readonly string[];
  readonly permissions: readonly string[];
}

export interface SharedRecords {
  /**
   * True where an ACL may become visible after its record (written outside the record's
   * transaction): a reader of changes may then have judged a version before its ACL existed,
   * and re-checks the single writes it is told about (the live feed does).
   */
  readonly aclMayTrailRecord: boolean;

  /** The record, the ACL of that version and, when `principalsOf` is set, that user's extra principals: one snapshot. */
  read(scope: Scope, id: string, acls: RecordAcls, principalsOf: string | undefined): Promise<SharedRead>;

  /** As RecordStore.create (ConflictError when a live record has the id), its ACL stored with it. No access is lost by a create. */
  create(scope: Scope, id: string, data: JsonObject, options: WriteOptions, acls: RecordAcls, acl: AclEntries): Promise<StoredRecord>;

  /**
   * As RecordStore.update and, with it, the ACL change when given; who lost read by the change
   * lost it at the written record's `lastModified` (recorded in the same unit of work).
   */
  update(
    scope: Scope,
    id: string,
    data: JsonObject,
    options: ConditionalWriteOptions,
    acls: RecordAcls,
    change: AclChange | undefined,
  ): Promise<SharedWrite<StoredRecord>>;

  /** As RecordStore.delete, the record's ACL deleted with it: every reader lost it at the tombstone's timestamp. */
  delete(
    scope: Scope,
    id: string,
    options: ConditionalWriteOptions,
    acls: RecordAcls,
    previous: { readonly acl: AclEntries; readonly version: number },
  ): Promise<SharedWrite<Tombstone>>;

  /**
   * The records of the scope a collection view works on: every one (`grants` undefined) or those
   * `grants` reach. With tombstones included, a restricted listing also shows what the grants'
   * principals lost (docs/adr/0011). Its deleteMany deletes the records' ACLs too, and records
   * each reader's loss at the record's tombstone timestamp.
   */
  select(acls: RecordAcls, grants: Grants | undefined): Promise<RecordSelection>;

  /**
   * The scope's records and tombstones with `last_modified` in (after, upTo], ascending, at most
   * `limit`; with `withAcls`, each version with the ACL (RecordAcls.permissions) that governed it,
   * read in the same snapshot or paired by version: a version's ACL is never a later write's.
   * With `readers` (and `withAcls`), a store may leave out the versions whose ACL shows them
   * nothing (`limit` then counts the others, `narrowed` says so), judged in the same snapshot,
   * or where there is none by the ACL as it is when read (an ACL being rewritten then decides:
   * docs/adr/0016); the caller still judges every entry it gets.
   */
  changes(scope: Scope, range: ChangeRange, acls: RecordAcls, withAcls: boolean, readers?: ChangeReaders): Promise<ChangesWithAcls>;

  /** The records' ACLs as they are now (whatever version they belong to), by id: one read per set of permissions. */
  currentAcls(ids: readonly string[], acls: RecordAcls): Promise<Map<string, ObjectPermissions>>;

  /** The ACLs that governed these versions, for those that can be paired (the rule of `changes`). */
  aclsOfVersions(versions: readonly RecordOrTombstone[], acls: RecordAcls): Promise<Map<string, ObjectPermissions>>;
}

/** The readers an ACL gives a record (through its read-granting permissions). */
export function readersOf(readPermissions: readonly string[], acl: Readonly<Record<string, Iterable<string>>>): Set<string> {
  return new Set(readPermissions.flatMap((permission) => [...(acl[permission] ?? [])]));
}

/** Those who read the record under `before` and not under `after`. */
export function lostBetween(readPermissions: readonly string[], before: AclEntries, after: AclEntries): string[] {
  const remaining = readersOf(readPermissions, after);
  return [...readersOf(readPermissions, before)].filter((principal) => !remaining.has(principal));
}
