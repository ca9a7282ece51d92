/**
 * A shareable resource: one collection for everyone, each record with its own ACL. Views are
 * decided by the authorizer (settings principals, the record's ACL, bound permissions); the
 * writer always ends up in `write`, and only writers see the ACL.
 */
import { withWriter, type Acl } from "../../domain/acl.js";
import { RecordNotFoundError } from "../../domain/errors.js";
import { collectionObjectId, READ, recordObjectId, recordsPattern, WRITE, type BoundPermission } from "../../domain/permissions.js";
import { ANONYMOUS, callerPrincipals, writerPrincipal, type Caller } from "../../domain/principals.js";
import { denial, type AclReader, type Authorizer, type Decision, type HeldGrant } from "../authorizer.js";
import type { PrincipalsWithCheck } from "../ports/principals-with-check.js";
import type { Scope } from "../ports/record-store.js";
import type { AclEntries, Grants, InheritedAcls, RecordAcls } from "../ports/shared-records.js";
import { recordReadPermissions } from "../record-readers.js";
import type { Requester } from "../requester.js";
import { boundPermissionsOf, permissionFor, viewRequiring, type ResourceDefinition, type ViewName } from "../resources.js";
import type { CollectionView, RecordPermission, ResourceKindPolicy, Target } from "./resource-kind-policy.js";

/** The record permission a collection view needs on a record to touch it. */
const RECORD_PERMISSION: Readonly<Record<CollectionView, RecordPermission>> = { list: READ, deleteAll: WRITE };

export interface ShareableKindDeps {
  readonly authorizer: Authorizer;
  /** Bound where the permission backend reads a user's principals and checks a permission in one round trip. */
  readonly principalsWithCheck?: PrincipalsWithCheck;
}

export class ShareableKind implements ResourceKindPolicy {
  /** Each resource's, built once: a read asks for them on every request. */
  private readonly acls = new WeakMap<ResourceDefinition, RecordAcls>();

  constructor(private readonly deps: ShareableKindDeps) {}

  scope(_requester: Requester, resource: ResourceDefinition): Scope {
    return { collection: resource.name, parentId: "" };
  }

  caller(requester: Requester): Promise<Caller> {
    return requester.caller();
  }

  creator(requester: Requester, resource: ResourceDefinition): Promise<Caller> {
    const known = requester.userId === undefined ? ANONYMOUS : callerPrincipals(requester.userId, []);
    // A resource's own policy may look at every principal: it always gets them all.
    if (!resource.authorization && this.deps.authorizer.settingsGrant(known, resource, permissionFor(resource, "create")))
      return Promise.resolve(known);
    return requester.caller();
  }

  /** A record's object id is `/<resource>/<id>`; its ACL holds the resource's permissions. */
  recordAcls(resource: ResourceDefinition): RecordAcls {
    const known = this.acls.get(resource);
    if (known) return known;
    const acls = {
      objectIdPrefix: recordObjectId(resource.name, ""),
      permissions: resource.permissions,
      readPermissions: (objectId: string) => recordReadPermissions(resource, objectId),
    };
    // A resource whose records inherit from objects above them (Kinto's tree) reads their ACLs with the record.
    // The grants above a record are those above the pattern of all its records: computed once.
    const above = resource.boundPermissions ? grantsAbove(resource, recordsPattern(resource.name)) : undefined;
    const built: RecordAcls = above ? { ...acls, inherited: above } : acls;
    this.acls.set(resource, built);
    return built;
  }

  /** The record permissions that grant `permission` on every record of the resource (bound ones included). */
  grants(caller: Caller, resource: ResourceDefinition, permission: RecordPermission): Grants {
    const pattern = recordsPattern(resource.name);
    const boundPermissions = boundPermissionsOf(resource);
    const permissions = boundPermissions(pattern, permission)
      .filter((b) => b.objectId === pattern)
      .map((b) => b.permission);
    return { principals: caller.principals, permission, boundPermissions, permissions };
  }

  allowsCollection(caller: Caller, resource: ResourceDefinition, view: ViewName): Promise<boolean> {
    return this.deps.authorizer.collectionAllowed(caller, resource, view, permissionFor(resource, view));
  }

  async requireCollection(caller: Caller, resource: ResourceDefinition, view: ViewName): Promise<void> {
    if (!(await this.allowsCollection(caller, resource, view))) throw denial(caller);
  }

