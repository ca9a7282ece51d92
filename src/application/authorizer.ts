/**
 * Decides whether a caller holds a permission on an object: first the settings principals
 * (a collection-level grant from configuration), then the permission backend through the
 * resource's bound permissions, all behind the resource's own policy when it has one.
 */
import { ForbiddenError, UnauthenticatedError } from "../domain/errors.js";
import { collectionObjectId, READ, WRITE } from "../domain/permissions.js";
import type { Caller } from "../domain/principals.js";
import type { PermissionStore } from "./ports/permission-store.js";
import { boundPermissionsOf, type ResourceDefinition, type ViewName } from "./resources.js";

export class Authorizer {
  constructor(private readonly permissions: PermissionStore | undefined) {}

  async allowed(caller: Caller, resource: ResourceDefinition, view: ViewName, objectId: string, permission: string): Promise<boolean> {
    const decide = () => this.defaultDecision(caller, resource, objectId, permission);
    if (!resource.authorization) return decide();
    return resource.authorization.permits({ caller, resource, view, objectId, permission }, decide);
  }

  /** Throws 401 (anonymous) or 403 (authenticated) unless allowed. */
  async require(caller: Caller, resource: ResourceDefinition, view: ViewName, objectId: string, permission: string): Promise<void> {
    if (!(await this.allowed(caller, resource, view, objectId, permission))) throw denial(caller);
  }

  /** Whether the caller may read or write every record of the collection. */
  collectionAllowed(caller: Caller, resource: ResourceDefinition, view: ViewName, permission: typeof READ | typeof WRITE): Promise<boolean> {
    return this.allowed(caller, resource, view, collectionObjectId(resource.name), permission);
  }

  private async defaultDecision(caller: Caller, resource: ResourceDefinition, objectId: string, permission: string): Promise<boolean> {
    const bound = boundPermissionsOf(resource);
    const collection = collectionObjectId(resource.name);
    for (const grant of bound(objectId, permission)) {
      if (grant.objectId !== collection) continue;
      const granted = resource.settingsPrincipals[grant.permission];
      if (granted && granted.some((p) => caller.principals.includes(p))) return true;
    }
    if (!this.permissions) return false;
    return this.permissions.checkPermission(objectId, permission, caller.principals, bound);
  }
}

export function denial(caller: Caller): Error {
  return caller.userId === undefined ? new UnauthenticatedError() : new ForbiddenError();
}
