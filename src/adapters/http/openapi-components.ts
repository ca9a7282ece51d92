/**
 * The parts of the OpenAPI document every resource shares: the error body, listing parameters,
 * precondition and paging headers, and one response per error status (api-contract §6-§8).
 */
import type { JsonObject, JsonValue } from "../../domain/json.js";

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
  406: "NotAcceptable",
  409: "Conflict",
  410: "Gone",
  412: "PreconditionFailed",
  413: "PayloadTooLarge",
  415: "UnsupportedMediaType",
  500: "InternalServerError",
  503: "ServiceUnavailable",
} as const;

/** What any request may be answered, whatever its route: refused media types, sizes, end of service, backends. */
export const EVERY_REQUEST_ERRORS: readonly ErrorStatus[] = [400, 405, 406, 410, 413, 415, 500, 503];

export type ErrorStatus = keyof typeof ERRORS;

/** `{status: $ref}` for the given error statuses and those of every request, plus 304 where a read may answer it. */
export function errorResponses(statuses: readonly ErrorStatus[], notModified = false): JsonObject {
  const responses: JsonObject = notModified ? { "304": ref("responses", "NotModified") } : {};
  for (const status of [...new Set([...statuses, ...EVERY_REQUEST_ERRORS])].sort((a, b) => a - b))
    responses[String(status)] = ref("responses", ERRORS[status]);
  return responses;
}

const QUOTED_TIMESTAMP: JsonObject = { type: "string", pattern: '^"?[0-9]+"?$' };

const PARAMETERS: JsonObject = {
  limit: {
    name: "_limit",
    in: "query",
    description:
      "Page size. `paginate_by` (when set) and `storage_max_fetch_size` cap it: the page holds at most the smallest of them. `0` answers an empty page.",
    schema: { type: "integer", minimum: 0 },
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
  lastEventId: {
    name: "Last-Event-ID",
    in: "header",
    description:
      "With `Accept: text/event-stream`: the id of the last event received (a timestamp); the feed resumes after it (wins over `_since`).",
    schema: { type: "string", pattern: "^[0-9]+$" },
  },
  accept: {
    name: "Accept",
    in: "header",
    description: "`text/event-stream` opens the live feed of the collection instead of a page; else JSON (406 for what cannot be served).",
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

/** The parameters a collection with a live feed adds to its listing's. */
export const FEED_PARAMETERS = ["accept", "lastEventId"].map((name) => ref("parameters", name));

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
  "X-Request-Id": {
    description: "The request's id (the client's `X-Request-Id` when valid, else a new one); in every log line of the request.",
    schema: { type: "string" },
  },
  Alert: {
    description:
      "JSON `{code, message, url}` of a deprecation: the end of service (`eos`) is near, or a deprecated parameter (`_to`) was used.",
    schema: { type: "string" },
  },
  Backoff: { description: "Seconds clients should wait before their next request (`backoff`).", schema: { type: "integer", minimum: 0 } },
  "Access-Control-Allow-Origin": {
    description: "CORS: the allowed `Origin` (or `*`), with a request that sent one.",
    schema: { type: "string" },
  },
  "Access-Control-Allow-Credentials": { description: "CORS: `true` for an explicitly listed origin.", schema: { type: "string" } },
  "Access-Control-Expose-Headers": { description: "CORS: the headers a browser client may read.", schema: { type: "string" } },
  "Access-Control-Allow-Methods": { description: "CORS preflight: the methods allowed.", schema: { type: "string" } },
  "Access-Control-Allow-Headers": { description: "CORS preflight: the request headers allowed.", schema: { type: "string" } },
  "Access-Control-Max-Age": {
    description: "CORS preflight: seconds a browser may cache it (`cors_max_age_seconds`).",
    schema: { type: "string" },
  },
  Location: { description: "Where the resource is (redirects).", schema: { type: "string" } },
  "X-Accel-Buffering": {
    description: "`no` on the live feed (`Accept: text/event-stream`): tells a reverse proxy not to buffer the stream.",
    schema: { type: "string" },
  },
};

/** Headers any answer may carry, added to every response of the document (OpenAPI has no global headers). */
const COMMON_HEADERS = [
  "X-Request-Id",
  "Alert",
  "Backoff",
  "Retry-After",
  "Access-Control-Allow-Origin",
  "Access-Control-Allow-Credentials",
  "Access-Control-Expose-Headers",
];

/** Adds the headers any answer may carry to each response of `responses` (a Response Object, never a reference). */
export function withCommonHeaders(responses: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [status, response] of Object.entries(responses)) {
    if (!isObject(response) || "$ref" in response) {
      out[status] = response;
      continue;
    }
    const headers: JsonObject = isObject(response.headers) ? { ...response.headers } : {};
    for (const name of COMMON_HEADERS) headers[name] ??= ref("headers", name);
    out[status] = { ...response, headers };
  }
  return out;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `OPTIONS` on any path: a CORS preflight (with `Origin` and `Access-Control-Request-Method`), or `{}`. */
export function preflightOperation(operationId: string, tags: readonly string[]): JsonObject {
  return {
    tags: [...tags],
    operationId,
    summary: "CORS preflight",
    description:
      "Answered 200 `{}` before authentication. With `Origin` (one of `cors_origins`) and `Access-Control-Request-Method`, the `Access-Control-Allow-*` headers say what a browser may send; a refused `Origin` is a 400.",
    security: [],
    parameters: [
      { name: "Origin", in: "header", schema: { type: "string" } },
      { name: "Access-Control-Request-Method", in: "header", schema: { type: "string" } },
      { name: "Access-Control-Request-Headers", in: "header", schema: { type: "string" } },
    ],
    responses: withCommonHeaders({
      "200": {
        description: "Preflight answer.",
        headers: {
          "Access-Control-Allow-Methods": ref("headers", "Access-Control-Allow-Methods"),
          "Access-Control-Allow-Headers": ref("headers", "Access-Control-Allow-Headers"),
          "Access-Control-Max-Age": ref("headers", "Access-Control-Max-Age"),
        },
        content: { "application/json": { schema: { type: "object", maxProperties: 0 } } },
      },
      ...errorResponses([400, 503]),
    }),
  };
}

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

/** A Response Object with the error body (or `schema`), and its own headers when given. */
export function errorResponse(description: string, schema: JsonObject = ref("schemas", "Error"), headers?: JsonObject): JsonObject {
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
  InternalServerError: errorResponse("An unexpected error (errno 999); the request id is in the logs."),
  NotAcceptable: errorResponse("`Accept` names no media type this endpoint serves (errno 107)."),
  Conflict: errorResponse(
    "The record was created or removed by concurrent writes, again and again, while this one was decided (errno 122); `details.existing` is the record, when known.",
  ),
  Gone: errorResponse("The service reached its end of service (`eos`, errno 202)."),
  PayloadTooLarge: errorResponse("The body is larger than `max_body_bytes` (errno 113)."),
  UnsupportedMediaType: errorResponse("`Content-Type` is not a JSON type this endpoint reads (errno 107)."),
};

/** The shared components; resource schemas are added by the caller. */
export function sharedComponents(securitySchemes: JsonObject | undefined): JsonObject {
  const components: JsonObject = {
    schemas: { Error: ERROR_BODY, ValidationDetail: VALIDATION_DETAIL, Tombstone: TOMBSTONE },
    parameters: PARAMETERS,
    headers: HEADERS,
    responses: withCommonHeaders(RESPONSES),
  };
  if (securitySchemes) components.securitySchemes = securitySchemes;
  return components;
}
