/** OpenAPI path items of the routes every server has: root, heartbeats, version, batch, this document. */
import type { JsonObject } from "../../domain/json.js";
import { errorResponses, ref } from "./openapi-components.js";

const NO_AUTH: JsonObject[] = [];

function json(description: string, schema: JsonObject): JsonObject {
  return { description, content: { "application/json": { schema } } };
}

const HEALTH: JsonObject = {
  type: "object",
  additionalProperties: { type: ["boolean", "null"] },
  description: "Each check: true healthy, false failing, null not configured.",
};

const SUB_REQUEST: JsonObject = {
  type: "object",
  additionalProperties: false,
  properties: {
    method: { enum: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"], default: "GET" },
    path: { type: "string", description: "With or without the /v1 prefix; may carry a query string." },
    headers: { type: "object", additionalProperties: { type: "string" } },
    body: { type: "object" },
  },
};

/** `path` is required in each request unless `defaults.path` supplies it. */
const BATCH_REQUEST: JsonObject = {
  type: "object",
  required: ["requests"],
  additionalProperties: false,
  properties: {
    defaults: { ...SUB_REQUEST, description: "Merged into each request without overriding it." },
    requests: { type: "array", items: SUB_REQUEST },
  },
  if: { required: ["defaults"], properties: { defaults: { required: ["path"] } } },
  then: {},
  else: { properties: { requests: { items: { required: ["path"] } } } },
};

const BATCH_RESPONSE: JsonObject = {
  type: "object",
  required: ["responses"],
  properties: {
    responses: {
      type: "array",
      items: {
        type: "object",
        required: ["status", "path", "headers", "body"],
        properties: { status: { type: "integer" }, path: { type: "string" }, headers: { type: "object" }, body: {} },
      },
    },
  },
};

const ROOT: JsonObject = {
  type: "object",
  required: ["project_name", "project_version", "http_api_version", "url", "settings", "capabilities"],
  properties: {
    project_name: { type: "string" },
    project_version: { type: "string" },
    project_docs: { type: "string" },
    http_api_version: { type: "string" },
    url: { type: "string", format: "uri" },
    settings: { type: "object", description: "Public settings." },
    capabilities: { type: "object" },
    resources: {
      type: "array",
      description:
        "The declared collections (a Tessera addition to the Kinto root view): name, kind and the permissions a record of it stores.",
      items: {
        type: "object",
        required: ["name", "kind", "permissions"],
        properties: {
          name: { type: "string" },
          kind: { type: "string", enum: ["user", "shareable"] },
          permissions: { type: "array", items: { type: "string" } },
        },
      },
    },
    user: {
      type: "object",
      required: ["id", "principals"],
      properties: {
        id: { type: "string" },
        principals: { type: "array", items: { type: "string" }, description: "With Kinto's tree, the caller's groups' URIs too." },
        bucket: { type: "string", description: "With Kinto's tree: the id of the caller's own bucket (`/buckets/default`)." },
      },
      description: "Present when the request carries valid credentials.",
    },
  },
};

const VERSION: JsonObject = {
  type: "object",
  required: ["name", "version", "source", "commit"],
  properties: { name: { type: "string" }, version: { type: "string" }, source: { type: "string" }, commit: { type: "string" } },
};

/** A GET route also answers HEAD (same status and headers, no body): both are documented. */
function withHead(item: JsonObject): JsonObject {
  const get = item.get as JsonObject & { operationId: string; summary: string };
  const responses = Object.fromEntries(
    Object.entries(get.responses as JsonObject).map(([status, response]) => [
      status,
      "$ref" in (response as JsonObject) ? response : { description: (response as JsonObject).description ?? "" },
    ]),
  );
  return { ...item, head: { ...get, operationId: `head_${get.operationId}`, summary: `${get.summary} (headers only)`, responses } };
}

/** `security`: the requirement of each enabled authentication scheme (openapi-security.ts). */
export function utilityPaths(security: readonly JsonObject[]): JsonObject {
  const tags = ["utilities"];
  const paths: Record<string, JsonObject> = {
    "/": {
      get: {
        tags,
        operationId: "root",
        summary: "Server information; the user's id and principals when authenticated",
        security: security.length > 0 ? [{}, ...security] : NO_AUTH,
        responses: { "200": json("Server information.", ROOT), ...errorResponses([405, 503]) },
      },
    },
    "/__heartbeat__": {
      get: {
        tags,
        operationId: "heartbeat",
        summary: "Health of the backends and of the registered checks",
        security: NO_AUTH,
        responses: { "200": json("Every check passed.", HEALTH), ...errorResponses([405]), "503": json("A check failed.", HEALTH) },
      },
    },
    "/__lbheartbeat__": {
      get: {
        tags,
        operationId: "lbheartbeat",
        summary: "Load-balancer liveness",
        security: NO_AUTH,
        responses: { "200": json("Alive.", { type: "object", maxProperties: 0 }), ...errorResponses([405]) },
      },
    },
    "/__version__": {
      get: {
        tags,
        operationId: "version",
        summary: "Name, version, source and commit",
        security: NO_AUTH,
        responses: { "200": json("Version information.", VERSION), ...errorResponses([405]) },
      },
    },
    "/batch": {
      post: {
        tags,
        operationId: "batch",
        summary: "Several sub-requests in one call",
        description:
          "Sub-requests inherit the outer headers (credentials included). A 4xx sub-response takes its slot; a 5xx one fails the whole batch with its status.",
        requestBody: { required: true, content: { "application/json": { schema: BATCH_REQUEST } } },
        responses: {
          "200": json("One response per sub-request, in order.", BATCH_RESPONSE),
          ...errorResponses([400, 405, 503]),
          default: {
            description: "A failing sub-response, answered as the batch's own.",
            content: { "application/json": { schema: ref("schemas", "Error") } },
          },
        },
      },
    },
    "/__api__": {
      get: {
        tags,
        operationId: "openapi",
        summary: "This OpenAPI document",
        security: NO_AUTH,
        responses: { "200": json("The OpenAPI 3.1 document of this server.", { type: "object" }), ...errorResponses([405]) },
      },
    },
  };
  return Object.fromEntries(Object.entries(paths).map(([path, item]) => [path, item.get ? withHead(item) : item]));
}
