import type { BoundPermissionsFn } from "../../domain/permissions.js";

export interface PrincipalsAndCheck {
  /** As PermissionStore.userPrincipals(userId). */
  readonly principals: Set<string>;
  /** As PermissionStore.checkPermission(objectId, permission, known + those principals, bound). */
  readonly allowed: boolean;
}

/**
 * A capability of a permission backend that keeps users' principals beside the ACEs: a user's
 * extra principals, and a permission check made with them, in one round trip. Bound only where
 * the backend offers it (PostgreSQL); elsewhere userPrincipals, then checkPermission.
 */
export interface PrincipalsWithCheck {
  principalsAndCheck(
    userId: string,
    known: readonly string[],
    objectId: string,
    permission: string,
    getBoundPermissions?: BoundPermissionsFn,
  ): Promise<PrincipalsAndCheck>;
}
