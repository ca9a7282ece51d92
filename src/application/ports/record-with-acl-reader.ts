import type { StoredRecord } from "../../domain/records.js";
import type { ObjectPermissions } from "./permission-store.js";
import type { Scope } from "./record-store.js";

/** What a read of one record needs besides the record: its ACL, and whose extra principals. */
export interface RecordAclQuery {
  /** The record's object id in the permission backend, and the permissions of its ACL to read. */
  readonly objectId: string;
  readonly permissions: readonly string[];
  /** Read this user's extra principals too; undefined: they are not needed (known, or anonymous). */
  readonly principalsOf: string | undefined;
}

export interface RecordWithAcl {
  /** As RecordStore.get: undefined when missing or deleted. */
  readonly record: StoredRecord | undefined;
  /** As PermissionStore.objectPermissions(objectId, permissions). */
  readonly acl: ObjectPermissions;
  /** As PermissionStore.userPrincipals(principalsOf); undefined when not asked. */
  readonly principals: Set<string> | undefined;
}

/**
 * A capability, not every store's: a record, its ACL and the caller's extra principals in one
 * round trip, because the records and the permission backend's tables live in one database.
 * Bound only where that holds (the composition root decides once, at startup); elsewhere the
 * read asks RecordStore.get, PermissionStore.objectPermissions and userPrincipals.
 */
export interface RecordWithAclReader {
  getWithAcl(scope: Scope, id: string, query: RecordAclQuery): Promise<RecordWithAcl>;
}
