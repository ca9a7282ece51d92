/**
 * The OpenAPI description of one resource wherever it is mounted (a flat `/{name}`, or a level
 * of Kinto's tree): its schemas and its two path items, with only the methods the server really
 * serves (after `*_enabled` settings and `readonly`).
 */
import { isJsonObject, type JsonObject, type JsonValue } from "../../domain/json.js";
import { JSON_PATCH_OPS } from "../../domain/json-patch.js";
import { permissionFor, type ResourceDefinition, type ViewName } from "../../application/resources.js";
import type { Endpoint, HttpResource, HttpServices } from "./http-services.js";
import {
  errorResponses,
  FEED_PARAMETERS,
  ID_SCHEMA,
  LIST_PARAMETERS,
  ref,
  TIMESTAMP_HEADERS,
  TIMESTAMP_SCHEMA,
  type ErrorStatus,
} from "./openapi-components.js";
import { allowedMethods } from "./record-routes.js";
import { traitsOf } from "../../application/kinds/kind-traits.js";

/** RFC 6902 operations on `/data/…` and `/permissions/<perm>/<principal>`. */
const JSON_PATCH_SCHEMA: JsonObject = {
  type: "array",
  items: {
    type: "object",
    required: ["op", "path"],
    additionalProperties: false,
    properties: {
      op: { enum: [...JSON_PATCH_OPS] },
      path: { type: "string", pattern: "^/" },
      from: { type: "string", pattern: "^/" },
      value: {},
    },
  },
};

/** The live feed (`Accept: text/event-stream` on a collection GET), as Server-Sent Events. */
const LIVE_FEED: JsonObject = {
  schema: {
    type: "string",
    description:
      "Server-Sent Events. First the changes after `_since` (or `Last-Event-ID`), then `event: live`, then each change as it commits: `id: <last_modified>`, `event: create|update|delete` (`delete` also when the caller lost read access), `data: <the record as a listing shows it, or its tombstone>`. Comment lines (`:`) keep the connection open. The listing's filters and permissions apply; the stream ends when the subscriber stops reading or the server stops.",
  },
};

export interface ResourceDocument {
  readonly schemas: JsonObject;
  readonly paths: JsonObject;
  readonly tags: readonly JsonObject[];
  /** Response components of its own, when its operations refer to some. */
  readonly responses?: JsonObject;
}

/**
 * Where a resource's two endpoints are, and the names its components, tag and operation ids
 * take: a flat resource at `/{name}`, or one level of Kinto's tree under its parents' ids.
 */
export interface ResourceMount {
  /** Prefix of its component names, its tag and its operation ids (OpenAPI's `[a-zA-Z0-9._-]`). */
  readonly label: string;
  readonly tagDescription: string;
  /** The collection's path (`/articles`); the record's is it plus `/{id}`. */
  readonly path: string;
  /** Path parameters of the collection's path (the parents' ids), first to last. */
  readonly parentParameters: readonly JsonObject[];
  /** The path parameter naming one record (`{id}`). */
  readonly idParameter: JsonObject;
  readonly methods: Readonly<Record<Endpoint, readonly string[]>>;
  /** Whether `Accept: text/event-stream` on the collection's `GET` opens its live feed. */
  readonly liveFeed: boolean;
  /** When the parent the path names may be missing: every operation may answer this 404 response. */
  readonly missingParent?: string;
  /** Who may do what, per view, when it is more than the one permission the view requires. */
  readonly access?: Readonly<Partial<Record<ViewName, string>>>;
}

/** A flat resource, `/{name}` and `/{name}/{id}`, with the methods its settings leave enabled. */
export function flatMount(services: HttpServices, resource: HttpResource): ResourceMount {
  const name = resource.definition.name;
  return {
    label: name,
    tagDescription: `The ${name} collection.`,
    path: `/${name}`,
    parentParameters: [],
    idParameter: ref("parameters", "id"),
    methods: { collection: allowedMethods(services, resource, "collection"), record: allowedMethods(services, resource, "record") },
    liveFeed: true,
  };
}

