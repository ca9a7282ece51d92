/** Kinto's resource tree as the HTTP adapter serves it: the tree's record flows, resources and default bucket. */
import type { DefaultBucket } from "../../application/tree/default-bucket.js";
import type { TreeResources } from "../../application/tree/tree-places.js";
import type { TreeRecords } from "../../application/tree/tree-records.js";

export interface HttpTree {
  readonly records: TreeRecords;
  readonly resources: TreeResources;
  readonly defaultBucket: DefaultBucket;
}
