/**
 * The shapes the PostgreSQL statements that join records with their ACEs take (records and ACEs
 * in one database: PostgresSharedRecords).
 */
import type { ObjectPermissions } from "../../application/ports/permission-store.js";
import type { InheritedAcls } from "../../application/ports/shared-records.js";
import type { BoundPermission } from "../../domain/permissions.js";
import type { StoredRecord } from "../../domain/records.js";

/** Records whose own ACEs grant one of `permissions` to one of `principals` (object ids under `objectIdPrefix`). */
export interface JoinedGrants {
  readonly principals: readonly string[];
  readonly permissions: readonly string[];
  readonly objectIdPrefix: string;
}

/** What a read of one record needs besides the record: its ACL, and whose extra principals. */
export interface RecordAclQuery {
  readonly objectId: string;
  readonly permissions: readonly string[];
  /** Read this user's extra principals too; undefined: not needed (known, or anonymous). */
  readonly principalsOf: string | undefined;
  /** ACEs of other objects to read with it (RecordAcls.inherited); none when undefined. */
  readonly inherited?: readonly BoundPermission[];
}

export interface RecordWithAcl {
  /** As RecordStore.get: undefined when missing or deleted. */
  readonly record: StoredRecord | undefined;
  /** As PermissionStore.objectPermissions(objectId, permissions). */
  readonly acl: ObjectPermissions;
  /** As PermissionStore.userPrincipals(principalsOf); undefined when not asked. */
  readonly principals: Set<string> | undefined;
  /** The ACLs of `inherited`'s objects (`{}` for one without ACE); undefined when not asked. */
  readonly inherited?: InheritedAcls;
}
