/**
 * Whether a principal already means something, so that naming a group after it would hand its
 * creator that meaning: no one gains a principal by naming a group. A principal is in use when
 * a setting names it (`*_principals`), an ACE names it (of any permission a resource knows, on
 * any object: a deleted group's shares keep it in use), it has holders in the permission backend
 * or holds principals there itself; every group principal is reserved while an authentication
 * policy gives `group:<value>` principals of its own (an OpenID groups claim).
 */
import type { PermissionStore } from "../ports/permission-store.js";

export interface PrincipalUseDeps {
  readonly permissions: PermissionStore;
  /** Every principal a setting names. */
  readonly settingsPrincipals: ReadonlySet<string>;
  /** Why every group principal belongs to something else (an OpenID groups claim), or undefined. */
  readonly groupsReservedBecause: string | undefined;
  /** Every permission an ACE may hold: the resources' own and `create`. */
  readonly aclPermissions: readonly string[];
}

export class PrincipalUse {
  constructor(private readonly deps: PrincipalUseDeps) {}

  /** Why `principal` may not be taken for a new group, or undefined when it means nothing yet. */
  async whyInUse(principal: string): Promise<string | undefined> {
    const { permissions, settingsPrincipals, groupsReservedBecause, aclPermissions } = this.deps;
    if (groupsReservedBecause !== undefined) return `"${principal}" cannot be a group of this service: ${groupsReservedBecause}`;
    // One message whatever the cause: who shares what with a principal is no one else's business.
    const inUse = `"${principal}" is already in use (named by a setting, an ACL or a membership): choose another id`;
    if (settingsPrincipals.has(principal)) return inUse;
    // One after the other: inside the create's transaction they share one connection.
    if ((await permissions.membersOf(principal)).size > 0) return inUse;
    if (((await permissions.directPrincipals([principal])).get(principal)?.size ?? 0) > 0) return inUse;
    const named = await permissions.principalsAccessibleObjects([principal], aclPermissions[0] ?? "read", "*", (objectId) =>
      aclPermissions.map((permission) => ({ objectId, permission })),
    );
    return named.size > 0 ? inUse : undefined;
  }
}
