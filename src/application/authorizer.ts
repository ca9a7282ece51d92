/**
 * Decides whether a caller holds a permission on an object: first the settings principals
 * (a collection-level grant from configuration), then the permission backend through the
 * resource's bound permissions, all behind the resource's own policy when it has one.
 */
import type { Acl } from "../domain/acl.js";
import { ForbiddenError, UnauthenticatedError } from "../domain/errors.js";
import { collectionObjectId, type BoundPermission } from "../domain/permissions.js";
import type { Caller } from "../domain/principals.js";
import type { ObjectPermissions, PermissionStore } from "./ports/permission-store.js";
import type { InheritedAcls } from "./ports/shared-records.js";
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
    inherited?: InheritedAcls,
  ): Promise<boolean> {
    const decide = () => this.defaultDecision(caller, resource, objectId, permission, knownAcl, inherited);
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
    inherited?: InheritedAcls,
  ): Promise<void> {
    if (!(await this.allowed(caller, resource, view, objectId, permission, knownAcl, inherited))) throw denial(caller);
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

  /**
   * The decision of `allowed`, with where it comes from: every grant checked and each one the
   * caller holds, with the principals through which. The same walk as `allowed` (settings
   * principals, the object's own ACL, then the other objects' ACLs), except that the other
   * objects' ACLs are read (`acls`, memoized by the caller of this) instead of checked.
   */
  async explain(
    caller: Caller,
    resource: ResourceDefinition,
    view: ViewName,
    objectId: string,
    permission: string,
    knownAcl: Acl | undefined,
    acls: AclReader,
  ): Promise<Decision> {
    let explained: Omit<Decision, "allowed" | "policy"> | undefined;
    const decide = async () => {
      const local = this.localGrants(caller, resource, objectId, permission, knownAcl);
      const read = local.elsewhere.length === 0 ? new Map<string, ObjectPermissions>() : await acls(local.elsewhere);
      const held = [...local.held];
      for (const grant of local.elsewhere) {
        const principals = matching(caller, read.get(grant.objectId)?.[grant.permission]);
        if (principals.length > 0) held.push({ ...grant, source: "acl", principals });
      }
      explained = { checked: local.grants, held };
      return held.length > 0;
    };
    if (!resource.authorization) {
      const allowed = await decide();
      return { allowed, ...explained!, policy: undefined };
    }
    const allowed = await resource.authorization.permits({ caller, resource, view, objectId, permission }, decide);
    return {
      allowed,
      checked: explained?.checked ?? [],
      held: explained?.held ?? [],
      policy: { consultedDefault: explained !== undefined },
    };
  }

  /** The principals holding `permission` on the object through each grant, as `explain` reads them (no resource policy). */
  async holders(resource: ResourceDefinition, objectId: string, permission: string, knownAcl: Acl, acls: AclReader): Promise<HeldGrant[]> {
    const grants = boundPermissionsOf(resource)(objectId, permission);
    const on = { collection: collectionObjectId(resource.name), objectId, knownAcl };
    const held: HeldGrant[] = [];
    const add = (grant: BoundPermission, source: GrantSource, principals: readonly string[] | undefined) => {
      if (principals && principals.length > 0) held.push({ ...grant, source, principals: [...new Set(principals)] });
    };
    // Every settings grant, then every record grant: the answer lists them in that order.
    for (const only of ["settings", "record"] as const)
      for (const grant of grants)
        decidedHere(grant, resource, on, (source, principals) => {
          if (source === only) add(grant, source, principals);
          return false;
        });
    const elsewhere = leftElsewhere(grants, objectId, knownAcl);
    const read = elsewhere.length === 0 ? new Map<string, ObjectPermissions>() : await acls(elsewhere);
    for (const grant of elsewhere) add(grant, "acl", [...(read.get(grant.objectId)?.[grant.permission] ?? [])]);
    return held;
  }

  private async defaultDecision(
    caller: Caller,
    resource: ResourceDefinition,
    objectId: string,
    permission: string,
    knownAcl: Acl | undefined,
    inherited: InheritedAcls | undefined,
  ): Promise<boolean> {
    const grants = boundPermissionsOf(resource)(objectId, permission);
    const on = { collection: collectionObjectId(resource.name), objectId, knownAcl };
    // Allocates no list on the way to "yes": this runs on every read (W1).
    const holds = (_source: LocalSource, principals: readonly string[] | undefined) => holdsAny(caller, principals);
    if (grants.some((grant) => decidedHere(grant, resource, on, holds))) return true;
    const elsewhere = leftElsewhere(grants, objectId, knownAcl);
    if (elsewhere.length === 0) return false;
    // The ACLs above the object, read with it (the same snapshot): decided here when they hold every grant asked.
    const read = inherited && elsewhere.map((grant) => inherited.get(grant.objectId)?.[grant.permission]);
    if (read?.every((principals) => principals !== undefined)) return read.some((principals) => holdsAny(caller, [...(principals ?? [])]));
    return this.permissions.checkPermission(objectId, permission, caller.principals, () => elsewhere);
  }

  /**
   * The grants of `permission` on the object (bound permissions), those decided here that the
   * caller holds (decidedHere), and `elsewhere`, the grants left to the permission backend.
   */
  private localGrants(
    caller: Caller,
    resource: ResourceDefinition,
    objectId: string,
    permission: string,
    knownAcl: Acl | undefined,
  ): { grants: BoundPermission[]; held: HeldGrant[]; elsewhere: BoundPermission[] } {
    const grants = boundPermissionsOf(resource)(objectId, permission);
    const on = { collection: collectionObjectId(resource.name), objectId, knownAcl };
    const held: HeldGrant[] = [];
    for (const grant of grants)
      decidedHere(grant, resource, on, (source, principals) => {
        const named = matching(caller, principals);
        if (named.length > 0) held.push({ ...grant, source, principals: named });
        return false;
      });
    return { grants, held, elsewhere: leftElsewhere(grants, objectId, knownAcl) };
  }
}

