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

/** Sorted by URI; `after`: only those past that URI. */
export async function heldTreeObjects(
  permissions: PermissionStore,
  principals: readonly string[],
  after?: string,
): Promise<HeldTreeObject[]> {
  const held = new Map<string, Set<string>>();
  const found = await Promise.all(EVERY_PERMISSION.map((p) => permissions.principalsAccessibleObjects(principals, p, "/buckets/*")));
  found.forEach((uris, i) => {
    for (const uri of uris) if (after === undefined || uri > after) held.set(uri, (held.get(uri) ?? new Set()).add(EVERY_PERMISSION[i]!));
  });
  const objects: HeldTreeObject[] = [];
  for (const [uri, direct] of held) {
    const object = treeObjectOf(uri);
    if (object) objects.push({ ...object, uri, permissions: impliedOnObject(object.level, direct) });
  }
  return objects.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
}
