/**
 * The objects of the tree on which a caller's principals hold a permission through an ACE (Kinto's
 * `/permissions`): each with every permission its ACEs give on it, the ones they imply on the same
 * object included (`write` gives `read`), never those inherited by what it contains.
 */
import { TREE_PERMISSIONS, impliedOnObject, treeObjectOf, type TreePlace } from "../../domain/tree.js";
import type { PermissionStore } from "../ports/permission-store.js";

export interface HeldTreeObject extends TreePlace {
  readonly uri: string;
  readonly id: string;
  readonly permissions: readonly string[];
}

const EVERY_PERMISSION = [...new Set(Object.values(TREE_PERMISSIONS).flat())];

/**
 * Each tree object URI an ACE names one of `principals` in, with the permissions those ACEs give.
 * One read per permission, one after the other: inside a unit of work they share one connection.
 */
export async function aceHeldTreeUris(permissions: PermissionStore, principals: readonly string[]): Promise<Map<string, Set<string>>> {
  const held = new Map<string, Set<string>>();
  for (const permission of EVERY_PERMISSION)
    for (const uri of await permissions.principalsAccessibleObjects(principals, permission, "/buckets/*"))
      held.set(uri, (held.get(uri) ?? new Set()).add(permission));
  return held;
}

/** Sorted by URI; `after`: only those past that URI. */
export async function heldTreeObjects(
  permissions: PermissionStore,
  principals: readonly string[],
  after?: string,
): Promise<HeldTreeObject[]> {
  const objects: HeldTreeObject[] = [];
  for (const [uri, direct] of await aceHeldTreeUris(permissions, principals)) {
    const object = after === undefined || uri > after ? treeObjectOf(uri) : undefined;
    if (object) objects.push({ ...object, uri, permissions: impliedOnObject(object.level, direct) });
  }
  return objects.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
}
