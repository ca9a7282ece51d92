/**
 * What the record flows ask of a kind of resource (user, shareable, ...): where its records live,
 * who the caller is, what each view requires, and which ACL is stored and shown. The flows in
 * RecordService are the same for every kind; each kind is one object implementing this.
 */
import type { Acl } from "../../domain/acl.js";
import type { Caller } from "../../domain/principals.js";
import type { AclReader, Decision, HeldGrant } from "../authorizer.js";
import type { READ, WRITE } from "../../domain/permissions.js";
import type { StoredRecord } from "../../domain/records.js";
import type { Scope } from "../ports/record-store.js";
import type { AclEntries, Grants, InheritedAcls, RecordAcls } from "../ports/shared-records.js";
import type { Requester } from "../requester.js";
import type { ResourceDefinition, ResourceKind, ViewName } from "../resources.js";

/** A record as fetched before a decision: undefined when missing; its ACL when the kind keeps one. */
export interface Target {
  readonly record: StoredRecord | undefined;
  readonly acl: Acl | undefined;
  /** The ACLs of the objects above it read with it (RecordAcls.inherited), when its kind asks for them. */
  readonly inherited?: InheritedAcls;
}

/** The permission a restricted collection view needs on each record. */
export type RecordPermission = typeof READ | typeof WRITE;

/** The views that work on many records at once, and the record permission each one needs. */
export type CollectionView = "list" | "deleteAll";

export interface ResourceKindPolicy {
  /** Where the requester's records of this resource live; throws 401 when the kind needs a user. */
  scope(requester: Requester, resource: ResourceDefinition): Scope;

  /** The caller as far as this kind needs to know (principals only when permissions matter). */
  caller(requester: Requester): Promise<Caller>;

  /**
   * The caller as far as creating a record under a new id needs: without their extra principals
   * (no backend lookup) when the settings principals let every such caller create anyway.
   */
  creator(requester: Requester, resource: ResourceDefinition): Promise<Caller>;

  /**
   * How the records of this resource map to ACLs (SharedRecords reads and writes them with the
   * record); undefined for a kind that keeps no ACL (its records go to the RecordStore alone).
   */
  recordAcls(resource: ResourceDefinition): RecordAcls | undefined;

  /** The grants through which the caller holds `permission` on records of the resource (a restricted view). */
  grants(caller: Caller, resource: ResourceDefinition, permission: RecordPermission): Grants | undefined;

  /** Whether the caller may use `view` on the whole collection. */
  allowsCollection(caller: Caller, resource: ResourceDefinition, view: ViewName): Promise<boolean>;

  /** Throws 401 (anonymous) or 403 unless `allowsCollection`. */
  requireCollection(caller: Caller, resource: ResourceDefinition, view: ViewName): Promise<void>;

  /**
   * Throws 401/403 unless the caller may use `view` on the record (`knownAcl`: its ACL, when
   * fetched; `inherited`: the ACLs above it, when read with it).
   */
  requireRecord(
    caller: Caller,
    resource: ResourceDefinition,
    view: ViewName,
    id: string,
    knownAcl: Acl | undefined,
    inherited?: InheritedAcls,
  ): Promise<void>;

  /**
   * PATCH/DELETE target: 401/403 without the permission; a missing record is a 404 only for
   * callers who may list the collection, so existence never leaks to the others.
   */
  requireWrite(caller: Caller, resource: ResourceDefinition, view: ViewName, id: string, target: Target): Promise<void>;

  /**
   * Which records of the scope a collection view may touch: undefined for all of them, else the
   * permission the caller must hold on a record (through its ACL) for it to count.
   */
  restriction(caller: Caller, resource: ResourceDefinition, view: CollectionView): Promise<RecordPermission | undefined>;

  /** The caller and its `restriction`, in one round trip where the permission backend reads principals and checks together. */
  callerAndRestriction(
    requester: Requester,
    resource: ResourceDefinition,
    view: CollectionView,
  ): Promise<[Caller, RecordPermission | undefined]>;

  /**
   * The decision on `permission` for the record `id` (its ACL `knownAcl`), or for the collection
   * when `id` is undefined, with where it comes from: what requireRecord / requireCollection decide.
   */
  explain(
    caller: Caller,
    resource: ResourceDefinition,
    permission: string,
    id: string | undefined,
    knownAcl: Acl | undefined,
    acls: AclReader,
  ): Promise<Decision>;

  /** Who holds `permission` on the record through each grant (no group expansion); undefined for a kind without ACL. */
  holders(resource: ResourceDefinition, permission: string, id: string, knownAcl: Acl, acls: AclReader): Promise<HeldGrant[] | undefined>;

  /** The ACL to store for a record the caller writes (the caller ends up in `write`); undefined: none kept. */
  aclToStore(resource: ResourceDefinition, caller: Caller, requested: Acl): Acl | undefined;

  /** What the caller sees of a record's ACL: undefined when the kind keeps none. */
  visibleAcl(caller: Caller, acl: Acl | undefined): Acl | undefined;

  /** The ACL as stored for a record: every permission the resource knows named, those `acl` lacks emptied. */
  aclEntries(resource: ResourceDefinition, acl: Acl): AclEntries;
}

/** One policy per kind a resource may declare. */
export type ResourceKinds = { readonly [K in ResourceKind]: ResourceKindPolicy };