  requireRecord(
    caller: Caller,
    resource: ResourceDefinition,
    view: ViewName,
    id: string,
    knownAcl: Acl | undefined,
    inherited?: InheritedAcls,
  ): Promise<void> {
    const objectId = recordObjectId(resource.name, id);
    return this.deps.authorizer.require(caller, resource, view, objectId, permissionFor(resource, view), knownAcl, inherited);
  }

  async requireWrite(caller: Caller, resource: ResourceDefinition, view: ViewName, id: string, target: Target): Promise<void> {
    const { authorizer } = this.deps;
    const objectId = recordObjectId(resource.name, id);
    if (await authorizer.allowed(caller, resource, view, objectId, permissionFor(resource, view), target.acl, target.inherited)) return;
    if (!target.record && (await authorizer.collectionAllowed(caller, resource, "list", READ)))
      throw new RecordNotFoundError(resource.name, id);
    throw denial(caller);
  }

  async restriction(caller: Caller, resource: ResourceDefinition, view: CollectionView): Promise<RecordPermission | undefined> {
    return (await this.allowsCollection(caller, resource, view)) ? undefined : RECORD_PERMISSION[view];
  }

  /**
   * As caller then restriction, the principals and the collection-level check in one statement
   * where the backend can (the authorizer's order is kept: settings principals, then the
   * backend's grants on the collection). A resource's own policy gets the usual path.
   */
  async callerAndRestriction(
    requester: Requester,
    resource: ResourceDefinition,
    view: CollectionView,
  ): Promise<[Caller, RecordPermission | undefined]> {
    const check = this.deps.principalsWithCheck;
    const { userId } = requester;
    const adopt = userId === undefined ? undefined : requester.groupsToRead?.();
    if (!check || !adopt || userId === undefined || resource.authorization) {
      const caller = await requester.caller();
      return [caller, await this.restriction(caller, resource, view)];
    }
    const permission = permissionFor(resource, view);
    const known = callerPrincipals(userId, []).principals;
    const read = await check.principalsAndCheck(userId, known, collectionObjectId(resource.name), permission, boundPermissionsOf(resource));
    const caller = await adopt(read.principals);
    const allowed = this.deps.authorizer.settingsGrant(caller, resource, permission) || read.allowed;
    return [caller, allowed ? undefined : RECORD_PERMISSION[view]];
  }

  explain(
    caller: Caller,
    resource: ResourceDefinition,
    permission: string,
    id: string | undefined,
    knownAcl: Acl | undefined,
    acls: AclReader,
  ): Promise<Decision> {
    const objectId = id === undefined ? collectionObjectId(resource.name) : recordObjectId(resource.name, id);
    const view = viewRequiring(resource, permission, id !== undefined);
    return this.deps.authorizer.explain(caller, resource, view, objectId, permission, knownAcl, acls);
  }

  holders(resource: ResourceDefinition, permission: string, id: string, knownAcl: Acl, acls: AclReader): Promise<HeldGrant[]> {
    return this.deps.authorizer.holders(resource, recordObjectId(resource.name, id), permission, knownAcl, acls);
  }

  aclToStore(_resource: ResourceDefinition, caller: Caller, requested: Acl): Acl {
    return withWriter(requested, writerPrincipal(caller));
  }

  visibleAcl(caller: Caller, acl: Acl | undefined): Acl | undefined {
    if (acl === undefined) return undefined;
    const writers = acl[WRITE] ?? [];
    return caller.principals.some((p) => writers.includes(p)) ? acl : {};
  }

  /** Every known permission of the resource named, those the ACL does not name emptied: what a write stores. */
  aclEntries(resource: ResourceDefinition, acl: Acl): AclEntries {
    return everyPermission(resource, acl);
  }
}

/** The grants on other objects (a collection, a bucket) of `read` and `write` on `objectId` (a record, or the pattern of all records). */
function grantsAbove(resource: ResourceDefinition, objectId: string): BoundPermission[] {
  const bound = boundPermissionsOf(resource);
  const above: BoundPermission[] = [];
  for (const grant of [...bound(objectId, READ), ...bound(objectId, WRITE)])
    if (grant.objectId !== objectId && !above.some((g) => g.objectId === grant.objectId && g.permission === grant.permission))
      above.push(grant);
  return above;
}

/** The ACL with every known permission of the resource named, those it does not name emptied. */
function everyPermission(resource: ResourceDefinition, acl: Acl): Record<string, readonly string[]> {
  const full: Record<string, readonly string[]> = {};
  for (const permission of new Set([...resource.permissions, ...Object.keys(acl)])) full[permission] = acl[permission] ?? [];
  return full;
}
