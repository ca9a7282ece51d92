import type { RecordOrTombstone, Tombstone } from "../../domain/records.js";
import type { CountQuery, ListQuery } from "../listing.js";
import type { Scope } from "./record-store.js";

/** Records whose own ACL grants one of `permissions` to one of `principals` (object ids under `objectIdPrefix`). */
export interface Grants {
  readonly principals: readonly string[];
  readonly permissions: readonly string[];
  readonly objectIdPrefix: string;
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
}
