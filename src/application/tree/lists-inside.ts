/**
 * The lists of the tree inside an object: a collection's records; a bucket's collections, groups
 * and every collection's records (whoever reads a bucket reads them all).
 */
import type { TreePlace } from "../../domain/tree.js";
import type { ResourceKindPolicy } from "../kinds/resource-kind-policy.js";
import type { RecordStore } from "../ports/record-store.js";
import { anonymousRequester } from "../requester.js";
import type { ResourceDefinition } from "../resources.js";
import type { TreeResources } from "./tree-places.js";

export interface ListsInsideDeps {
  readonly store: RecordStore;
  readonly kind: ResourceKindPolicy;
  readonly resources: TreeResources;
}

/** The lists inside the object `id` of `place`; none inside a group or a record. */
export async function listsInside(deps: ListsInsideDeps, place: TreePlace, id: string): Promise<ResourceDefinition[]> {
  const { store, kind, resources } = deps;
  if (place.level === "collection") return [resources.of({ level: "record", bucket: place.bucket!, collection: id })];
  if (place.level !== "bucket") return [];
  const collections = resources.of({ level: "collection", bucket: id });
  const query = {
    filters: [],
    sort: [{ field: "last_modified", descending: false }],
    limit: Number.MAX_SAFE_INTEGER,
    includeDeleted: false,
  };
  const ids = (await store.list(kind.scope(anonymousRequester(), collections), query)).map((entry) => entry.id);
  return [
    collections,
    resources.of({ level: "group", bucket: id }),
    ...ids.map((collection) => resources.of({ level: "record", bucket: id, collection })),
  ];
}
