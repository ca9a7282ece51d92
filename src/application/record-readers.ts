/**
 * Who reads a shareable record through its own ACL (docs/adr/0011): the principals of the
 * record's permissions that grant read (`read`, `write`, bound permissions naming the record);
 * who they are under an ACL is `readersOf` (ports/shared-records.ts).
 */
import { READ } from "../domain/permissions.js";
import { boundPermissionsOf, type ResourceDefinition } from "./resources.js";

/** The permissions on the record itself (object id `objectId`) that grant read on it. */
export function recordReadPermissions(resource: ResourceDefinition, objectId: string): string[] {
  return boundPermissionsOf(resource)(objectId, READ)
    .filter((b) => b.objectId === objectId)
    .map((b) => b.permission);
}
