/** Access control lists of one object: permission name → principals. */
import { WRITE } from "./permissions.js";

export type Acl = Readonly<Record<string, readonly string[]>>;

/** Drop duplicate principals and empty permissions (an empty list removes the permission). */
export function normalizeAcl(acl: Acl): Acl {
  const result: Record<string, string[]> = {};
  for (const [permission, principals] of Object.entries(acl)) {
    const unique = [...new Set(principals)];
    if (unique.length > 0) result[permission] = unique;
  }
  return result;
}

/** POST/PUT: the given permissions replace the whole ACL (unnamed ones are emptied). */
export function replaceAcl(_existing: Acl, given: Acl): Acl {
  return normalizeAcl(given);
}

/**
 * PATCH: each named permission's list replaces the stored one; `null` removes the permission
 * (merge-patch) and permissions not named stay as they are.
 */
export function patchAcl(existing: Acl, changes: Readonly<Record<string, readonly string[] | null>>): Acl {
  const result: Record<string, readonly string[]> = { ...existing };
  for (const [permission, principals] of Object.entries(changes)) {
    if (principals === null) delete result[permission];
    else result[permission] = principals;
  }
  return normalizeAcl(result);
}

/** The creator or updater always ends up in `write` (spec §3). */
export function withWriter(acl: Acl, principal: string): Acl {
  const writers = acl[WRITE] ?? [];
  return writers.includes(principal) ? acl : { ...acl, [WRITE]: [...writers, principal] };
}

export function aclEqual(a: Acl, b: Acl): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => {
    const x = new Set(a[k]);
    const y = b[k] ?? [];
    return x.size === new Set(y).size && y.every((p) => x.has(p));
  });
}
