/** Where a tree resource's objects are, read back from its name; and the resources of each place. */
import { LEVEL_SEGMENT, type TreeLevel, type TreePlace } from "../../domain/tree.js";
import type { ResourceDefinition } from "../resources.js";
import { treeResource, type TreeResourceOptions } from "./tree-resources.js";

const LEVEL_BY_SEGMENT = new Map(Object.entries(LEVEL_SEGMENT).map(([level, segment]) => [segment, level as TreeLevel]));

/** The place of a tree resource (`buckets/b/collections/c/records` → records of c in b). */
export function placeOf(resource: ResourceDefinition): TreePlace {
  const parts = resource.name.split("/");
  const level = LEVEL_BY_SEGMENT.get(parts[parts.length - 1]!);
  if (!level) throw new Error(`not a resource of the tree: ${resource.name}`);
  return { level, bucket: parts[1], collection: parts[3] };
}

/** The resource of each place, with the settings every place shares. */
export class TreeResources {
  constructor(private readonly options: TreeResourceOptions) {}

  of(place: TreePlace): ResourceDefinition {
    return treeResource(place, this.options);
  }
}
