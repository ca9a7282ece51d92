/**
 * Decides whether a caller holds a permission on an object: first the settings principals
 * (a collection-level grant from configuration), then the permission backend through the
 * resource's bound permissions, all behind the resource's own policy when it has one.
 */
import type { Acl } from "../domain/acl.js";
import { ForbiddenError, UnauthenticatedError } from "../domain/errors.js";
import { collectionObjectId } from "../domain/permissions.js";
import type { Caller } from "../domain/principals.js";
import type { PermissionStore } from "./ports/permission-store.js";
import { boundPermissionsOf, type ResourceDefinition, type ViewName } from "./resources.js";

export class Authorizer {
  /** Without a permission backend, pass NO_PERMISSION_STORE: only settings principals grant. */
  constructor(private readonly permissions: PermissionStore) {}

  /**
   * `knownAcl`, the object's own ACL when the caller already fetched it (with the record), decides
   * every grant on the object itself: only grants elsewhere (the collection) are asked of the backend.
   */
  async allowed(
    caller: Caller,
    resource: ResourceDefinition,
    view: ViewName,
    objectId: string,
    permission: string,
    knownAcl?: Acl,
  ): Promise<boolean> {
    const decide = () => this.defaultDecision(caller, resource, objectId, permission, knownAcl);
    if (!resource.authorization) return decide();
    return resource.authorization.permits({ caller, resource, view, objectId, permission }, decide);
  }

  /** Throws 401 (anonymous) or 403 (authenticated) unless allowed. */
  async require(
    caller: Caller,
    resource: ResourceDefinition,
    view: ViewName,
    objectId: string,
    permission: string,
    knownAcl?: Acl,
  ): Promise<void> {
    if (!(await this.allowed(caller, resource, view, objectId, permission, knownAcl))) throw denial(caller);
  }

  /** Whether the caller holds `permission` on the collection itself (so on every record of it). */
  collectionAllowed(caller: Caller, resource: ResourceDefinition, view: ViewName, permission: string): Promise<boolean> {
    return this.allowed(caller, resource, view, collectionObjectId(resource.name), permission);
  }

  /** Whether the settings principals alone grant `permission` on the whole collection (no backend asked). */
  settingsGrant(caller: Caller, resource: ResourceDefinition, permission: string): boolean {
    const collection = collectionObjectId(resource.name);
    return boundPermissionsOf(resource)(collection, permission).some(
      (grant) => grant.objectId === collection && holdsAny(caller, resource.settingsPrincipals[grant.permission]),
    );
  }

  private async defaultDecision(
    caller: Caller,
    resource: ResourceDefinition,
    objectId: string,
    permission: string,
    knownAcl: Acl | undefined,
  ): Promise<boolean> {
    const collection = collectionObjectId(resource.name);
    const holds = (principals: readonly string[] | undefined) => holdsAny(caller, principals);
    const grants = boundPermissionsOf(resource)(objectId, permission);
    for (const grant of grants) {
      if (grant.objectId === collection && holds(resource.settingsPrincipals[grant.permission])) return true;
      if (knownAcl && grant.objectId === objectId && holds(knownAcl[grant.permission])) return true;
    }
    // The object's own grants are decided on `knownAcl` alone, read with the record it governs: the
    // backend, asked later, could answer for a newer ACL than the version being decided on.
    const elsewhere = knownAcl ? grants.filter((grant) => grant.objectId !== objectId) : grants;
    if (elsewhere.length === 0) return false;
    return this.permissions.checkPermission(objectId, permission, caller.principals, () => elsewhere);
  }
}

function holdsAny(caller: Caller, principals: readonly string[] | undefined): boolean {
  return principals !== undefined && principals.some((p) => caller.principals.includes(p));
}

export function denial(caller: Caller): Error {
  return caller.userId === undefined ? new UnauthenticatedError() : new ForbiddenError();
}
