/**
 * `POST /v1/batch` (api-contract §9). Each sub-request runs through the very same middleware
 * stack as a real request (routing, authentication, error mapping), in order, inside one unit of
 * work. Sub-requests share the requesters computed for the batch, so principals are looked up
 * once per distinct identity.
 */
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import type Router from "@koa/router";
import type Koa from "koa";
import compose from "koa-compose";
import type { Context } from "koa";
import { MethodNotAllowedError, ValidationError, type ValidationDetail } from "../../domain/errors.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../../domain/json.js";
import type { Requester } from "../../application/requester.js";
import type { HttpServices } from "./http-services.js";
import { BatchBody, BatchSubRequest } from "./batch-dto.js";
import { urlLimitDescription } from "./input-limits.js";
import { JsonText } from "./json-text.js";
import { shapeDetails } from "./request-shape.js";
import { REDIRECT_TARGET, VERSION_PREFIX } from "./routing-middleware.js";

const REQUEST_KEYS = new Set(["method", "path", "headers", "body"]);
/** Outer headers that describe the outer body, not the sub-request's. */
const NOT_INHERITED = new Set(["content-length", "content-type", "transfer-encoding", "connection", "expect"]);

export interface SubRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: JsonObject | undefined;
}

export interface SubResponse extends JsonObject {
  status: number;
  path: string;
  headers: JsonObject;
  body: JsonValue;
}

/** Thrown inside the unit of work to roll it back; the batch answers with this sub-response. */
class BatchAborted extends Error {
  constructor(readonly response: SubResponse) {
    super(`batch aborted by a ${response.status} sub-response`);
  }
}

/** Requesters of a batch, by user id ("" anonymous): principals computed once per identity. */
export const BATCH_REQUESTERS = "tessera.batchRequesters";
const BATCH_ROUTE = "batch";

export interface BatchLimits {
  readonly maxRequests: number | null;
  /** Real requests have their URL capped by the header size; sub-request paths get the same bound. */
  readonly maxUrlLength: number;
  /** Asks the router whether a sub-request path would reach the batch endpoint. */
  readonly routesToBatch: (path: string) => boolean;
}

const RECURSIVE = "Recursive calls to the batch endpoint are not allowed";

export function registerBatchRoute(router: Router, services: HttpServices, app: Koa): void {
  let pipeline: ((ctx: Context) => Promise<void>) | undefined;
  router.all(BATCH_ROUTE, "/batch", async (ctx) => {
    if (ctx.method !== "POST") throw new MethodNotAllowedError(["POST"]);
    // Whatever spelling got a sub-request here, the router decided it is a batch: never nest.
    if (ctx.state[BATCH_REQUESTERS] !== undefined) throw ValidationError.single("body", "path", RECURSIVE);
    const limits = {
      maxRequests: services.options.batchMaxRequests,
      maxUrlLength: services.options.inputLimits.maxUrlLength,
      routesToBatch: (path: string) => routesToBatch(router, path),
    };
    const requests = parseBatch(ctx.request.body, limits);
    services.metrics?.batchReceived(requests.length);
    pipeline ??= compose(app.middleware) as unknown as (ctx: Context) => Promise<void>;
    const run = pipeline;
    const outer = ctx.state.requester as Requester;
    const shared = new Map<string, Requester>([[outer.userId ?? "", outer]]);
    const inherited = Object.fromEntries(
      Object.entries(ctx.headers).filter(([name, v]) => !NOT_INHERITED.has(name) && typeof v === "string"),
    ) as Record<string, string>;
    try {
      const responses = await services.unitOfWork.run(async () => {
        const results: SubResponse[] = [];
        for (const request of requests) {
          const response = await runFollowingRedirect(
            app,
            run,
            { ...request, headers: { ...inherited, ...lowerKeys(request.headers) } },
            shared,
          );
          if (response.status >= 500 || response.status === 409) throw new BatchAborted(response);
          results.push(response);
        }
        return results;
      });
      ctx.body = { responses };
    } catch (error) {
      if (!(error instanceof BatchAborted)) throw error;
      ctx.status = error.response.status;
      for (const [name, value] of Object.entries(error.response.headers))
        if (name.toLowerCase() !== "content-length" && typeof value === "string") ctx.set(name, value);
      ctx.body = error.response.body;
    }
  });
}

/**
 * Whether the router would serve `path` (or the path a trailing-slash redirect leads to, which
 * a sub-request follows) with the batch route. The router decides, so case, duplicated or
 * trailing slashes and query strings cannot get around it.
 */
function routesToBatch(router: Router, path: string): boolean {
  const layer = router.route(BATCH_ROUTE);
  const bare = path.split("?")[0] ?? path;
  return [bare, bare.replace(/\/+$/, "")].some((candidate) =>
    router.match(candidate, "POST").pathAndMethod.some((matched) => matched === layer),
  );
}

/** One version or trailing-slash redirect is followed with the same method, headers and body, as Kinto does. */
async function runFollowingRedirect(
  app: Koa,
  run: (ctx: Context) => Promise<void>,
  request: SubRequest,
  shared: Map<string, Requester>,
): Promise<SubResponse> {
  const { response, redirectTo } = await runSubRequest(app, run, request, shared);
  if (response.status !== 307 || redirectTo === undefined || !redirectTo.startsWith(`${VERSION_PREFIX}/`)) return response;
  return (await runSubRequest(app, run, { ...request, path: redirectTo }, shared)).response;
}

