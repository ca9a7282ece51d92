/** In-process PermissionStore: the reference fake the application tests trust (same contract as the others). */
/* eslint-disable @typescript-eslint/require-await -- the port is async; memory answers at once */
import {
  DEFAULT_GROUP_MAX_DEPTH,
  type Expandable,
  type GroupMember,
  type ObjectPermissions,
  type PermissionStore,
} from "../../application/ports/permission-store.js";
import { boundPairs, type BoundPermissionsFn } from "../../domain/permissions.js";
import { AUTHENTICATED } from "../../domain/principals.js";
import { compareCodePoints, reachedWithin, shortestParents } from "../../application/nested-principals.js";
import { walkMembersPage } from "../../application/access/member-walk.js";
import { wildcardMatcher } from "../../domain/wildcard.js";

export class MemoryPermissionStore implements PermissionStore {
  /** object id → permission → principals. Empty sets are never kept. */
  private readonly aces = new Map<string, Map<string, Set<string>>>();
  /**
   * principal → permission → object ids: the reverse of `aces`, so listing reads only the
   * caller's grants instead of every ACE of the process. Empty sets are never kept.
   */
  private readonly grants = new Map<string, Map<string, Set<string>>>();
  /** user id → extra principals. */
  private readonly users = new Map<string, Set<string>>();
  /** principal → ids holding it: the reverse of `users`, for membersOf. Empty sets are never kept. */
  private readonly holders = new Map<string, Set<string>>();
  /** principal → its holders in code point order, made on the first page after a change: a page is a binary search. */
  private readonly sortedHolders = new Map<string, readonly string[]>();

  /** `groupMaxDepth`: levels of nested groups followed (`group_max_depth`). */
  constructor(private readonly groupMaxDepth = DEFAULT_GROUP_MAX_DEPTH) {}

  async initializeSchema(): Promise<void> {}

  async flush(): Promise<void> {
    this.aces.clear();
    this.grants.clear();
    this.users.clear();
    this.holders.clear();
    this.sortedHolders.clear();
  }

  async addUserPrincipal(userId: string, principal: string): Promise<void> {
    let principals = this.users.get(userId);
    if (!principals) this.users.set(userId, (principals = new Set()));
    principals.add(principal);
    let ids = this.holders.get(principal);
    if (!ids) this.holders.set(principal, (ids = new Set()));
    ids.add(userId);
    this.sortedHolders.delete(principal);
  }

  async removeUserPrincipal(userId: string, principal: string): Promise<void> {
    const principals = this.users.get(userId);
    if (!principals) return;
    principals.delete(principal);
    if (principals.size === 0) this.users.delete(userId);
    const ids = this.holders.get(principal);
    ids?.delete(userId);
    if (ids?.size === 0) this.holders.delete(principal);
    this.sortedHolders.delete(principal);
  }

  async removePrincipal(principal: string): Promise<void> {
    for (const userId of [...(this.holders.get(principal) ?? [])]) await this.removeUserPrincipal(userId, principal);
  }

  async userPrincipals(userId: string, held: readonly string[] = []): Promise<Set<string>> {
    const links = async (ids: readonly string[]) => ids.map((id) => this.users.get(id) ?? []);
    return reachedWithin([userId, AUTHENTICATED], this.groupMaxDepth, links, held);
  }

  async directPrincipals(ids: readonly string[]): Promise<Map<string, Set<string>>> {
    return new Map(ids.map((id) => [id, new Set(this.users.get(id))]));
  }

  async membersOf(principal: string): Promise<Set<string>> {
    const members = await reachedWithin([principal], this.groupMaxDepth, async (ids) => ids.map((id) => this.holders.get(id) ?? []));
    members.delete(principal);
    return members;
  }

  async principalParents(ids: readonly string[]): Promise<Map<string, string>> {
    return shortestParents(ids, this.groupMaxDepth, async (level) => level.map((id) => this.users.get(id) ?? []));
  }

  async membersPage(
    principals: readonly string[],
    after: string | undefined,
    limit: number,
    expandable?: Expandable,
  ): Promise<GroupMember[]> {
    return walkMembersPage(this, principals, after, limit, this.groupMaxDepth, expandable);
  }

  /** The holders that are held themselves, found from the smaller side: the holders or every group of the process. */
  async subgroupsOf(ids: readonly string[]): Promise<Map<string, Set<string>>> {
    const result = new Map<string, Set<string>>();
    for (const id of ids) {
      const holders = this.holders.get(id) ?? new Set<string>();
      const found = new Set<string>();
      if (holders.size <= this.holders.size) {
        for (const holder of holders) if (this.holders.has(holder)) found.add(holder);
      } else for (const group of this.holders.keys()) if (holders.has(group)) found.add(group);
      result.set(id, found);
    }
    return result;
  }

  async holdersPage(ids: readonly string[], after: string | undefined, limit: number): Promise<GroupMember[]> {
    const through = new Map<string, string[]>();
    for (const id of new Set(ids)) {
      const sorted = this.holdersInOrder(id);
      let start = after === undefined ? 0 : firstAfter(sorted, after);
      for (const end = Math.min(sorted.length, start + Math.max(0, limit)); start < end; start += 1) {
        const holder = sorted[start] ?? "";
        const groups = through.get(holder);
        if (groups) groups.push(id);
        else through.set(holder, [id]);
      }
    }
    return [...through.keys()]
      .sort(compareCodePoints)
      .slice(0, Math.max(0, limit))
      .map((holder) => ({ id: holder, through: (through.get(holder) ?? []).sort(compareCodePoints) }));
  }

