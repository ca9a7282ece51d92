/**
 * Who reads a shareable record through its own ACL (docs/adr/0011): the principals of the
 * record's permissions that grant read (`read`, `write`, bound permissions naming the record).
 * Those who were readers before an ACL change and are not after lost the record: their next
 * sync shows it as a tombstone. Group membership and collection-level grants are not followed.
 */
import type { Acl } from "../domain/acl.js";
import { READ } from "../domain/permissions.js";
import { boundPermissionsOf, type ResourceDefinition } from "./resources.js";

/** The permissions on the record itself (object id `objectId`) that grant read on it. */
export function recordReadPermissions(resource: ResourceDefinition, objectId: string): string[] {
  return boundPermissionsOf(resource)(objectId, READ)
    .filter((b) => b.objectId === objectId)
    .map((b) => b.permission);
}

export function recordReaders(readPermissions: readonly string[], acl: Readonly<Record<string, Iterable<string>>>): Set<string> {
  return new Set(readPermissions.flatMap((permission) => [...(acl[permission] ?? [])]));
}

/** The readers under `before` who are not readers under `after`. */
export function lostReaders(resource: ResourceDefinition, objectId: string, before: Acl, after: Acl): string[] {
  const permissions = recordReadPermissions(resource, objectId);
  const remaining = recordReaders(permissions, after);
  return [...recordReaders(permissions, before)].filter((principal) => !remaining.has(principal));
}