export function resourceDocument(definition: ResourceDefinition, mount: ResourceMount): ResourceDocument {
  const name = mount.label;
  const schemas: JsonObject = {
    [`${name}.Data`]: dataSchema(definition.schema, "payload"),
    [`${name}.DataPatch`]: dataSchema(definition.schema, "patch"),
    [`${name}.Record`]: dataSchema(definition.schema, "record"),
  };
  if (traitsOf(definition).keepsAcl) {
    schemas[`${name}.Permissions`] = permissionsSchema(definition, false);
    schemas[`${name}.PermissionsPatch`] = permissionsSchema(definition, true);
  }
  const operations = new Operations(definition, mount);
  const collection = pathItem(mount.methods.collection, "collection", operations);
  const paths: JsonObject = {
    [mount.path]: mount.parentParameters.length > 0 ? { parameters: [...mount.parentParameters], ...collection } : collection,
    [`${mount.path}/{id}`]: {
      parameters: [...mount.parentParameters, mount.idParameter],
      ...pathItem(mount.methods.record, "record", operations),
    },
  };
  return { schemas, paths, tags: [{ name, description: mount.tagDescription }] };
}

function pathItem(methods: readonly string[], endpoint: Endpoint, operations: Operations): JsonObject {
  const item: JsonObject = {};
  for (const method of methods) item[method.toLowerCase()] = operations.of(endpoint, method);
  return item;
}

/**
 * The record's data schema: the resource's own one (or any object) with the managed fields,
 * optional in payloads, required in stored records, and nothing required in a PATCH.
 */
function dataSchema(own: JsonObject | undefined, use: "payload" | "patch" | "record"): JsonObject {
  const managed: JsonObject = { id: ID_SCHEMA, last_modified: TIMESTAMP_SCHEMA };
  const base: JsonObject = own ?? { type: "object" };
  if (!(base.type === "object" || isJsonObject(base.properties))) return { allOf: [base, { type: "object", properties: managed }] };
  const schema: JsonObject = {
    ...base,
    type: "object",
    properties: { ...(isJsonObject(base.properties) ? base.properties : {}), ...managed },
  };
  const required = Array.isArray(base.required) ? base.required.filter((r): r is string => typeof r === "string") : [];
  if (use === "record") schema.required = [...required, "id", "last_modified"];
  else if (use === "patch") delete schema.required;
  return schema;
}

function permissionsSchema(definition: ResourceDefinition, patch: boolean): JsonObject {
  const principals: JsonObject = {
    type: patch ? ["array", "null"] : "array",
    items: { type: "string" },
    description: "Principals holding this permission.",
  };
  const properties: JsonObject = Object.fromEntries(definition.permissions.map((p) => [p, principals]));
  return { type: "object", properties, additionalProperties: false };
}

/** Builds each operation of a resource; the view decides the permission it documents. */
class Operations {
  private readonly name: string;

  constructor(
    private readonly definition: ResourceDefinition,
    private readonly mount: ResourceMount,
  ) {
    this.name = mount.label;
  }

  of(endpoint: Endpoint, method: string): JsonObject {
    if (endpoint === "collection") {
      if (method === "GET") return this.list();
      if (method === "HEAD") return this.count();
      if (method === "POST") return this.create();
      return this.deleteAll();
    }
    if (method === "GET") return this.read();
    if (method === "HEAD") return this.head();
    if (method === "PUT") return this.replace();
    if (method === "PATCH") return this.update();
    return this.remove();
  }

