import type { RecordOrTombstone, Tombstone } from "../../domain/records.js";
import type { CountQuery, ListQuery } from "../listing.js";
import type { ObjectPermissions } from "./permission-store.js";
import type { Scope } from "./record-store.js";

/** Records whose own ACL grants one of `permissions` to one of `principals` (object ids under `objectIdPrefix`). */
export interface Grants {
  readonly principals: readonly string[];
  readonly permissions: readonly string[];
  readonly objectIdPrefix: string;
}

/** A page of a scope's changes, each entry with its ACL as of the same snapshot (by record id). */
export interface ChangesWithAcls {
  readonly entries: RecordOrTombstone[];
  readonly acls: ReadonlyMap<string, ObjectPermissions>;
}

/**
 * A capability, not every RecordStore's: list, count and delete the records a caller's grants
 * reach, in one query, because the records and the permission backend's ACEs live in one
 * database. Bound only where that holds (the composition root decides once, at startup); the
 * portable way resolves the ids through the PermissionStore first. Same semantics as the
 * RecordStore methods of the same names, with `grants` as the only access restriction; with
 * tombstones included, a listing also shows the records `grants.principals` lost (RecordAccess).
 */
export interface GrantedRecordStore {
  list(scope: Scope, query: ListQuery, grants: Grants): Promise<RecordOrTombstone[]>;
  count(scope: Scope, query: CountQuery, grants: Grants): Promise<number>;
  deleteMany(scope: Scope, query: CountQuery, grants: Grants): Promise<Tombstone[]>;
  /**
   * The scope's records and tombstones with `last_modified` in (after, upTo], ascending, at most
   * `limit`, each with its ACL restricted to `permissions` (what PermissionStore.objectPermissions gives
   * of `objectIdPrefix` + id) read in the same statement: the live feed's shared read decides on
   * each version with the ACL written with it (docs/adr/0011).
   */
  changesWithAcls(
    scope: Scope,
    range: { readonly after: number; readonly upTo: number; readonly limit: number },
    acl: { readonly objectIdPrefix: string; readonly permissions: readonly string[] },
  ): Promise<ChangesWithAcls>;
}
