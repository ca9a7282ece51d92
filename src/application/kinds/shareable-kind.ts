/**
 * A shareable resource: one collection for everyone, each record with its own ACL. Views are
 * decided by the authorizer (settings principals, the record's ACL, bound permissions); the
 * writer always ends up in `write`, and only writers see the ACL.
 */
import { normalizeAcl, withWriter, type Acl } from "../../domain/acl.js";
import { RecordNotFoundError } from "../../domain/errors.js";
import { collectionObjectId, READ, recordObjectId, WRITE } from "../../domain/permissions.js";
import { ANONYMOUS, callerPrincipals, writerPrincipal, type Caller } from "../../domain/principals.js";
import type { StoredRecord } from "../../domain/records.js";
import { denial, type Authorizer } from "../authorizer.js";
import type { ObjectPermissions, PermissionStore } from "../ports/permission-store.js";
import type { PrincipalsWithCheck } from "../ports/principals-with-check.js";
import type { JsonObject } from "../../domain/json.js";
import type { RecordWithAclReader } from "../ports/record-with-acl-reader.js";
import type { RecordWithAclWriter } from "../ports/record-with-acl-writer.js";
import type { AccessLoss, Scope, WriteOptions } from "../ports/record-store.js";
import type { PendingAcl } from "../record-acl-write.js";
import { lostReaders, recordReaders, recordReadPermissions } from "../record-readers.js";
import type { RecordPermission } from "../record-access.js";
import type { Requester } from "../requester.js";
import { boundPermissionsOf, permissionFor, type ResourceDefinition, type ViewName } from "../resources.js";
import type { CollectionView, ResourceKindPolicy, Target } from "./resource-kind-policy.js";

/**
 * The pseudo-permission holding the version stamp of a record's ACL (`target`): a name no
 * resource declares and no bound permission names, so it grants nothing.
 */
export const ACL_VERSION = "tessera:acl_version";

/**
 * The ACL of the record version `lastModified` (its stamp taken out), or undefined when the
 * stored ACL belongs to a later write, done or in flight (stamped above it): the one rule that
 * pairs a record and an ACL read apart, for a GET (`target`) and for the live feed alike.
 */
export function aclOfVersion(stored: ObjectPermissions, lastModified: number): ObjectPermissions | undefined {
  const { [ACL_VERSION]: stamp, ...acl } = stored;
  if (stamp === undefined || stamp.size === 0) return acl;
  return Math.max(...[...stamp].map(Number)) <= lastModified ? acl : undefined;
}

/** The stamp of an ACL whose record write is in flight: above every `last_modified`. */
const PENDING = Number.MAX_SAFE_INTEGER;

/** Reads of a record and its ACL before a persistent mismatch is decided on no record grant. */
const PAIRING_ATTEMPTS = 6;
const PAIRING_PAUSE_MS = 1;

/** The record permission a collection view needs on a record to touch it. */
const RECORD_PERMISSION: Readonly<Record<CollectionView, RecordPermission>> = { list: READ, deleteAll: WRITE };

export interface ShareableKindDeps {
  readonly authorizer: Authorizer;
  readonly permissions: PermissionStore;
  /** Bound only where records and ACEs share a database: a read is then one round trip. */
  readonly together?: RecordWithAclReader;
  /** Bound only where records and ACEs share a database: a create is then one statement. */
  readonly createTogether?: RecordWithAclWriter;
  /** Bound where the permission backend reads a user's principals and checks a permission in one round trip. */
  readonly principalsWithCheck?: PrincipalsWithCheck;
}

export class ShareableKind implements ResourceKindPolicy {
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

  async callerAndTarget(
    requester: Requester,
    resource: ResourceDefinition,
    scope: Scope,
    id: string,
    getRecord: () => Promise<StoredRecord | undefined>,
  ): Promise<[Caller, Target]> {
    const { together } = this.deps;
    if (!together) return Promise.all([requester.caller(), this.target(resource, id, getRecord)]);
    // The principals only when still unknown (a batch may have read them) and the backend's own.
    const adopt = requester.userId === undefined ? undefined : requester.groupsToRead?.();
    const query = {
      objectId: recordObjectId(resource.name, id),
      permissions: resource.permissions,
      principalsOf: adopt && requester.userId,
    };
    const read = await together.getWithAcl(scope, id, query);
    const caller = adopt && read.principals ? await adopt(read.principals) : await requester.caller();
    return [caller, { record: read.record, acl: aclFromStored(read.acl) }];
  }

  async storedAcl(resource: ResourceDefinition, id: string): Promise<Acl> {
    return aclFromStored(await this.deps.permissions.objectPermissions(recordObjectId(resource.name, id), resource.permissions));
  }

