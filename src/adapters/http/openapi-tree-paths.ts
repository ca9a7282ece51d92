/**
 * The OpenAPI description of Kinto's tree (tree-routes.ts): each level is a resource mounted
 * under its parents' ids, described as any resource is (openapi-resource-paths.ts), with the
 * level's permission names, its data (a group's `members`, a collection's `schema`), who may do
 * what there (inheritance, docs/kinto.md), the `default` bucket, and the records' missing
 * collection (404, errno 111). Only a collection's records have a live feed.
 */
import type { JsonObject } from "../../domain/json.js";
import type { TreeLevel, TreePlace } from "../../domain/tree.js";
import type { ViewName } from "../../application/resources.js";
import type { HttpResource, HttpServices } from "./http-services.js";
import { errorResponse, ID_SCHEMA } from "./openapi-components.js";
import { resourceDocument, type ResourceDocument, type ResourceMount } from "./openapi-resource-paths.js";
import { allowedMethods } from "./record-routes.js";
import type { HttpTree } from "./http-tree.js";

/** The response component of a records URL's 404: the record, or the collection it names. */
const MISSING_PARENT = "TreeObjectOrCollectionNotFound";

function pathParameter(name: string, description: string): JsonObject {
  return { name, in: "path", required: true, description, schema: ID_SCHEMA };
}

const BUCKET_ID = pathParameter(
  "bucket_id",
  "The bucket's id; `default` is the caller's own bucket (created on first use, with the collection the path names).",
);
const COLLECTION_ID = pathParameter("collection_id", "The collection's id.");

/** Listing a level's objects: in full to who may read the parent, else one by one. */
function listAccess(parentReaders: string, created: string): string {
  return `In full to who holds ${parentReaders}; anyone else gets the ${created} they hold a permission on, or an empty list when they may create one here (else 401 or 403). With \`_since\`, lost access shows as tombstones.`;
}

interface Level {
  readonly segment: string;
  /** The path of the object holding this level's objects ("" for buckets). */
  readonly parentPath: string;
  readonly parentParameters: readonly JsonObject[];
  readonly idDescription: string;
  readonly data?: JsonObject;
  readonly access: Readonly<Record<ViewName, string>>;
}

const BUCKET_WRITERS = "`write` on the bucket";

