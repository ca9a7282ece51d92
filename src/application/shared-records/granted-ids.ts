/** The record ids some grants reach through the records' own ACLs, asked of the permission backend. */
import type { PermissionStore } from "../ports/permission-store.js";
import type { Grants, RecordAcls } from "../ports/shared-records.js";

/** The ids of the records whose ACL grants one of the grants' permissions to one of its principals. */
export async function grantedIds(permissions: PermissionStore, acls: RecordAcls, grants: Grants): Promise<string[]> {
  const { objectIdPrefix } = acls;
  const objects = await permissions.principalsAccessibleObjects(
    grants.principals,
    grants.permission,
    `${objectIdPrefix}*`,
    grants.boundPermissions,
  );
  return [...objects]
    .filter((o) => o.startsWith(objectIdPrefix))
    .map((o) => o.slice(objectIdPrefix.length))
    .filter((id) => id.length > 0 && !id.includes("/"));
}