  /**
   * The record and the ACL of that very version. Read in one statement where a RecordWithAclReader
   * is bound. Else (the ACL in Redis or another database) they are two reads that no snapshot
   * joins, so the pair is checked: every ACL write made with a record write stores, atomically
   * with the ACL, the `last_modified` of that record version (ACL_VERSION), and a record at
   * `last_modified` L is paired only with an ACL stamped S <= L. Where the record commits after
   * its ACL write (PostgreSQL storage: the Redis write is inside the transaction), every ACL
   * written for a version up to L is visible once L is, and a later one is stamped above L. Where
   * the record is visible before its ACL is written (memory storage), the ACL is first stamped
   * PENDING (above every L) until the write completes (record-acl-write.ts). So S <= L means the
   * ACL is the one of version L, whatever the order of the two reads; otherwise a write is in
   * flight: read both again. When that lasts (a writer died between its writes), the record's
   * own ACL grants nothing (no leak; collection grants still apply). An ACL without stamp (from
   * before stamps, or changed by an extension through the port) is taken as it is.
   */
  async target(resource: ResourceDefinition, id: string, getRecord: () => Promise<StoredRecord | undefined>): Promise<Target> {
    if (this.deps.together) {
      const [record, acl] = await Promise.all([getRecord(), this.storedAcl(resource, id)]);
      return { record, acl };
    }
    const objectId = recordObjectId(resource.name, id);
    const permissions = [...resource.permissions, ACL_VERSION];
    for (let attempt = 1; ; attempt++) {
      const [record, stored] = await Promise.all([getRecord(), this.deps.permissions.objectPermissions(objectId, permissions)]);
      const acl = aclOfVersion(stored, record ? record.lastModified : Number.MAX_SAFE_INTEGER);
      if (acl) return { record, acl: aclFromStored(acl) };
      if (attempt === PAIRING_ATTEMPTS) return { record, acl: {} };
      await new Promise((resolve) => setTimeout(resolve, PAIRING_PAUSE_MS * 2 ** attempt));
    }
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
    if (await authorizer.allowed(caller, resource, view, recordObjectId(resource.name, id), permissionFor(resource, view), target.acl))
      return;
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

  aclToStore(_resource: ResourceDefinition, caller: Caller, requested: Acl): Acl {
    return withWriter(requested, writerPrincipal(caller));
  }

  visibleAcl(caller: Caller, acl: Acl | undefined): Acl | undefined {
    if (acl === undefined) return undefined;
    const writers = acl[WRITE] ?? [];
    return caller.principals.some((p) => writers.includes(p)) ? acl : {};
  }

  createWithAcl(
    resource: ResourceDefinition,
    scope: Scope,
    id: string,
    data: JsonObject,
    options: WriteOptions,
    acl: Acl,
  ): Promise<StoredRecord> | undefined {
    const entries = { objectId: recordObjectId(resource.name, id), permissions: everyPermission(resource, acl) };
    return this.deps.createTogether?.createWithAcl(scope, id, data, options, entries);
  }

  /**
   * Replaces every known permission of the record, emptying those the ACL does not name; stamped
   * with `version` (the record's `last_modified`) where the ACL is paired by version (`target`).
   */
  async saveAcl(resource: ResourceDefinition, id: string, acl: Acl, version?: number): Promise<void> {
    await this.deps.permissions.replaceObjectPermissions(recordObjectId(resource.name, id), {
      ...everyPermission(resource, acl),
      ...this.stamp(version),
    });
  }

  pendingAcl(resource: ResourceDefinition, id: string, previousVersion: number | undefined): PendingAcl | undefined {
    if (this.deps.together) return undefined;
    const objectId = recordObjectId(resource.name, id);
    const stampOnly = (version: number | undefined) => this.deps.permissions.replaceObjectPermissions(objectId, this.stamp(version));
    return { mark: () => stampOnly(PENDING), clear: () => stampOnly(previousVersion) };
  }

  /** The stamp to store with an ACL (none where a RecordWithAclReader pairs them; no version: removed). */
  private stamp(version: number | undefined): Record<string, readonly string[]> {
    if (this.deps.together) return {};
    return { [ACL_VERSION]: version === undefined ? [] : [String(version)] };
  }

  lostReaders(resource: ResourceDefinition, id: string, before: Acl, after: Acl): string[] {
    return lostReaders(resource, recordObjectId(resource.name, id), before, after);
  }

  /** Reads who can read each record (one round trip), then deletes their ACLs. */
  aclRemoval(resource: ResourceDefinition, ids: readonly string[]): (() => Promise<AccessLoss[]>) | undefined {
    if (ids.length === 0) return undefined;
    return async () => {
      const { permissions } = this.deps;
      const objectIds = ids.map((id) => recordObjectId(resource.name, id));
      const acls = await permissions.manyObjectPermissions(objectIds, resource.permissions);
      await permissions.deleteObjectPermissions(...objectIds);
      return ids.map((id, i) => {
        const objectId = objectIds[i] ?? "";
        return { id, principals: [...recordReaders(recordReadPermissions(resource, objectId), acls.get(objectId) ?? {})] };
      });
    };
  }
}

/** The ACL with every known permission of the resource named, those it does not name emptied. */
function everyPermission(resource: ResourceDefinition, acl: Acl): Record<string, readonly string[]> {
  const full: Record<string, readonly string[]> = {};
  for (const permission of new Set([...resource.permissions, ...Object.keys(acl)])) full[permission] = acl[permission] ?? [];
  return full;
}

function aclFromStored(stored: ObjectPermissions): Acl {
  return normalizeAcl(Object.fromEntries(Object.entries(stored).map(([perm, principals]) => [perm, [...principals]])));
}
