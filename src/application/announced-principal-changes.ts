/**
 * A PermissionStore that announces every change of a user's principals (ChangeEvents
 * `principalsChanged`) once the backend made it and before the change returns, so that the live
 * feed ends the open streams that the old principals fed, on every process (README "Sync and live
 * changes"). What is announced is the principal whose members changed: the user's own id (which
 * every caller holds as a principal) for a principal added to or removed from a user,
 * `system.Authenticated` for a group given to every user, the principal itself when it is removed
 * everywhere. Every other operation is passed through unchanged.
 */
import type { BoundPermissionsFn } from "../domain/permissions.js";
import type { ChangeEvents } from "./events.js";
import type { ObjectPermissions, PermissionStore } from "./ports/permission-store.js";

export class AnnouncedPrincipalChanges implements PermissionStore {
  constructor(
    private readonly inner: PermissionStore,
    private readonly events: ChangeEvents,
  ) {}

  async addUserPrincipal(userId: string, principal: string): Promise<void> {
    await this.inner.addUserPrincipal(userId, principal);
    await this.events.publishPrincipalsChanged(userId);
  }

  async removeUserPrincipal(userId: string, principal: string): Promise<void> {
    await this.inner.removeUserPrincipal(userId, principal);
    await this.events.publishPrincipalsChanged(userId);
  }

  async removePrincipal(principal: string): Promise<void> {
    await this.inner.removePrincipal(principal);
    await this.events.publishPrincipalsChanged(principal);
  }

  initializeSchema(): Promise<void> {
    return this.inner.initializeSchema();
  }
  flush(): Promise<void> {
    return this.inner.flush();
  }
  userPrincipals(userId: string): Promise<Set<string>> {
    return this.inner.userPrincipals(userId);
  }
  addPrincipalToAce(objectId: string, permission: string, principal: string): Promise<void> {
    return this.inner.addPrincipalToAce(objectId, permission, principal);
  }
  removePrincipalFromAce(objectId: string, permission: string, principal: string): Promise<void> {
    return this.inner.removePrincipalFromAce(objectId, permission, principal);
  }
  objectPermissionPrincipals(objectId: string, permission: string): Promise<Set<string>> {
    return this.inner.objectPermissionPrincipals(objectId, permission);
  }
  principalsAccessibleObjects(
    principals: readonly string[],
    permission: string,
    objectIdMatch?: string,
    getBoundPermissions?: BoundPermissionsFn,
  ): Promise<Set<string>> {
    return this.inner.principalsAccessibleObjects(principals, permission, objectIdMatch, getBoundPermissions);
  }
  objectPermissionAuthorizedPrincipals(
    objectId: string,
    permission: string,
    getBoundPermissions?: BoundPermissionsFn,
  ): Promise<Set<string>> {
    return this.inner.objectPermissionAuthorizedPrincipals(objectId, permission, getBoundPermissions);
  }
  checkPermission(
    objectId: string,
    permission: string,
    principals: readonly string[],
    getBoundPermissions?: BoundPermissionsFn,
  ): Promise<boolean> {
    return this.inner.checkPermission(objectId, permission, principals, getBoundPermissions);
  }
  objectPermissions(objectId: string, permissions?: readonly string[]): Promise<ObjectPermissions> {
    return this.inner.objectPermissions(objectId, permissions);
  }
  manyObjectPermissions(objectIds: readonly string[], permissions: readonly string[]): Promise<Map<string, ObjectPermissions>> {
    return this.inner.manyObjectPermissions(objectIds, permissions);
  }
  replaceObjectPermissions(objectId: string, permissions: Readonly<Record<string, Iterable<string>>>): Promise<void> {
    return this.inner.replaceObjectPermissions(objectId, permissions);
  }
  deleteObjectPermissions(...objectIds: string[]): Promise<void> {
    return this.inner.deleteObjectPermissions(...objectIds);
  }
  heartbeat(): Promise<boolean> {
    return this.inner.heartbeat();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