  private list(): JsonObject {
    const feed = this.mount.liveFeed;
    return this.operation("list", `list_${this.name}`, "List records", {
      parameters: this.listParameters(),
      responses: {
        "200": {
          description: `The page of records (tombstones too when filtering on \`last_modified\`)${feed ? "; with `Accept: text/event-stream`, the live feed" : ""}.`,
          headers: {
            ...TIMESTAMP_HEADERS,
            "Next-Page": ref("headers", "Next-Page"),
            ...(feed ? { "X-Accel-Buffering": ref("headers", "X-Accel-Buffering") } : {}),
          },
          content: { "application/json": { schema: this.listBody() }, ...(feed ? { "text/event-stream": LIVE_FEED } : {}) },
        },
        ...this.errors([400, 401, 403, 405, 412, 503], true),
      },
    });
  }

  private count(): JsonObject {
    const feed = this.mount.liveFeed;
    return this.operation("list", `count_${this.name}`, "Count records (headers only)", {
      parameters: this.listParameters(),
      responses: {
        "200": {
          description: feed ? "No body. With `Accept: text/event-stream`: the live feed's checks and headers, no body." : "No body.",
          headers: {
            ...TIMESTAMP_HEADERS,
            "Total-Objects": ref("headers", "Total-Objects"),
            "Total-Records": ref("headers", "Total-Records"),
            ...(feed ? { "X-Accel-Buffering": ref("headers", "X-Accel-Buffering") } : {}),
          },
        },
        ...this.errors([400, 401, 403, 405, 412, 503], true),
      },
    });
  }

  private create(): JsonObject {
    return this.operation("create", `create_${this.name}`, "Create a record", {
      parameters: [ref("parameters", "ifMatch"), ref("parameters", "ifNoneMatch")],
      requestBody: this.payload(`${this.name}.Data`, `${this.name}.Permissions`, this.hasRequiredFields()),
      responses: {
        "201": this.ok("Created.", this.recordBody(), TIMESTAMP_HEADERS),
        "200": this.ok("`data.id` exists: the stored record, unchanged.", this.recordBody(), TIMESTAMP_HEADERS),
        ...this.errors([400, 401, 403, 405, 409, 412, 503]),
      },
    });
  }

  private deleteAll(): JsonObject {
    return this.operation("deleteAll", `delete_${this.name}`, "Delete the records (the caller's writable ones, filtered)", {
      parameters: [ref("parameters", "filters"), ref("parameters", "since"), ref("parameters", "before"), ref("parameters", "ifMatch")],
      responses: {
        "200": this.ok(
          "Tombstones of the deleted records.",
          { type: "object", required: ["data"], properties: { data: { type: "array", items: ref("schemas", "Tombstone") } } },
          TIMESTAMP_HEADERS,
        ),
        ...this.errors([400, 401, 403, 405, 412, 503]),
      },
    });
  }

  private read(): JsonObject {
    return this.operation("read", `get_${this.name}`, "Read a record", {
      parameters: [ref("parameters", "fields"), ref("parameters", "ifNoneMatch"), ref("parameters", "ifMatch")],
      responses: {
        "200": this.ok("The record.", this.recordBody(), TIMESTAMP_HEADERS),
        ...this.errors([400, 401, 403, 404, 405, 412, 503], true),
      },
    });
  }

  private head(): JsonObject {
    return this.operation("read", `head_${this.name}`, "Check a record (headers only)", {
      parameters: [ref("parameters", "ifNoneMatch"), ref("parameters", "ifMatch")],
      responses: {
        "200": { description: "No body.", headers: TIMESTAMP_HEADERS },
        ...this.errors([400, 401, 403, 404, 405, 412, 503], true),
      },
    });
  }

  private replace(): JsonObject {
    return this.operation("replace", `replace_${this.name}`, "Create or replace a record", {
      description: `Replacing requires \`${this.permission("replace")}\`; creating requires \`${this.permission("create")}\`.`,
      parameters: [ref("parameters", "ifMatch"), ref("parameters", "ifNoneMatch")],
      requestBody: this.payload(`${this.name}.Data`, `${this.name}.Permissions`, false),
      responses: {
        "200": this.ok("Replaced.", this.recordBody(), TIMESTAMP_HEADERS),
        "201": this.ok("Created.", this.recordBody(), TIMESTAMP_HEADERS),
        ...this.errors([400, 401, 403, 405, 409, 412, 503]),
      },
    });
  }