type LocalSource = "settings" | "record";

/**
 * The one rule of what is decided without the permission backend: a grant on the collection by
 * the settings principals, a grant on the object itself by `knownAcl`. Offers `visit` each such
 * source in that order; true as soon as `visit` says so.
 */
function decidedHere(
  grant: BoundPermission,
  resource: ResourceDefinition,
  on: { readonly collection: string; readonly objectId: string; readonly knownAcl: Acl | undefined },
  visit: (source: LocalSource, principals: readonly string[] | undefined) => boolean,
): boolean {
  if (grant.objectId === on.collection && visit("settings", resource.settingsPrincipals[grant.permission])) return true;
  return on.knownAcl !== undefined && grant.objectId === on.objectId && visit("record", on.knownAcl[grant.permission]);
}

/**
 * The grants asked of the backend. The object's own grants are decided on `knownAcl` alone, read
 * with the record it governs: the backend, asked later, could answer for a newer ACL than the
 * version being decided on.
 */
function leftElsewhere(grants: BoundPermission[], objectId: string, knownAcl: Acl | undefined): BoundPermission[] {
  return knownAcl ? grants.filter((grant) => grant.objectId !== objectId) : grants;
}

/**
 * Where a held grant comes from: settings principals, the object's own ACL as read with it, an
 * ACL read from the backend, or (user resources) the caller owning the record.
 */
export type GrantSource = "settings" | "record" | "acl" | "owner";

/** A grant the caller holds, and which of their principals it names. */
export interface HeldGrant extends BoundPermission {
  readonly source: GrantSource;
  readonly principals: readonly string[];
}

export interface Decision {
  readonly allowed: boolean;
  /** Every grant that would give the permission (bound permissions), in the order they are looked at. */
  readonly checked: readonly BoundPermission[];
  /** Those the caller holds (empty when denied, unless a resource policy overruled them). */
  readonly held: readonly HeldGrant[];
  /** Set when the resource's own policy decided; `consultedDefault`: whether it asked the usual decision. */
  readonly policy: { readonly consultedDefault: boolean } | undefined;
}

/** Reads the ACLs of the objects of these grants (restricted to their permissions), by object id. */
export type AclReader = (grants: readonly BoundPermission[]) => Promise<Map<string, ObjectPermissions>>;

/**
 * An AclReader over the permission backend that reads each object once per request (or page):
 * `names`, the permissions read with every object (a resource's), so later grants find them.
 */
export function memoizedAcls(permissions: PermissionStore, names: readonly string[]): AclReader {
  const read = new Map<string, { readonly names: ReadonlySet<string>; readonly acl: ObjectPermissions }>();
  return async (grants) => {
    const missing = grants.filter((g) => !read.get(g.objectId)?.names.has(g.permission));
    if (missing.length > 0) {
      const asked = new Set([...names, ...missing.map((g) => g.permission)]);
      const ids = [...new Set(missing.map((g) => g.objectId))];
      const acls = await permissions.manyObjectPermissions(ids, [...asked].sort());
      for (const id of ids) read.set(id, { names: asked, acl: acls.get(id) ?? {} });
    }
    return new Map(grants.map((g) => [g.objectId, read.get(g.objectId)?.acl ?? {}]));
  };
}

function matching(caller: Caller, principals: Iterable<string> | undefined): string[] {
  if (principals === undefined) return [];
  return [...new Set(principals)].filter((p) => caller.principals.includes(p));
}

function holdsAny(caller: Caller, principals: readonly string[] | undefined): boolean {
  return principals !== undefined && principals.some((p) => caller.principals.includes(p));
}

export function denial(caller: Caller): Error {
  return caller.userId === undefined ? new UnauthenticatedError() : new ForbiddenError();
}
