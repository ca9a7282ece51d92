/**
 * What the record flows ask of a kind of resource (user, shareable, ...): where its records live,
 * who the caller is, what each view requires, and which ACL is stored and shown. The flows in
 * RecordService are the same for every kind; each kind is one object implementing this.
 */
import type { Acl } from "../../domain/acl.js";
import type { Caller } from "../../domain/principals.js";
import type { JsonObject } from "../../domain/json.js";
import type { StoredRecord } from "../../domain/records.js";
import type { PendingAcl } from "../record-acl-write.js";
import type { RecordPermission } from "../record-access.js";
import type { AccessLoss, Scope, WriteOptions } from "../ports/record-store.js";
import type { Requester } from "../requester.js";
import type { ResourceDefinition, ResourceKind, ViewName } from "../resources.js";

/** A record as fetched before a decision: undefined when missing; its ACL when the kind keeps one. */
export interface Target {
  readonly record: StoredRecord | undefined;
  readonly acl: Acl | undefined;
}

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
   * The caller and the record with its ACL, for a read: `getRecord` and the lookups concurrently,
   * or one round trip where the kind's store reads them together (RecordWithAclReader).
   */
  callerAndTarget(
    requester: Requester,
    resource: ResourceDefinition,
    scope: Scope,
    id: string,
    getRecord: () => Promise<StoredRecord | undefined>,
  ): Promise<[Caller, Target]>;

  /** The record's stored ACL, fetched alongside the record; undefined when the kind keeps none. */
  storedAcl(resource: ResourceDefinition, id: string): Promise<Acl | undefined>;

  /** The record (`getRecord`) and the ACL of that same version, for a decision about it. */
  target(resource: ResourceDefinition, id: string, getRecord: () => Promise<StoredRecord | undefined>): Promise<Target>;

  /** Whether the caller may use `view` on the whole collection. */
  allowsCollection(caller: Caller, resource: ResourceDefinition, view: ViewName): Promise<boolean>;

  /** Throws 401 (anonymous) or 403 unless `allowsCollection`. */
  requireCollection(caller: Caller, resource: ResourceDefinition, view: ViewName): Promise<void>;

  /** Throws 401/403 unless the caller may use `view` on the record (`knownAcl`: its ACL, when fetched). */
  requireRecord(caller: Caller, resource: ResourceDefinition, view: ViewName, id: string, knownAcl: Acl | undefined): Promise<void>;

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

  /** The ACL to store for a record the caller writes (the caller ends up in `write`); undefined: none kept. */
  aclToStore(resource: ResourceDefinition, caller: Caller, requested: Acl): Acl | undefined;

  /** What the caller sees of a record's ACL: undefined when the kind keeps none. */
  visibleAcl(caller: Caller, acl: Acl | undefined): Acl | undefined;

  /**
   * A new record and its ACL in one step, where the kind's stores can (RecordWithAclWriter);
   * undefined where they cannot: the service then writes them one after the other (saveAcl).
   */
  createWithAcl(
    resource: ResourceDefinition,
    scope: Scope,
    id: string,
    data: JsonObject,
    options: WriteOptions,
    acl: Acl,
  ): Promise<StoredRecord> | undefined;

  /**
   * Replaces the record's stored ACL with `acl` (every known permission not in it emptied);
   * `version`: the `last_modified` of the record version it belongs to, when known.
   */
  saveAcl(resource: ResourceDefinition, id: string, acl: Acl, version?: number): Promise<void>;

  /**
   * Where the record is visible before its ACL is written (see ShareableKind.target), the marks
   * of an ACL write in flight (its undo puts `previousVersion` back); undefined when not needed.
   */
  pendingAcl(resource: ResourceDefinition, id: string, previousVersion: number | undefined): PendingAcl | undefined;

  /**
   * Principals who read the record through `before` and no longer through `after` (they lost it:
   * docs/adr/0011); none for a kind that keeps no ACL.
   */
  lostReaders(resource: ResourceDefinition, id: string, before: Acl, after: Acl): string[];

  /**
   * The write that forgets the ACLs of deleted records, resolving to who could read each of them
   * until then; undefined when there is nothing to forget.
   */
  aclRemoval(resource: ResourceDefinition, ids: readonly string[]): (() => Promise<AccessLoss[]>) | undefined;
}

/** One policy per kind a resource may declare. */
export type ResourceKinds = { readonly [K in ResourceKind]: ResourceKindPolicy };
