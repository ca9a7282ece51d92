/** The ids of a bucket's collections, every one (whoever reads the bucket reads them all). */
import type { ResourceKindPolicy } from "../kinds/resource-kind-policy.js";
import type { RecordStore } from "../ports/record-store.js";
import { anonymousRequester } from "../requester.js";
import type { TreeResources } from "./tree-places.js";

export async function bucketCollections(
  store: RecordStore,
  kind: ResourceKindPolicy,
  resources: TreeResources,
  bucket: string,
): Promise<string[]> {
  const scope = kind.scope(anonymousRequester(), resources.of({ level: "collection", bucket }));
  const query = {
    filters: [],
    sort: [{ field: "last_modified", descending: false }],
    limit: Number.MAX_SAFE_INTEGER,
    includeDeleted: false,
  };
  return (await store.list(scope, query)).map((entry) => entry.id);
}
