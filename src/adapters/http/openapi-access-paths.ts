/** OpenAPI path items of the "why and who" routes (access-routes.ts): explain, readers, `/permissions`. */
import type { JsonObject } from "../../domain/json.js";
import { knownPermissions } from "../../application/access/access-service.js";
import type { ResourceDefinition } from "../../application/resources.js";
import { ACCESS_PAGE_MAX } from "./access-routes.js";
import { errorResponses, ref } from "./openapi-components.js";

const STRINGS: JsonObject = { type: "array", items: { type: "string" } };
const GRANT_SOURCE: JsonObject = {
  type: "string",
  enum: ["settings", "record", "collection", "acl", "owner"],
  description:
    "`settings`: a `<collection>_<permission>_principals` setting; `record`: the record's own ACL; `collection`: the collection's ACL; `acl`: another object's ACL (a resource's own bound permissions); `owner`: the caller's own record (user resources).",
};
const OBJECT_PERMISSION: JsonObject = {
  type: "object",
  required: ["uri", "permission"],
  properties: { uri: { type: "string" }, permission: { type: "string" } },
};

const EXPLANATION: JsonObject = {
  type: "object",
  required: ["data"],
  properties: {
    data: {
      type: "object",
      required: ["permission", "uri", "allowed", "principals", "checked", "grants"],
      properties: {
        permission: { type: "string" },
        uri: { type: "string", description: "The object decided on: the record, or its collection for `create`." },
        allowed: { type: "boolean" },
        principals: { ...STRINGS, description: "The caller's principals, as the decision saw them." },
        checked: {
          type: "array",
          items: OBJECT_PERMISSION,
          description: "Every grant that would give the permission (bound permissions).",
        },
        grants: {
          type: "array",
          description: "The grants the caller holds, each with the caller's principals it names.",
          items: {
            type: "object",
            required: ["source", "uri", "permission", "principals"],
            properties: {
              source: GRANT_SOURCE,
              uri: { type: "string" },
              permission: { type: "string" },
              setting: { type: "string", description: "The setting granting it, for `settings`." },
              principals: {
                type: "array",
                items: {
                  type: "object",
                  required: ["principal"],
                  properties: {
                    principal: { type: "string" },
                    chain: {
                      ...STRINGS,
                      description:
                        "From the caller to the principal: the user id, then each group through which it is held (`system.*` directly). Absent when the principal came otherwise (a token's groups) or lies beyond the walk's bounds.",
                    },
                  },
                },
              },
            },
          },
        },
        policy: {
          type: "object",
          description: "Present when the resource's own authorization policy decided.",
          properties: { consulted_default: { type: "boolean" } },
        },
      },
    },
  },
};

const READERS: JsonObject = {
  type: "object",
  required: ["data"],
  properties: {
    data: {
      type: "array",
      items: {
        type: "object",
        required: ["principal", "grants", "through"],
        properties: {
          principal: { type: "string" },
          grants: {
            type: "array",
            items: {
              type: "object",
              required: ["source", "uri", "permission"],
              properties: { ...(OBJECT_PERMISSION.properties as JsonObject), source: GRANT_SOURCE },
            },
            description: "Grants naming this principal directly.",
          },
          through: { ...STRINGS, description: "Principals granted read that this one holds through groups." },
        },
      },
    },
  },
};

const TREE_ENTRIES =
  " With Kinto's tree: the root (`/`) when the caller may create buckets, then every bucket, collection, group and record whose ACL names one of the caller's principals, with every permission that ACL gives there (`write` brings the others); objects reached only through a parent are not listed one by one.";

/** The tree's root entry: who may create buckets (`bucket_create_principals`) gets `bucket:create` there. */
const ROOT_ENTRY: JsonObject = {
  type: "object",
  required: ["resource_name", "uri", "permissions"],
  properties: { resource_name: { const: "root" }, uri: { const: "/" }, permissions: STRINGS },
};