const LEVELS: Readonly<Record<TreeLevel, Level>> = {
  bucket: {
    segment: "buckets",
    parentPath: "",
    parentParameters: [],
    idDescription: "The bucket's id; `default` is the caller's own bucket (created on first use).",
    access: {
      list: "The buckets the caller holds a permission on; an empty list when none, to who may create buckets (`bucket_create_principals`), else 401 or 403.",
      create: "Who `bucket_create_principals` names; the creator gets `write` on the bucket.",
      deleteAll: "Deletes the buckets the caller may delete (`write`), with their collections, records and groups.",
      read: "`read` or `write` on the bucket; `collection:create` or `group:create` there read its attributes.",
      replace:
        "Replacing requires `write` on the bucket; creating it, being among `bucket_create_principals` (`default`: the caller's own bucket).",
      update: `Requires ${BUCKET_WRITERS}.`,
      delete: `Requires ${BUCKET_WRITERS}; deletes its collections, their records and its groups too.`,
    },
  },
  collection: {
    segment: "collections",
    parentPath: "/buckets/{bucket_id}",
    parentParameters: [BUCKET_ID],
    idDescription: "The collection's id.",
    data: {
      type: "object",
      properties: {
        schema: {
          type: "object",
          description:
            "A JSON Schema (draft-07); with `experimental_collection_schema_validation`, the records written in the collection must match it (`{}`: no check).",
        },
      },
    },
    access: {
      list: listAccess("`read` or `write` on the bucket", "collections"),
      create: "Requires `collection:create` or `write` on the bucket.",
      deleteAll: "Deletes the collections the caller may delete, with their records.",
      read: "`read`, `write` or `record:create` on the collection, or `read` or `write` on the bucket.",
      replace: "Replacing requires `write` on the collection or the bucket; creating it, `collection:create` or `write` on the bucket.",
      update: "Requires `write` on the collection or the bucket.",
      delete: "Requires `write` on the collection or the bucket; deletes its records too.",
    },
  },
  group: {
    segment: "groups",
    parentPath: "/buckets/{bucket_id}",
    parentParameters: [BUCKET_ID],
    idDescription: "The group's id; its URI (`/buckets/{bucket_id}/groups/{id}`) is a principal its members hold.",
    data: {
      type: "object",
      properties: {
        members: {
          type: "array",
          items: { type: "string" },
          description: "User principals (at most `group_max_members`); neither `system.Everyone` nor another group. Left out: no member.",
        },
      },
    },
    access: {
      list: listAccess("`read` or `write` on the bucket", "groups"),
      create:
        "Requires `group:create` or `write` on the bucket; refused (403) while an ACL, a setting or a membership names the group's URI.",
      deleteAll: "Deletes the groups the caller may delete, taking them from their members.",
      read: "`read` or `write` on the group or the bucket.",
      replace:
        "Replacing requires `write` on the group or the bucket; creating it, `group:create` or `write` on the bucket (refused while its URI is named anywhere).",
      update: "Requires `write` on the group or the bucket.",
      delete: "Requires `write` on the group or the bucket; takes the group from its members.",
    },
  },
  record: {
    segment: "records",
    parentPath: "/buckets/{bucket_id}/collections/{collection_id}",
    parentParameters: [BUCKET_ID, COLLECTION_ID],
    idDescription: "The record's id.",
    access: {
      list: `${listAccess("`read` or `write` on the collection or the bucket", "records")} A missing collection: 404 (errno 111) to who may read it.`,
      create: "Requires `record:create` or `write` on the collection, or `write` on the bucket.",
      deleteAll: "Deletes the records the caller may delete (`write` on them, the collection or the bucket).",
      read: "`read` or `write` on the record, its collection or its bucket.",
      replace:
        "Replacing requires `write` on the record, its collection or its bucket; creating it, `record:create` or `write` on the collection, or `write` on the bucket.",
      update: "Requires `write` on the record, its collection or its bucket.",
      delete: "Requires `write` on the record, its collection or its bucket.",
    },
  },
};

const NOTHING_DISABLED: ReadonlySet<string> = new Set();

/** The documents of the tree's four levels. */
export function treeDocuments(services: HttpServices, tree: HttpTree): ResourceDocument[] {
  return (Object.keys(LEVELS) as TreeLevel[]).map((level) => levelDocument(services, tree, level));
}

function levelDocument(services: HttpServices, tree: HttpTree, level: TreeLevel): ResourceDocument {
  const shape = LEVELS[level];
  const place: TreePlace = { level, bucket: "{bucket_id}", collection: "{collection_id}" };
  const definition = { ...tree.resources.of(place), schema: shape.data };
  const resource: HttpResource = { definition, disabled: NOTHING_DISABLED, cacheExpiresSeconds: undefined };
  const mount: ResourceMount = {
    label: `tree.${shape.segment}`,
    tagDescription: `Kinto's tree: ${level === "bucket" ? "buckets" : `a ${level === "record" ? "collection" : "bucket"}'s ${shape.segment}`}.`,
    path: `${shape.parentPath}/${shape.segment}`,
    parentParameters: shape.parentParameters,
    idParameter: pathParameter("id", shape.idDescription),
    methods: { collection: allowedMethods(services, resource, "collection"), record: allowedMethods(services, resource, "record") },
    liveFeed: level === "record",
    missingParent: level === "record" ? MISSING_PARENT : undefined,
    access: shape.access,
  };
  const document = resourceDocument(definition, mount);
  if (level !== "record") return document;
  const missing = errorResponse(
    "The record (errno 110) or the collection the URL names (errno 111) does not exist; `details` holds its `id` and `resource_name`.",
  );
  return { ...document, responses: { [MISSING_PARENT]: missing } };
}
