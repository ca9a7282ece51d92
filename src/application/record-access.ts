/**
 * How a collection view reaches "only the records this caller holds a permission on": the ids
 * resolved first through the permission backend (any pair of backends, two queries), or the
 * caller's grants handed to a store that joins them with the ACEs (one query). The composition
 * root picks one at startup: the second only where a GrantedRecordStore is bound.
 */
import type { Caller } from "../domain/principals.js";
import { recordIdOf, recordsPattern, type READ, type WRITE } from "../domain/permissions.js";
import type { CountQuery, ListQuery } from "./listing.js";
import type { GrantedRecordStore, Grants } from "./ports/granted-record-store.js";
import type { PermissionStore } from "./ports/permission-store.js";
import type { RecordStore, Scope } from "./ports/record-store.js";
import { boundPermissionsOf, type ResourceDefinition } from "./resources.js";

/** What a collection view reads and deletes through: the whole scope (the RecordStore) or a part. */
export type RecordSelection = Pick<RecordStore, "list" | "count" | "deleteMany">;

export type RecordPermission = typeof READ | typeof WRITE;

export interface GrantedRecords {
  /** The records of the resource on which the caller holds `permission` through their ACLs. */
  select(caller: Caller, resource: ResourceDefinition, permission: RecordPermission): Promise<RecordSelection>;
}

/** Asks the permission backend for the ids first, then restricts every query to them. */
export class GrantsResolvedToIds implements GrantedRecords {
  constructor(
    private readonly records: RecordStore,
    private readonly permissions: PermissionStore,
  ) {}

  async select(caller: Caller, resource: ResourceDefinition, permission: RecordPermission): Promise<RecordSelection> {
    const objects = await this.permissions.principalsAccessibleObjects(
      caller.principals,
      permission,
      recordsPattern(resource.name),
      boundPermissionsOf(resource),
    );
    const ids = [...objects].map((o) => recordIdOf(resource.name, o)).filter((id): id is string => id !== undefined);
    const access = { ids, principals: caller.principals };
    const { records } = this;
    return {
      list: (scope: Scope, query: ListQuery) => records.list(scope, { ...query, access }),
      count: (scope: Scope, query: CountQuery) => records.count(scope, { ...query, access }),
      deleteMany: (scope: Scope, query: CountQuery) => records.deleteMany(scope, { ...query, access }),
    };
  }
}

/** Hands the caller's principals, and the record permissions granting `permission`, to the store. */
export class GrantsJoinedInStore implements GrantedRecords {
  constructor(private readonly store: GrantedRecordStore) {}

  select(caller: Caller, resource: ResourceDefinition, permission: RecordPermission): Promise<RecordSelection> {
    const grants = grantsOf(caller, resource, permission);
    const { store } = this;
    return Promise.resolve({
      list: (scope: Scope, query: ListQuery) => store.list(scope, query, grants),
      count: (scope: Scope, query: CountQuery) => store.count(scope, query, grants),
      deleteMany: (scope: Scope, query: CountQuery) => store.deleteMany(scope, query, grants),
    });
  }
}

/** The record-level permissions that grant `permission` on every record of the resource. */
export function grantsOf(caller: Caller, resource: ResourceDefinition, permission: RecordPermission): Grants {
  const pattern = recordsPattern(resource.name);
  const permissions = boundPermissionsOf(resource)(pattern, permission)
    .filter((b) => b.objectId === pattern)
    .map((b) => b.permission);
  return { principals: caller.principals, permissions, objectIdPrefix: `/${resource.name}/` };
}
