/**
 * The batch body `{defaults?, requests}` and one sub-request `{method, path, headers, body}` as
 * class-validator classes (api-contract §9). Unknown keys, the request count and the path limits
 * stay in batch-route.ts: their messages name the key or a setting, which a constraint cannot.
 */
import { validateHeaderName, validateHeaderValue } from "node:http";
import { isJsonObject, type JsonValue } from "../../domain/json.js";
import { Shape } from "./request-shape.js";

export const BATCH_METHODS: readonly string[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

export class BatchBody {
  @Shape("batchDefaults", (value) => value === undefined || isJsonObject(value), "defaults must be an object")
  defaults: unknown;

  @Shape("batchRequests", Array.isArray, "requests must be a list")
  requests: unknown;

  constructor(body: { readonly [key: string]: JsonValue | undefined }) {
    this.defaults = body.defaults;
    this.requests = body.requests;
  }
}

export class BatchSubRequest {
  @Shape(
    "batchMethod",
    (value) => typeof value === "string" && BATCH_METHODS.includes(value),
    `method must be one of ${BATCH_METHODS.join(", ")} (uppercase)`,
  )
  method: unknown;

  @Shape("batchPath", (value) => typeof value === "string" && value.startsWith("/"), "path is required and must start with /")
  path: unknown;

  @Shape(
    "batchHeaders",
    (value) => isJsonObject(value) && validHeaders(value),
    "headers must be an object of valid header names and string values",
  )
  headers: unknown;

  @Shape("batchBody", (value) => value === undefined || isJsonObject(value), "body must be an object")
  body: unknown;

  /** An absent (or null) method is GET and absent headers are none, as before defaults existed. */
  constructor(entry: { readonly [key: string]: JsonValue | undefined }) {
    this.method = entry.method ?? "GET";
    this.path = entry.path;
    this.headers = entry.headers ?? {};
    this.body = entry.body;
  }
}

/** Header names and values a real request could carry; others would make a response header throw. */
function validHeaders(headers: { readonly [key: string]: unknown }): boolean {
  return Object.entries(headers).every(([name, value]) => {
    if (typeof value !== "string") return false;
    try {
      validateHeaderName(name);
      validateHeaderValue(name, value);
      return true;
    } catch {
      return false;
    }
  });
}
