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
 */
import type { ObjectPermissions } from "../ports/permission-store.js";

/** The pseudo-permission holding the version stamp of a record's ACL. */
export const ACL_VERSION = "tessera:acl_version";

/** The stamp of an ACL whose record write is in flight: above every `last_modified`. */
export const PENDING = Number.MAX_SAFE_INTEGER;

/**
 * The ACL of the record version `lastModified` (its stamp taken out), or undefined when the
 * stored ACL belongs to a later write, done or in flight (stamped above it): the one rule that
 * pairs a record and an ACL read apart, for a read and for the live feed alike.
 */
export function aclOfVersion(stored: ObjectPermissions, lastModified: number): ObjectPermissions | undefined {
  const { [ACL_VERSION]: stamp, ...acl } = stored;
  if (stamp === undefined || stamp.size === 0) return acl;
  return Math.max(...[...stamp].map(Number)) <= lastModified ? acl : undefined;
}

/** The stamp to store with an ACL (no version: the stamp is removed). */
export function versionStamp(version: number | undefined): Record<string, readonly string[]> {
  return { [ACL_VERSION]: version === undefined ? [] : [String(version)] };
}
