/**
 * What a restricted caller (one without collection-level read, docs/adr/0011) sees of a scope:
 * the one home of these rules, called by the memory listing, the portable listing and the live
 * feed alike (PostgreSQL states the same rules in its joined SQL). `principals` are the caller's
 * grants' principals (Grants.principals); a record's readers are those its ACL names under the
 * grants' permissions (readersOf).
 */
import type { Tombstone } from "../../domain/records.js";

/** A version shows to the caller when its ACL names one of the caller's principals as a reader. */
export function readsVersion(principals: ReadonlySet<string>, readers: Iterable<string> | undefined): boolean {
  for (const reader of readers ?? []) if (principals.has(reader)) return true;
  return false;
}

/**
 * The tombstones a caller is owed for lost access: one per record that one of its principals
 * lost (`losses`: only those of the caller's principals) and that it cannot read now, at the
 * newest such loss. A record still readable through another principal shows no false deletion.
 */
export function lossTombstones(
  losses: Iterable<{ readonly id: string; readonly lastModified: number }>,
  readsNow: (id: string) => boolean,
): Tombstone[] {
  const newest = new Map<string, number>();
  for (const { id, lastModified } of losses) {
    const known = newest.get(id);
    if (known !== undefined) newest.set(id, Math.max(known, lastModified));
    else if (!readsNow(id)) newest.set(id, lastModified);
  }
  return [...newest].map(([id, lastModified]) => ({ id, lastModified, deleted: true }));
}

/**
 * A record given to the caller after a sync position (a group change) shows in that sync when
 * the caller reads it now and its own version is not already after the position (the range of
 * changes then holds it).
 */
export function showsGained(readsNow: boolean, modifiedAfterPosition: boolean): boolean {
  return readsNow && !modifiedAfterPosition;
}
