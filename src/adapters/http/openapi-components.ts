/**
 * The parts of the OpenAPI document every resource shares: the error body, listing parameters,
 * precondition and paging headers, and one response per error status (api-contract §6-§8).
 */
import type { JsonObject } from "../../domain/json.js";

export const ID_SCHEMA: JsonObject = { type: "string", pattern: "^[a-zA-Z0-9][a-zA-Z0-9_-]*$", maxLength: 255 };
export const TIMESTAMP_SCHEMA: JsonObject = {
  type: "integer",
  description: "Milliseconds since the epoch; strictly increasing within a collection.",
};

export function ref(section: "schemas" | "parameters" | "headers" | "responses", name: string): JsonObject {
  return { $ref: `#/components/${section}/${name}` };
}

/** Error response component names, by status. */
export const ERRORS = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  412: "PreconditionFailed",
  503: "ServiceUnavailable",
} as const;

export type ErrorStatus = keyof typeof ERRORS;

/** `{status: $ref}` for the given error statuses, plus 304 where a read may answer it. */
export function errorResponses(statuses: readonly ErrorStatus[], notModified = false): JsonObject {
  const responses: JsonObject = notModified ? { "304": ref("responses", "NotModified") } : {};
  for (const status of statuses) responses[String(status)] = ref("responses", ERRORS[status]);
  return responses;
}

const QUOTED_TIMESTAMP: JsonObject = { type: "string", pattern: '^"?[0-9]+"?$' };

const PARAMETERS: JsonObject = {
  limit: {
    name: "_limit",
    in: "query",
    description: "Page size. `paginate_by`, when set, wins over it; `storage_max_fetch_size` caps it.",
    schema: { type: "integer", minimum: 1 },
  },
  sort: {
    name: "_sort",
    in: "query",
    description: "Comma-separated fields, `-` before a field for descending order. Default `-last_modified`.",
    schema: { type: "string" },
  },
  token: {
    name: "_token",
    in: "query",
    description: "Opaque pagination token, taken from the `Next-Page` URL.",
    schema: { type: "string" },
  },
  fields: {
    name: "_fields",
    in: "query",
    description: "Comma-separated (dotted) fields to return; `id` and `last_modified` are always returned.",
    schema: { type: "string" },
  },
  since: {
    name: "_since",
    in: "query",
    description: "Only objects with `last_modified` greater than this; includes tombstones. `since` is an alias.",
    schema: QUOTED_TIMESTAMP,
  },
  before: {
    name: "_before",
    in: "query",
    description: "Only objects with `last_modified` lower than this; includes tombstones.",
    schema: QUOTED_TIMESTAMP,
  },
  to: {
    name: "_to",
    in: "query",
    deprecated: true,
    description: "Former name of `_before`; answered with an `Alert` header.",
    schema: QUOTED_TIMESTAMP,
  },
  filters: {
    name: "filters",
    in: "query",
    style: "form",
    explode: true,
    description:
      "Free-form filters, one query parameter each: `[op_]field=value` with a dotted field and op one of `eq`, `not`, `min`, `max`, `gt`, `lt`, `in`, `exclude` (comma-separated values), `like` (`*` wildcard), `has`, `contains`, `contains_any`. Values parse as JSON when they can.",
    schema: { type: "object", additionalProperties: { type: "string" } },
  },
  id: { name: "id", in: "path", required: true, description: "The record id.", schema: ID_SCHEMA },
  ifMatch: {
    name: "If-Match",
    in: "header",
    description: 'Write or read only if the current timestamp is this one (`"<ts>"`), or if the target exists (`*`); else 412.',
    schema: { type: "string" },
  },
  ifNoneMatch: {
    name: "If-None-Match",
    in: "header",
    description: 'On reads, `"<ts>"` equal to the current timestamp gives 304; `*` fails with 412 when the target exists.',
    schema: { type: "string" },
  },
  deletionTimestamp: {
    name: "last_modified",
    in: "query",
    description: "Timestamp of the tombstone, when greater than the current one.",
    schema: QUOTED_TIMESTAMP,
  },
};

/** Listing parameters of `GET`/`HEAD` on a collection. */
export const LIST_PARAMETERS = ["limit", "sort", "token", "fields", "since", "before", "to", "filters", "ifNoneMatch", "ifMatch"].map(
  (name) => ref("parameters", name),
);