  private update(): JsonObject {
    const body = this.body(`${this.name}.DataPatch`, `${this.name}.PermissionsPatch`);
    body.minProperties = 1;
    return this.operation("update", `update_${this.name}`, "Modify a record", {
      parameters: [ref("parameters", "ifMatch")],
      requestBody: {
        required: true,
        content: {
          "application/json": { schema: body },
          "application/merge-patch+json": { schema: body },
          "application/json-patch+json": { schema: JSON_PATCH_SCHEMA },
        },
      },
      responses: {
        "200": this.ok("The modified record.", this.recordBody(), TIMESTAMP_HEADERS),
        ...this.errors([400, 401, 403, 404, 405, 412, 503]),
      },
    });
  }

  private remove(): JsonObject {
    return this.operation("delete", `remove_${this.name}`, "Delete a record", {
      parameters: [ref("parameters", "deletionTimestamp"), ref("parameters", "ifMatch")],
      responses: {
        "200": this.ok(
          "The tombstone.",
          { type: "object", required: ["data"], properties: { data: ref("schemas", "Tombstone") } },
          TIMESTAMP_HEADERS,
        ),
        ...this.errors([400, 401, 403, 404, 405, 412, 503]),
      },
    });
  }

  private operation(view: ViewName, operationId: string, summary: string, rest: JsonObject): JsonObject {
    const operation: JsonObject = { tags: [this.name], operationId, summary, ...rest };
    const access = this.mount.access?.[view];
    if (access !== undefined) operation.description = access;
    else if (traitsOf(this.definition).keepsAcl && operation.description === undefined)
      operation.description = `Requires the \`${this.permission(view)}\` permission.`;
    if (traitsOf(this.definition).ownRecordsOnly) operation.description = "Any authenticated user; only their own records.";
    return operation;
  }

  private permission(view: ViewName): string {
    return permissionFor(this.definition, view);
  }

  private hasRequiredFields(): boolean {
    const required = this.definition.schema?.required;
    return Array.isArray(required) && required.length > 0;
  }

  private body(data: string, permissions: string): JsonObject {
    const properties: JsonObject = { data: ref("schemas", data) };
    if (traitsOf(this.definition).keepsAcl) properties.permissions = ref("schemas", permissions);
    return { type: "object", properties, additionalProperties: false };
  }

  private payload(data: string, permissions: string, dataRequired: boolean): JsonObject {
    const body = this.body(data, permissions);
    if (dataRequired) body.required = ["data"];
    return { required: dataRequired, content: { "application/json": { schema: body } } };
  }

  private recordBody(): JsonObject {
    const properties: JsonObject = { data: ref("schemas", `${this.name}.Record`) };
    if (traitsOf(this.definition).keepsAcl) properties.permissions = ref("schemas", `${this.name}.Permissions`);
    return { type: "object", required: ["data"], properties };
  }

  private listBody(): JsonObject {
    return {
      type: "object",
      required: ["data"],
      properties: { data: { type: "array", items: { anyOf: [ref("schemas", `${this.name}.Record`), ref("schemas", "Tombstone")] } } },
    };
  }

  private ok(description: string, schema: JsonObject, headers: JsonObject): JsonValue {
    return { description, headers, content: { "application/json": { schema } } };
  }

  private listParameters(): JsonObject[] {
    return this.mount.liveFeed ? [...LIST_PARAMETERS, ...FEED_PARAMETERS] : [...LIST_PARAMETERS];
  }

  /** The error responses of an operation; where the parent may be missing, its 404 says so for every operation. */
  private errors(statuses: readonly ErrorStatus[], notModified = false): JsonObject {
    const missingParent = this.mount.missingParent;
    if (missingParent === undefined) return errorResponses(statuses, notModified);
    return { ...errorResponses([...statuses, 404], notModified), "404": ref("responses", missingParent) };
  }
}
