/**
 * Each list of Kinto's tree (the buckets, a bucket's collections or groups, a collection's
 * records) is served as a shareable resource of its own, named by its URI without the leading
 * slash (`buckets/b/collections/c/records`): its records' object ids are then their Kinto URIs,
 * its storage scope is its own, and the record flows, listings, sync and the feed are the ones
 * every resource uses. Only the inheritance (domain/tree.ts) and the names differ.
 */
import { CREATE } from "../../domain/permissions.js";
import { pluralUri, TREE_PERMISSIONS, treeBoundPermissions, type TreePlace } from "../../domain/tree.js";
import type { RecordValidator, ResourceDefinition } from "../resources.js";

export interface TreeResourceOptions {
  /** Who may create buckets (`bucket_create_principals`). */
  readonly bucketCreatePrincipals: readonly string[];
  /** How a group's data is checked (its members). */
  readonly validateGroup: RecordValidator;
}

/** The resource serving the objects of a place of the tree; `validate` checks its records' data. */
export function treeResource(place: TreePlace, options: TreeResourceOptions, validate?: RecordValidator): ResourceDefinition {
  const settingsPrincipals: Record<string, readonly string[]> =
    place.level === "bucket" ? { [CREATE]: options.bucketCreatePrincipals } : {};
  return {
    name: pluralUri(place).slice(1),
    kind: "shareable",
    permissions: TREE_PERMISSIONS[place.level],
    settingsPrincipals,
    boundPermissions: treeBoundPermissions,
    validate: place.level === "group" ? options.validateGroup : validate,
  };
}

/** Whether a resource name is one of the tree's (flat resource names never hold a slash). */
export function isTreeResourceName(name: string): boolean {
  return name === "buckets" || name.startsWith("buckets/");
}
