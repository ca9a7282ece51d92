import type { JsonObject } from "../../domain/json.js";
import type { StoredRecord } from "../../domain/records.js";
import type { Scope, WriteOptions } from "./record-store.js";

/** A record's whole ACL as the permission backend stores it: every permission named (an empty list empties it). */
export interface RecordAclEntries {
  readonly objectId: string;
  readonly permissions: Readonly<Record<string, readonly string[]>>;
}

/**
 * A capability, not every store's: a record created and its ACL stored in one statement, because
 * the records and the permission backend's tables live in one database (and concurrent creates
 * of a collection then share one). Bound only where that holds (the composition root decides
 * once, at startup); elsewhere the record service writes them one after the other in a unit of
 * work (writeRecordWithAcl).
 */
export interface RecordWithAclWriter {
  /**
   * As RecordStore.create (ConflictError when a live record has the id) and, atomically with it,
   * PermissionStore.replaceObjectPermissions(acl.objectId, acl.permissions). No access is lost by
   * a create (nobody could read the record before), so none is recorded.
   */
  createWithAcl(scope: Scope, id: string, data: JsonObject, options: WriteOptions, acl: RecordAclEntries): Promise<StoredRecord>;
}