async function runSubRequest(
  app: Koa,
  run: (ctx: Context) => Promise<void>,
  request: SubRequest,
  shared: Map<string, Requester>,
): Promise<{ response: SubResponse; redirectTo?: string }> {
  const req = new IncomingMessage(new Socket());
  req.method = request.method;
  req.url = request.path;
  req.headers = request.body === undefined ? request.headers : { ...bodyHeaders(request), ...withoutBodyHeaders(request.headers) };
  const res = new ServerResponse(req);
  const ctx = app.createContext(req, res);
  ctx.request.body = request.body;
  (ctx as Context & { disableBodyParser?: boolean }).disableBodyParser = true;
  ctx.state[BATCH_REQUESTERS] = shared;
  await run(ctx);
  // Names as the handlers spelled them (`ETag`, `Content-Type`): Kinto clients read them case-sensitively.
  const headers: JsonObject = {};
  // getRawHeaderNames() exists on every outgoing message (Node ≥ 15.13); @types/node declares it on ClientRequest only.
  for (const name of (res as ServerResponse & { getRawHeaderNames(): string[] }).getRawHeaderNames()) {
    const value = res.getHeader(name);
    if (value !== undefined) headers[name] = String(value);
  }
  const body =
    ctx.method === "HEAD"
      ? ""
      : ctx.body === undefined || ctx.body === null
        ? null
        : ctx.body instanceof JsonText
          ? ctx.body.toJSON()
          : (ctx.body as JsonValue);
  return {
    response: { status: ctx.status, path: decodedPath(request.path), headers, body },
    redirectTo: ctx.state[REDIRECT_TARGET] as string | undefined,
  };
}

/** A body needs a length and a JSON type, or handlers asking its media type (merge-patch) see none. */
function bodyHeaders(request: SubRequest): Record<string, string> {
  const type = request.headers["content-type"];
  return {
    "content-type": type !== undefined && /json/i.test(type) ? type : "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(JSON.stringify(request.body))),
  };
}

function withoutBodyHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name !== "content-type" && name !== "content-length"));
}

/** The sub-request's path as Kinto reports it: without the query, percent-decoded when valid. */
function decodedPath(path: string): string {
  const bare = path.split("?")[0] ?? path;
  try {
    return decodeURIComponent(bare);
  } catch {
    return bare;
  }
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/** Shape of the batch body; `defaults` merged into each request without overriding it. */
export function parseBatch(body: unknown, limits: BatchLimits): SubRequest[] {
  const { maxRequests } = limits;
  const problems: ValidationDetail[] = [];
  const bad = (name: string, description: string) => problems.push({ location: "body", name, description });
  if (!isJsonObject(body)) throw ValidationError.single("body", null, "Body must be an object with a list of requests");
  for (const key of Object.keys(body)) if (key !== "defaults" && key !== "requests") bad(key, `Unrecognized key "${key}"`);
  const shape = shapeDetails(new BatchBody(body), null);
  problems.push(...shape.filter((detail) => detail.name === "defaults"));
  const defaults = body.defaults === undefined ? {} : body.defaults;
  if (isJsonObject(defaults))
    for (const key of Object.keys(defaults)) if (!REQUEST_KEYS.has(key)) bad(`defaults.${key}`, `Unrecognized key "${key}"`);
  problems.push(...shape.filter((detail) => detail.name === "requests"));
  if (problems.length > 0) throw new ValidationError(problems);
  const raw = body.requests as JsonValue[];
  if (maxRequests !== null && raw.length > maxRequests)
    throw ValidationError.single("body", "requests", `Number of requests is limited to ${maxRequests}`);
  raw.forEach((entry, i) => {
    if (isJsonObject(entry))
      for (const key of Object.keys(entry)) if (!REQUEST_KEYS.has(key)) bad(`requests.${i}.${key}`, `Unrecognized key "${key}"`);
  });
  const requests = raw.map((entry, i) => subRequest(merge(defaults as JsonObject, entry), `requests.${i}`, limits, bad));
  if (problems.length > 0) throw new ValidationError(problems);
  return requests as SubRequest[];
}

/** Defaults fill what a request lacks, headers and body key by key. */
function merge(defaults: JsonObject, entry: JsonValue): JsonValue {
  if (!isJsonObject(entry)) return entry;
  const merged: JsonObject = { ...defaults, ...entry };
  for (const key of ["headers", "body"]) {
    const base = defaults[key];
    const own = entry[key];
    if (isJsonObject(base) && isJsonObject(own)) merged[key] = { ...base, ...own };
  }
  return merged;
}

function subRequest(
  entry: JsonValue,
  name: string,
  limits: BatchLimits,
  bad: (name: string, description: string) => void,
): SubRequest | undefined {
  if (!isJsonObject(entry)) {
    bad(name, "each request must be an object");
    return undefined;
  }
  const shape = new BatchSubRequest(entry);
  for (const detail of shapeDetails(shape, name)) bad(detail.name ?? name, detail.description);
  const { method, path, headers, body } = shape;
  if (typeof path !== "string" || typeof method !== "string") return undefined;
  const versioned = path.startsWith(`${VERSION_PREFIX}/`) || path === VERSION_PREFIX ? path : `${VERSION_PREFIX}${path}`;
  if (versioned.length > limits.maxUrlLength) bad(`${name}.path`, urlLimitDescription(limits.maxUrlLength));
  else if (path.startsWith("/") && limits.routesToBatch(versioned)) bad(`${name}.path`, RECURSIVE);
  return {
    method,
    path: versioned,
    headers: headers as Record<string, string>,
    body: body as JsonObject | undefined,
  };
}
