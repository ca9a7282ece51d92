/**
 * Where an ACL lives apart from its record (Redis or memory permissions, or another database),
 * a record and its ACL read one after the other are paired by version: every ACL write made with
 * a record write stores, atomically with the ACL, the `last_modified` of that record version, in
 * a pseudo-permission that no resource declares and no bound permission names (so it grants
 * nothing). A record at `last_modified` L is paired only with an ACL stamped S <= L, read after
 * the record (an ACL read first may predate a revoke answered before L was written). Where the
 * record is visible before its ACL is written (no transaction), the ACL is first stamped PENDING
 * (above every L) until the write completes. An ACL without stamp (from before stamps, or changed
 * through `ExtensionContext.permissions`) is taken as it is. Internal to the portable SharedRecords.
 *
 * An ACL rewritten inside a record's transaction also keeps, in the same atomic write, a copy of
 * the ACL it replaces with that one's stamp. Until the transaction commits, the record's version
 * is still paired with that copy; and if the writing process dies before its commit (the record
 * rolled back, the rewritten ACL left stamped above it), the record keeps the ACL it had instead
 * of pairing with none.
 */
import type { AclEntries } from "../ports/shared-records.js";
import type { ObjectPermissions } from "../ports/permission-store.js";

/** The pseudo-permission holding the version stamp of a record's ACL. */
export const ACL_VERSION = "tessera:acl_version";

/** The stamp of an ACL whose record write is in flight: above every `last_modified`. */
export const PENDING = Number.MAX_SAFE_INTEGER;

/** The stamp of the replaced ACL's copy. */
const PREVIOUS_VERSION = "tessera:previous_acl_version";
/** Prefixes each permission of the replaced ACL's copy. */
const PREVIOUS = "tessera:previous:";

/** What to read of an ACL besides `permissions` to pair it with a version: the stamps and the copy. */
export function pairingPermissions(permissions: readonly string[]): string[] {
  return [ACL_VERSION, PREVIOUS_VERSION, ...permissions.map((permission) => PREVIOUS + permission)];
}

/**
 * The ACL of the record version `lastModified` (stamps and copy taken out): the stored ACL when
 * stamped at or below it; else the copy of the ACL it replaced, when stamped at or below it; else
 * undefined (a later write, done or in flight; a mark in flight clears the copy, since the
 * version it will write is unknown). The one rule that pairs a record and an ACL read apart, for
 * a read and for the live feed alike.
 */
export function aclOfVersion(stored: ObjectPermissions, lastModified: number): ObjectPermissions | undefined {
  const acl: ObjectPermissions = {};
  const previous: ObjectPermissions = {};
  for (const [permission, principals] of Object.entries(stored)) {
    if (permission.startsWith(PREVIOUS)) previous[permission.slice(PREVIOUS.length)] = principals;
    else if (permission !== ACL_VERSION && permission !== PREVIOUS_VERSION) acl[permission] = principals;
  }
  const stamp = stampOf(stored[ACL_VERSION]);
  if (stamp === undefined || stamp <= lastModified) return acl;
  const copied = stampOf(stored[PREVIOUS_VERSION]);
  return copied !== undefined && copied <= lastModified ? previous : undefined;
}

function stampOf(principals: ReadonlySet<string> | undefined): number | undefined {
  return principals === undefined || principals.size === 0 ? undefined : Math.max(...[...principals].map(Number));
}

/** The stamp to store with an ACL or a mark (no version: the stamp is removed), and no copy of a replaced ACL. */
export function versionStamp(version: number | undefined): Record<string, readonly string[]> {
  return { [ACL_VERSION]: version === undefined ? [] : [String(version)], [PREVIOUS_VERSION]: [] };
}

/**
 * The stamp to store with an ACL that replaces `previous` (the ACL of `previousVersion`), with a
 * copy of `previous` under each permission either names (written with the ACL, atomically).
 */
export function replacingStamp(
  version: number,
  previous: AclEntries,
  previousVersion: number,
  acl: AclEntries,
): Record<string, readonly string[]> {
  const copy: Record<string, readonly string[]> = {};
  for (const permission of new Set([...Object.keys(acl), ...Object.keys(previous)]))
    copy[PREVIOUS + permission] = previous[permission] ?? [];
  return { [ACL_VERSION]: [String(version)], [PREVIOUS_VERSION]: [String(previousVersion)], ...copy };
}
