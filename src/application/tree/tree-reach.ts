/**
 * The lists of the tree whose records a principal may read through an ACE: where a change of who
 * holds that principal moves access (AccessStamps looks at them as at the declared resources).
 * An object named in an ACE puts its own list in; a collection also puts its records in, and a
 * bucket every list inside it (its collections', groups' and each collection's records).
 */
import { treeObjectOf } from "../../domain/tree.js";
import { aceHeldTreeUris } from "./held-tree-objects.js";
import type { PermissionStore } from "../ports/permission-store.js";
import { listsInside, type ListsInsideDeps } from "./lists-inside.js";
import type { ResourceDefinition } from "../resources.js";

export interface TreeReachDeps extends ListsInsideDeps {
  readonly permissions: PermissionStore;
}

export function treeReach(deps: TreeReachDeps): (principals: readonly string[]) => Promise<ResourceDefinition[]> {
  return async (principals) => {
    const lists = new Map<string, ResourceDefinition>();
    const add = (list: ResourceDefinition) => lists.set(list.name, list);
    for (const uri of (await aceHeldTreeUris(deps.permissions, principals)).keys()) {
      const object = treeObjectOf(uri);
      if (!object) continue;
      add(deps.resources.of({ level: object.level, bucket: object.bucket, collection: object.collection }));
      for (const list of await listsInside(deps, object, object.id)) add(list);
    }
    return [...lists.values()];
  };
}
