/**
 * A shareable resource: one collection for everyone, each record with its own ACL. Views are
 * decided by the authorizer (settings principals, the record's ACL, bound permissions); the
 * writer always ends up in `write`, and only writers see the ACL.
 */
import { normalizeAcl, withWriter, type Acl } from "../../domain/acl.js";
import { RecordNotFoundError } from "../../domain/errors.js";
import { READ, recordObjectId, WRITE } from "../../domain/permissions.js";
import { writerPrincipal, type Caller } from "../../domain/principals.js";
import { denial, type Authorizer } from "../authorizer.js";
import type { PermissionStore } from "../ports/permission-store.js";
import type { Scope } from "../ports/record-store.js";
import type { RecordPermission } from "../record-access.js";
import type { Requester } from "../requester.js";
import { permissionFor, type ResourceDefinition, type ViewName } from "../resources.js";
import type { CollectionView, ResourceKindPolicy, Target } from "./resource-kind-policy.js";

/** The record permission a collection view needs on a record to touch it. */
const RECORD_PERMISSION: Readonly<Record<CollectionView, RecordPermission>> = { list: READ, deleteAll: WRITE };

export interface ShareableKindDeps {
  readonly authorizer: Authorizer;
  readonly permissions: PermissionStore;
}

export class ShareableKind implements ResourceKindPolicy {
  constructor(private readonly deps: ShareableKindDeps) {}

  scope(_requester: Requester, resource: ResourceDefinition): Scope {
    return { collection: resource.name, parentId: "" };
  }

  caller(requester: Requester): Promise<Caller> {
    return requester.caller();
  }

  async storedAcl(resource: ResourceDefinition, id: string): Promise<Acl> {
    const stored = await this.deps.permissions.objectPermissions(recordObjectId(resource.name, id), resource.permissions);
    return normalizeAcl(Object.fromEntries(Object.entries(stored).map(([perm, principals]) => [perm, [...principals]])));
  }

  allowsCollection(caller: Caller, resource: ResourceDefinition, view: ViewName): Promise<boolean> {
    return this.deps.authorizer.collectionAllowed(caller, resource, view, permissionFor(resource, view));
  }

  async requireCollection(caller: Caller, resource: ResourceDefinition, view: ViewName): Promise<void> {
    if (!(await this.allowsCollection(caller, resource, view))) throw denial(caller);
  }

  requireRecord(caller: Caller, resource: ResourceDefinition, view: ViewName, id: string, knownAcl: Acl | undefined): Promise<void> {
    return this.deps.authorizer.require(caller, resource, view, recordObjectId(resource.name, id), permissionFor(resource, view), knownAcl);
  }

  async requireWrite(caller: Caller, resource: ResourceDefinition, view: ViewName, id: string, target: Target): Promise<void> {
    const { authorizer } = this.deps;
    if (await authorizer.allowed(caller, resource, view, recordObjectId(resource.name, id), permissionFor(resource, view), target.acl)) return;
    if (!target.record && (await authorizer.collectionAllowed(caller, resource, "list", READ))) throw new RecordNotFoundError(resource.name, id);
    throw denial(caller);
  }

  async restriction(caller: Caller, resource: ResourceDefinition, view: CollectionView): Promise<RecordPermission | undefined> {
    return (await this.allowsCollection(caller, resource, view)) ? undefined : RECORD_PERMISSION[view];
  }

  aclToStore(_resource: ResourceDefinition, caller: Caller, requested: Acl): Acl {
    return withWriter(requested, writerPrincipal(caller));
  }

  visibleAcl(caller: Caller, acl: Acl | undefined): Acl | undefined {
    if (acl === undefined) return undefined;
    const writers = acl[WRITE] ?? [];
    return caller.principals.some((p) => writers.includes(p)) ? acl : {};
  }

  /** Replaces every known permission of the record, emptying those the ACL does not name. */
  async saveAcl(resource: ResourceDefinition, id: string, acl: Acl): Promise<void> {
    const full: Record<string, readonly string[]> = {};
    for (const permission of new Set([...resource.permissions, ...Object.keys(acl)])) full[permission] = acl[permission] ?? [];
    await this.deps.permissions.replaceObjectPermissions(recordObjectId(resource.name, id), full);
  }

  aclRemoval(resource: ResourceDefinition, ids: readonly string[]): (() => Promise<void>) | undefined {
    if (ids.length === 0) return undefined;
    return () => this.deps.permissions.deleteObjectPermissions(...ids.map((id) => recordObjectId(resource.name, id)));
  }
}
