/**
 * How "only the records this caller holds a permission on" reaches the record store: as the ids
 * resolved beforehand through the permission backend (any pair of backends), or as the caller's
 * grants, which a store sharing its database with the ACEs resolves itself (one query).
 */
import type { Caller } from "../domain/principals.js";
import { recordIdOf, recordsPattern, type READ, type WRITE } from "../domain/permissions.js";
import type { RecordAccess } from "./listing.js";
import type { PermissionStore } from "./ports/permission-store.js";
import { boundPermissionsOf, type ResourceDefinition } from "./resources.js";

export interface RecordAccessResolver {
  accessFor(caller: Caller, resource: ResourceDefinition, permission: typeof READ | typeof WRITE): Promise<RecordAccess>;
}

/** Asks the permission backend which records of the collection the caller may use. */
export class AccessByIds implements RecordAccessResolver {
  constructor(private readonly permissions: PermissionStore) {}

  async accessFor(caller: Caller, resource: ResourceDefinition, permission: typeof READ | typeof WRITE): Promise<RecordAccess> {
    const objects = await this.permissions.principalsAccessibleObjects(caller.principals, permission, recordsPattern(resource.name), boundPermissionsOf(resource));
    const ids = [...objects].map((o) => recordIdOf(resource.name, o)).filter((id): id is string => id !== undefined);
    return { kind: "ids", ids, principals: caller.principals };
  }
}

/** Hands the caller's principals and the record permissions granting `permission` to the store. */
export class AccessByGrants implements RecordAccessResolver {
  accessFor(caller: Caller, resource: ResourceDefinition, permission: typeof READ | typeof WRITE): Promise<RecordAccess> {
    const pattern = recordsPattern(resource.name);
    const permissions = boundPermissionsOf(resource)(pattern, permission)
      .filter((b) => b.objectId === pattern)
      .map((b) => b.permission);
    return Promise.resolve({ kind: "principals", principals: caller.principals, permissions, objectIdPrefix: `/${resource.name}/` });
  }
}