const HEADERS: JsonObject = {
  ETag: { description: 'Timestamp of the record, or of the collection, in quotes: `"<ts>"`.', schema: { type: "string" } },
  "Last-Modified": { description: "The same timestamp as an HTTP date.", schema: { type: "string" } },
  "Next-Page": {
    description: "Absolute URL of the next page, present when more objects follow.",
    schema: { type: "string", format: "uri" },
  },
  "Total-Objects": { description: "Number of objects matching the filters.", schema: { type: "integer", minimum: 0 } },
  "Total-Records": { description: "Same as Total-Objects (older name).", schema: { type: "integer", minimum: 0 } },
  "Retry-After": { description: "Seconds to wait before retrying (`retry_after_seconds`).", schema: { type: "integer", minimum: 0 } },
  Allow: { description: "Methods this endpoint serves.", schema: { type: "string" } },
  "WWW-Authenticate": { description: "Challenge of the first authentication policy that has one.", schema: { type: "string" } },
};

/** `ETag` and `Last-Modified`, as sent with every record and collection answer. */
export const TIMESTAMP_HEADERS: JsonObject = { ETag: ref("headers", "ETag"), "Last-Modified": ref("headers", "Last-Modified") };

const ERROR_BODY: JsonObject = {
  type: "object",
  required: ["code", "errno", "error"],
  properties: {
    code: { type: "integer", description: "The HTTP status." },
    errno: { type: "integer", description: "Tessera's error number (api-contract §8)." },
    error: { type: "string", description: "The status reason phrase." },
    message: { type: "string" },
    info: { type: "string", description: "Link to more information (`error_info_link`)." },
    details: { description: "Context of the error: validation problems, the existing record, allowed methods..." },
  },
};

const VALIDATION_DETAIL: JsonObject = {
  type: "object",
  required: ["location", "name", "description"],
  properties: {
    location: { enum: ["body", "querystring", "header", "path"] },
    name: { type: ["string", "null"] },
    description: { type: "string" },
  },
};

const TOMBSTONE: JsonObject = {
  type: "object",
  required: ["id", "last_modified", "deleted"],
  properties: { id: ID_SCHEMA, last_modified: TIMESTAMP_SCHEMA, deleted: { const: true } },
};

function errorResponse(description: string, schema: JsonObject = ref("schemas", "Error"), headers?: JsonObject): JsonObject {
  const response: JsonObject = { description, content: { "application/json": { schema } } };
  if (headers) response.headers = headers;
  return response;
}

const RESPONSES: JsonObject = {
  NotModified: { description: "Not modified since the `If-None-Match` timestamp.", headers: { ETag: ref("headers", "ETag") } },
  BadRequest: errorResponse("Invalid parameters (errno 107); `details` lists each problem.", {
    allOf: [ref("schemas", "Error"), { properties: { details: { type: "array", items: ref("schemas", "ValidationDetail") } } }],
  }),
  Unauthorized: errorResponse("Not authenticated while the action needs it (errno 104).", ref("schemas", "Error"), {
    "WWW-Authenticate": ref("headers", "WWW-Authenticate"),
  }),
  Forbidden: errorResponse("Authenticated and not allowed (errno 121)."),
  NotFound: errorResponse("Record not found (errno 110); `details` holds `id` and `resource_name`."),
  MethodNotAllowed: errorResponse("Method not allowed, or disabled by settings (errno 115).", ref("schemas", "Error"), {
    Allow: ref("headers", "Allow"),
  }),
  PreconditionFailed: errorResponse("`If-Match` / `If-None-Match` failed (errno 114); `details.existing` is the current record."),
  ServiceUnavailable: errorResponse("A backend failed (errno 201).", ref("schemas", "Error"), {
    "Retry-After": ref("headers", "Retry-After"),
  }),
};

/** The shared components; resource schemas are added by the caller. */
export function sharedComponents(basicAuth: boolean): JsonObject {
  const components: JsonObject = {
    schemas: { Error: ERROR_BODY, ValidationDetail: VALIDATION_DETAIL, Tombstone: TOMBSTONE },
    parameters: PARAMETERS,
    headers: HEADERS,
    responses: RESPONSES,
  };
  if (basicAuth) {
    components.securitySchemes = {
      basicAuth: { type: "http", scheme: "basic", description: "Any user:pass; the user id is `basicauth:<hmac of user:pass>`." },
    };
  }
  return components;
}
