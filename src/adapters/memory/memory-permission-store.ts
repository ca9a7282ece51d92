/** In-process PermissionStore: the reference fake the application tests trust (same contract as the others). */
/* eslint-disable @typescript-eslint/require-await -- the port is async; memory answers at once */
import type { ObjectPermissions, PermissionStore } from "../../application/ports/permission-store.js";
import { boundPairs, type BoundPermissionsFn } from "../../domain/permissions.js";
import { AUTHENTICATED } from "../../domain/principals.js";

/** `*` matches any run of characters (`/` included); everything else is literal. */
function patternRegExp(pattern: string): RegExp {
  const body = pattern
    .split("*")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("[\\s\\S]*");
  return new RegExp(`^${body}$`);
}

export class MemoryPermissionStore implements PermissionStore {
  /** object id → permission → principals. Empty sets are never kept. */
  private readonly aces = new Map<string, Map<string, Set<string>>>();
  /** user id → extra principals. */
  private readonly users = new Map<string, Set<string>>();

  async initializeSchema(): Promise<void> {}

  async flush(): Promise<void> {
    this.aces.clear();
    this.users.clear();
  }

  async addUserPrincipal(userId: string, principal: string): Promise<void> {
    let principals = this.users.get(userId);
    if (!principals) this.users.set(userId, (principals = new Set()));
    principals.add(principal);
  }

  async removeUserPrincipal(userId: string, principal: string): Promise<void> {
    const principals = this.users.get(userId);
    if (!principals) return;
    principals.delete(principal);
    if (principals.size === 0) this.users.delete(userId);
  }

  async removePrincipal(principal: string): Promise<void> {
    for (const userId of [...this.users.keys()]) await this.removeUserPrincipal(userId, principal);
  }

  async userPrincipals(userId: string): Promise<Set<string>> {
    return new Set([...(this.users.get(userId) ?? []), ...(this.users.get(AUTHENTICATED) ?? [])]);
  }

  async addPrincipalToAce(objectId: string, permission: string, principal: string): Promise<void> {
    let acl = this.aces.get(objectId);
    if (!acl) this.aces.set(objectId, (acl = new Map<string, Set<string>>()));
    let principals = acl.get(permission);
    if (!principals) acl.set(permission, (principals = new Set()));
    principals.add(principal);
  }

  async removePrincipalFromAce(objectId: string, permission: string, principal: string): Promise<void> {
    const acl = this.aces.get(objectId);
    const principals = acl?.get(permission);
    if (!acl || !principals) return;
    principals.delete(principal);
    if (principals.size === 0) acl.delete(permission);
    if (acl.size === 0) this.aces.delete(objectId);
  }

  async objectPermissionPrincipals(objectId: string, permission: string): Promise<Set<string>> {
    return new Set(this.aces.get(objectId)?.get(permission));
  }

  async principalsAccessibleObjects(
    principals: readonly string[],
    permission: string,
    objectIdMatch?: string,
    getBoundPermissions?: BoundPermissionsFn,
  ): Promise<Set<string>> {
    const result = new Set<string>();
    if (principals.length === 0) return result;
    const wanted = new Set(principals);
    const pairs = boundPairs(objectIdMatch ?? "*", permission, getBoundPermissions).map((pair) => ({
      permission: pair.permission,
      regexp: patternRegExp(pair.objectId),
    }));
    for (const [objectId, acl] of this.aces) {
      for (const pair of pairs) {
        const holders = acl.get(pair.permission);
        if (holders && pair.regexp.test(objectId) && [...holders].some((p) => wanted.has(p))) {
          result.add(objectId);
          break;
        }
      }
    }
    return result;
  }

  async objectPermissionAuthorizedPrincipals(objectId: string, permission: string, getBoundPermissions?: BoundPermissionsFn): Promise<Set<string>> {
    const result = new Set<string>();
    for (const pair of boundPairs(objectId, permission, getBoundPermissions)) {
      for (const principal of this.aces.get(pair.objectId)?.get(pair.permission) ?? []) result.add(principal);
    }
    return result;
  }

  async checkPermission(objectId: string, permission: string, principals: readonly string[], getBoundPermissions?: BoundPermissionsFn): Promise<boolean> {
    const authorized = await this.objectPermissionAuthorizedPrincipals(objectId, permission, getBoundPermissions);
    return principals.some((p) => authorized.has(p));
  }

  async objectPermissions(objectId: string, permissions?: readonly string[]): Promise<ObjectPermissions> {
    const acl = this.aces.get(objectId);
    const result: ObjectPermissions = {};
    if (!acl) return result;
    for (const perm of permissions ?? [...acl.keys()]) {
      const principals = acl.get(perm);
      if (principals) result[perm] = new Set(principals);
    }
    return result;
  }

  async replaceObjectPermissions(objectId: string, permissions: Readonly<Record<string, Iterable<string>>>): Promise<void> {
    for (const [perm, principals] of Object.entries(permissions)) {
      const next = new Set(principals);
      let acl = this.aces.get(objectId);
      if (next.size > 0) {
        if (!acl) this.aces.set(objectId, (acl = new Map<string, Set<string>>()));
        acl.set(perm, next);
      } else if (acl) {
        acl.delete(perm);
        if (acl.size === 0) this.aces.delete(objectId);
      }
    }
  }

  async deleteObjectPermissions(...objectIds: string[]): Promise<void> {
    for (const id of objectIds) {
      if (!id.includes("*")) {
        this.aces.delete(id);
        continue;
      }
      const regexp = patternRegExp(id);
      for (const objectId of [...this.aces.keys()]) if (regexp.test(objectId)) this.aces.delete(objectId);
    }
  }

  async heartbeat(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {}

}
