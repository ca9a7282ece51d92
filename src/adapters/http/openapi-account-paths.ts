/** OpenAPI path items of `/accounts` and `/accounts/{id}` (account-routes.ts), present when accounts are on. */
import type { JsonObject } from "../../domain/json.js";
import { errorResponses, ref, TIMESTAMP_HEADERS, TIMESTAMP_SCHEMA } from "./openapi-components.js";

const ACCOUNT_ID: JsonObject = { type: "string", pattern: "^[a-zA-Z0-9][.@a-zA-Z0-9_-]{0,127}$" };
const TAGS = ["accounts"];

const ACCOUNT_DATA: JsonObject = {
  type: "object",
  required: ["id", "last_modified"],
  additionalProperties: false,
  properties: { id: ACCOUNT_ID, last_modified: TIMESTAMP_SCHEMA },
};

const ACCOUNT: JsonObject = {
  type: "object",
  required: ["data", "permissions"],
  properties: {
    data: ACCOUNT_DATA,
    permissions: { type: "object", properties: { write: { type: "array", items: { type: "string" } } } },
  },
};

const PASSWORD: JsonObject = { type: "string", minLength: 1, maxLength: 1024, description: "Never returned." };

function body(required: readonly string[]): JsonObject {
  return {
    required: true,
    content: {
      "application/json": {
        schema: {
          type: "object",
          required: ["data"],
          properties: { data: { type: "object", required: [...required], properties: { id: ACCOUNT_ID, password: PASSWORD } } },
        },
      },
    },
  };
}

function ok(description: string, schema: JsonObject = ACCOUNT): JsonObject {
  return { description, headers: TIMESTAMP_HEADERS, content: { "application/json": { schema } } };
}

/** A sign-in refused after too many failures, on any route that reads credentials. */
const THROTTLED: JsonObject = {
  description: "Too many failed sign-ins for this account or from this address (errno 117); retry after `Retry-After` seconds.",
  content: { "application/json": { schema: ref("schemas", "Error") } },
};

const ID_PARAMETER: JsonObject = { name: "id", in: "path", required: true, description: "The account id.", schema: ACCOUNT_ID };

function errors(statuses: Parameters<typeof errorResponses>[0]): JsonObject {
  return { ...errorResponses(statuses), "429": THROTTLED };
}

export function accountPaths(readonly: boolean): JsonObject {
  const plural: JsonObject = {
    get: {
      tags: TAGS,
      operationId: "list_accounts",
      summary: "One's own account; every account for administrators (account_read_principals, account_write_principals)",
      responses: {
        "200": ok("The accounts.", {
          type: "object",
          required: ["data"],
          properties: { data: { type: "array", items: ACCOUNT_DATA } },
        }),
        ...errors([401]),
      },
    },
  };
  const single: JsonObject = {
    parameters: [ID_PARAMETER],
    get: {
      tags: TAGS,
      operationId: "get_account",
      summary: "An account (owner, administrators)",
      responses: { "200": ok("The account."), ...errors([401, 403, 404]) },
    },
  };
  if (!readonly) {
    plural.post = {
      tags: TAGS,
      operationId: "create_account",
      summary: "Sign up (account_create_principals)",
      requestBody: body(["id", "password"]),
      responses: { "201": ok("Created."), "200": ok("The existing account, for its owner or an administrator."), ...errors([401, 403]) },
    };
    single.put = {
      tags: TAGS,
      operationId: "put_account",
      summary: "Sign up, or change the password (owner, administrators)",
      requestBody: body(["password"]),
      responses: { "201": ok("Created."), "200": ok("Password changed."), ...errors([401, 403]) },
    };
    single.patch = {
      tags: TAGS,
      operationId: "patch_account",
      summary: "Change the password (owner, administrators); the user id stays account:<id>",
      requestBody: body(["password"]),
      responses: { "200": ok("Password changed."), ...errors([401, 403, 404]) },
    };
    single.delete = {
      tags: TAGS,
      operationId: "delete_account",
      summary: "Delete the account (owner, administrators)",
      responses: {
        "200": ok("Deleted.", { type: "object", required: ["data"], properties: { data: ref("schemas", "Tombstone") } }),
        ...errors([401, 403, 404]),
      },
    };
  }
  return { "/accounts": plural, "/accounts/{id}": single };
}
