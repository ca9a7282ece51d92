/**
 * The lists of the tree whose records a principal may read through an ACE: where a change of who
 * holds that principal moves access (AccessStamps looks at them as at the declared resources).
 * An object named in an ACE puts its own list in; a collection also puts its records in, and a
 * bucket every list inside it (its collections', groups' and each collection's records).
 */
import { treeObjectOf, type TreePlace } from "../../domain/tree.js";
import { aceHeldTreeUris } from "./held-tree-objects.js";
import type { ResourceKindPolicy } from "../kinds/resource-kind-policy.js";
import type { PermissionStore } from "../ports/permission-store.js";
import type { RecordStore } from "../ports/record-store.js";
import { bucketCollections } from "./bucket-collections.js";
import type { ResourceDefinition } from "../resources.js";
import type { TreeResources } from "./tree-places.js";

export interface TreeReachDeps {
  readonly permissions: PermissionStore;
  readonly store: RecordStore;
  readonly kind: ResourceKindPolicy;
  readonly resources: TreeResources;
}

export function treeReach(deps: TreeReachDeps): (principals: readonly string[]) => Promise<ResourceDefinition[]> {
  const { permissions, store, kind, resources } = deps;
  return async (principals) => {
    const uris = (await aceHeldTreeUris(permissions, principals)).keys();
    const places = new Map<string, TreePlace>();
    const add = (place: TreePlace) => places.set(resources.of(place).name, place);
    for (const uri of uris) {
      const object = treeObjectOf(uri);
      if (!object) continue;
      add({ level: object.level, bucket: object.bucket, collection: object.collection });
      if (object.level === "collection") add({ level: "record", bucket: object.bucket, collection: object.id });
      if (object.level !== "bucket") continue;
      add({ level: "collection", bucket: object.id });
      add({ level: "group", bucket: object.id });
      for (const collection of await bucketCollections(store, kind, resources, object.id))
        add({ level: "record", bucket: object.id, collection });
    }
    return [...places.values()].map((place) => resources.of(place));
  };
}