  private holdersInOrder(principal: string): readonly string[] {
    let sorted = this.sortedHolders.get(principal);
    if (!sorted) this.sortedHolders.set(principal, (sorted = [...(this.holders.get(principal) ?? [])].sort(compareCodePoints)));
    return sorted;
  }

  async addPrincipalToAce(objectId: string, permission: string, principal: string): Promise<void> {
    let acl = this.aces.get(objectId);
    if (!acl) this.aces.set(objectId, (acl = new Map<string, Set<string>>()));
    let principals = acl.get(permission);
    if (!principals) acl.set(permission, (principals = new Set()));
    principals.add(principal);
    this.grant(principal, permission, objectId);
  }

  async removePrincipalFromAce(objectId: string, permission: string, principal: string): Promise<void> {
    const acl = this.aces.get(objectId);
    const principals = acl?.get(permission);
    if (!acl || !principals) return;
    principals.delete(principal);
    this.revoke(principal, permission, objectId);
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
    const pairs = boundPairs(objectIdMatch ?? "*", permission, getBoundPermissions).map((pair) => ({
      ...pair,
      matches: pair.objectId.includes("*") ? wildcardMatcher(pair.objectId, { ignoreCase: false }) : undefined,
    }));
    // Only the callers' grants are read: the cost follows them, not the ACEs of the process.
    for (const principal of new Set(principals)) {
      const byPermission = this.grants.get(principal);
      if (!byPermission) continue;
      for (const { objectId: match, permission: perm, matches } of pairs) {
        const objectIds = byPermission.get(perm);
        if (!objectIds) continue;
        if (matches === undefined) {
          // A literal id matches only itself: one lookup.
          if (objectIds.has(match)) result.add(match);
          continue;
        }
        for (const objectId of objectIds) if (!result.has(objectId) && matches(objectId)) result.add(objectId);
      }
    }
    return result;
  }

  async objectPermissionAuthorizedPrincipals(
    objectId: string,
    permission: string,
    getBoundPermissions?: BoundPermissionsFn,
  ): Promise<Set<string>> {
    const result = new Set<string>();
    for (const pair of boundPairs(objectId, permission, getBoundPermissions)) {
      for (const principal of this.aces.get(pair.objectId)?.get(pair.permission) ?? []) result.add(principal);
    }
    return result;
  }

  async checkPermission(
    objectId: string,
    permission: string,
    principals: readonly string[],
    getBoundPermissions?: BoundPermissionsFn,
  ): Promise<boolean> {
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

  async manyObjectPermissions(objectIds: readonly string[], permissions: readonly string[]): Promise<Map<string, ObjectPermissions>> {
    const result = new Map<string, ObjectPermissions>();
    for (const objectId of objectIds) if (!result.has(objectId)) result.set(objectId, await this.objectPermissions(objectId, permissions));
    return result;
  }

  async replaceObjectPermissions(objectId: string, permissions: Readonly<Record<string, Iterable<string>>>): Promise<void> {
    for (const [perm, principals] of Object.entries(permissions)) {
      const next = new Set(principals);
      let acl = this.aces.get(objectId);
      for (const principal of acl?.get(perm) ?? []) if (!next.has(principal)) this.revoke(principal, perm, objectId);
      for (const principal of next) this.grant(principal, perm, objectId);
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
        this.deleteAcl(id);
        continue;
      }
      const matches = wildcardMatcher(id, { ignoreCase: false });
      for (const objectId of [...this.aces.keys()]) if (matches(objectId)) this.deleteAcl(objectId);
    }
  }

  /** Drops one object's ACL and its entries in the reverse index. */
  private deleteAcl(objectId: string): void {
    const acl = this.aces.get(objectId);
    if (!acl) return;
    for (const [perm, principals] of acl) for (const principal of principals) this.revoke(principal, perm, objectId);
    this.aces.delete(objectId);
  }

  private grant(principal: string, permission: string, objectId: string): void {
    let byPermission = this.grants.get(principal);
    if (!byPermission) this.grants.set(principal, (byPermission = new Map<string, Set<string>>()));
    let objectIds = byPermission.get(permission);
    if (!objectIds) byPermission.set(permission, (objectIds = new Set()));
    objectIds.add(objectId);
  }

  private revoke(principal: string, permission: string, objectId: string): void {
    const byPermission = this.grants.get(principal);
    const objectIds = byPermission?.get(permission);
    if (!byPermission || !objectIds) return;
    objectIds.delete(objectId);
    if (objectIds.size === 0) byPermission.delete(permission);
    if (byPermission.size === 0) this.grants.delete(principal);
  }

  async heartbeat(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {}
}

/** The index of the first entry after `after` in a list sorted by code point. */
function firstAfter(sorted: readonly string[], after: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareCodePoints(sorted[middle] ?? "", after) <= 0) low = middle + 1;
    else high = middle;
  }
  return low;
}
