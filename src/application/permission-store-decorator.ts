/**
 * A PermissionStore that passes every call to the one it wraps: the base of the decorators that
 * add something to a few operations (announcing principal changes, recording lost access), so
 * that each of them names only what it changes.
 */
import type { BoundPermissionsFn } from "../domain/permissions.js";
import type { Expandable, GroupMember, ObjectPermissions, PermissionStore } from "./ports/permission-store.js";

export abstract class PermissionStoreDecorator implements PermissionStore {
  constructor(protected readonly inner: PermissionStore) {}

  initializeSchema(): Promise<void> {
    return this.inner.initializeSchema();
  }
  flush(): Promise<void> {
    return this.inner.flush();
  }
  addUserPrincipal(userId: string, principal: string): Promise<void> {
    return this.inner.addUserPrincipal(userId, principal);
  }
  removeUserPrincipal(userId: string, principal: string): Promise<void> {
    return this.inner.removeUserPrincipal(userId, principal);
  }
  removePrincipal(principal: string): Promise<void> {
    return this.inner.removePrincipal(principal);
  }
  userPrincipals(userId: string, held?: readonly string[]): Promise<Set<string>> {
    return this.inner.userPrincipals(userId, held);
  }
  directPrincipals(ids: readonly string[]): Promise<Map<string, Set<string>>> {
    return this.inner.directPrincipals(ids);
  }
  membersOf(principal: string): Promise<Set<string>> {
    return this.inner.membersOf(principal);
  }
  principalParents(ids: readonly string[]): Promise<Map<string, string>> {
    return this.inner.principalParents(ids);
  }
  membersPage(principals: readonly string[], after: string | undefined, limit: number, expandable?: Expandable): Promise<GroupMember[]> {
    return this.inner.membersPage(principals, after, limit, expandable);
  }
  subgroupsOf(ids: readonly string[]): Promise<Map<string, Set<string>>> {
    return this.inner.subgroupsOf(ids);
  }
  holdersPage(ids: readonly string[], after: string | undefined, limit: number): Promise<GroupMember[]> {
    return this.inner.holdersPage(ids, after, limit);
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