/** `/permissions`' page; with Kinto's tree, its root, buckets, collections, groups and records too, with the ids of their URIs. */
function accessibleObjects(tree: boolean): JsonObject {
  const treeIds: JsonObject = {
    bucket_id: { type: "string", description: "For objects of the tree: their bucket (a bucket's own id)." },
    group_id: { type: "string", description: "For a group of the tree: its id." },
    record_id: { type: "string", description: "For a record of the tree: its id." },
  };
  const object: JsonObject = {
    type: "object",
    required: ["id", "resource_name", "uri", "permissions"],
    properties: {
      id: { type: "string" },
      collection_id: {
        type: "string",
        description: tree ? "For records: their collection; for a collection of the tree: its id." : "For records: their collection.",
      },
      resource_name: { type: "string", enum: tree ? ["bucket", "collection", "group", "record"] : ["collection", "record"] },
      uri: { type: "string" },
      permissions: STRINGS,
      ...(tree ? treeIds : {}),
    },
  };
  return {
    type: "object",
    required: ["data"],
    properties: { data: { type: "array", items: tree ? { anyOf: [ROOT_ENTRY, object] } : object } },
  };
}

const PAGE_PARAMETERS: JsonObject[] = [
  {
    name: "_limit",
    in: "query",
    description: `Page size, 1 to ${ACCESS_PAGE_MAX} (default \`paginate_by\`, else 100); beyond: 400.`,
    schema: { type: "integer", minimum: 1, maximum: ACCESS_PAGE_MAX },
  },
  ref("parameters", "token"),
];

function ok(description: string, schema: JsonObject, paged: boolean): JsonObject {
  return {
    description,
    ...(paged ? { headers: { "Next-Page": ref("headers", "Next-Page") } } : {}),
    content: { "application/json": { schema } },
  };
}

/** The access routes' paths; `tree` when Kinto's tree is served (its objects are listed in `/permissions`). */
export function accessPaths(resources: readonly ResourceDefinition[], tree: boolean): JsonObject {
  const paths: JsonObject = {
    "/permissions": {
      get: {
        tags: ["utilities"],
        operationId: "list_permissions",
        summary: "Every object the caller holds a permission on",
        description: `Kinto's \`/permissions\`, by collection name: for a shareable collection, the collection when the caller holds a permission on it (settings principals or its ACL), then each record whose own ACL names one of the caller's principals for any permission, custom ones included (by id); for a user collection (authenticated callers), the caller's own collection and records. Each with every permission the caller holds there.${tree ? TREE_ENTRIES : ""}`,
        parameters: PAGE_PARAMETERS,
        responses: { "200": ok("A page of objects.", accessibleObjects(tree), true), ...errorResponses([]) },
      },
    },
  };
  for (const resource of resources) {
    const name = resource.name;
    paths[`/${name}/{id}/explain`] = {
      parameters: [ref("parameters", "id")],
      get: {
        tags: [name],
        operationId: `explain_${name}`,
        summary: `Whether the caller holds a permission on a ${name} record, and why`,
        description:
          "The same decision GET, PUT, PATCH and DELETE make, with the grants behind it. A caller who may not read the record is told no more than GET tells them: for `read` the refusal (`allowed: false`, the same whether or not the record exists), for another permission 401/403. A missing record is a 404 exactly when GET answers 404.",
        parameters: [
          {
            name: "permission",
            in: "query",
            description: "Default `read`; `create` is decided on the collection.",
            schema: { type: "string", enum: knownPermissions(resource) },
          },
        ],
        responses: { "200": ok("The decision and its derivation.", EXPLANATION, false), ...errorResponses([401, 403, 404]) },
      },
    };
    paths[`/${name}/{id}/readers`] = {
      parameters: [ref("parameters", "id")],
      get: {
        tags: [name],
        operationId: `readers_${name}`,
        summary: `Who may read a ${name} record, through groups`,
        description:
          "For callers who may write the record: every principal a grant of read names (settings, collection and record ACLs, bound permissions), and every user or group holding one of them through groups, by principal (code point order), a page read per page. `system.Everyone` and `system.Authenticated` are listed, not expanded.",
        parameters: PAGE_PARAMETERS,
        responses: { "200": ok("A page of readers.", READERS, true), ...errorResponses([401, 403, 404]) },
      },
    };
  }
  return paths;
}
