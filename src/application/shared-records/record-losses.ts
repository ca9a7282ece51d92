/** Lost read access, recorded at the timestamps of the writes that caused it (docs/adr/0011). */
import type { Tombstone } from "../../domain/records.js";
import type { PermissionStore } from "../ports/permission-store.js";
import type { AccessJournal, RecordedLoss } from "../ports/access-journal.js";
import type { Scope } from "../ports/record-store.js";
import { readersOf, type RecordAcls } from "../ports/shared-records.js";

export async function recordLosses(journal: AccessJournal, scope: Scope, losses: readonly RecordedLoss[]): Promise<void> {
  const real = losses.filter((loss) => loss.principals.length > 0);
  if (real.length > 0) await journal.recordLostAccessAt(scope, real);
}

/** After a bulk delete by grants (in its unit of work): the deleted records' ACLs go, and who could read each lost it. */
export async function forgetAclsOfDeleted(
  journal: AccessJournal,
  permissions: PermissionStore,
  acls: RecordAcls,
  scope: Scope,
  deleted: readonly Tombstone[],
): Promise<void> {
  const lost = await removeAcls(
    permissions,
    acls,
    deleted.map((t) => t.id),
  );
  await recordLosses(
    journal,
    scope,
    deleted.map((t) => ({ id: t.id, lastModified: t.lastModified, principals: lost.get(t.id) ?? [] })),
  );
}

/** Reads who can read each record (one round trip), then deletes their ACLs: per id, its former readers. */
export async function removeAcls(permissions: PermissionStore, acls: RecordAcls, ids: readonly string[]): Promise<Map<string, string[]>> {
  if (ids.length === 0) return new Map();
  const objectIds = ids.map((id) => acls.objectIdPrefix + id);
  const stored = await permissions.manyObjectPermissions(objectIds, acls.permissions);
  await permissions.deleteObjectPermissions(...objectIds);
  return new Map(
    ids.map((id, i) => {
      const objectId = objectIds[i] ?? "";
      return [id, [...readersOf(acls.readPermissions(objectId), stored.get(objectId) ?? {})]] as const;
    }),
  );
}
