/**
 * Collection and record endpoints. A handler parses, makes one service call and responds; the
 * error middleware owns every failure.
 */
import type Router from "@koa/router";
import type { Context } from "koa";
import { MethodNotAllowedError, ValidationError } from "../../domain/errors.js";
import { parseJsonPatch } from "../../domain/json-patch.js";
import { isValidRecordId, tombstoneBody } from "../../domain/records.js";
import type { PatchPayload } from "../../application/record-service.js";
import type { RecordOperations } from "../../application/record-operations.js";
import type { Requester } from "../../application/requester.js";
import { NotAcceptableError, UnknownUrlError } from "./http-errors.js";
import { preconditionsOf } from "./http-preconditions.js";
import type { Endpoint, HttpResource, HttpServices } from "./http-services.js";
import { CLIENT_TIMESTAMP_RULE, parseListQuery, timestampValue } from "./list-query.js";
import { bodyMediaType, JSON_PATCH_TYPE, JSON_TYPE, MERGE_PATCH_TYPE } from "./negotiation.js";
import { checkJsonPatchTimestamp, parseRecordPatch, parseRecordPayload, submitted } from "./payload.js";
import { respondWithList, respondWithRecord, setTimestampHeaders } from "./responses.js";
import { requestUrl, urlText } from "./urls.js";

/** Methods of each endpoint before settings switch any off. */
export const ENDPOINT_METHODS: Readonly<Record<Endpoint, readonly string[]>> = {
  collection: ["GET", "HEAD", "POST", "DELETE"],
  record: ["GET", "HEAD", "PUT", "PATCH", "DELETE"],
};
const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The router's path parameters (typed `any` by Koa). */
function pathParams(ctx: Context): Record<string, string | undefined> {
  return ctx.params as Record<string, string | undefined>;
}

export function requesterOf(ctx: Context): Requester {
  return ctx.state.requester as Requester;
}

/** Methods this endpoint serves, after `*_enabled` settings and `readonly`. */
export function allowedMethods(services: HttpServices, resource: HttpResource, endpoint: Endpoint): string[] {
  return ENDPOINT_METHODS[endpoint].filter(
    (m) => !resource.disabled.has(`${endpoint}:${m}`) && (!services.options.readonly || READ_METHODS.has(m)),
  );
}

/** What an endpoint serves: the resource, and the record flows its requests go through. */
export interface RecordTarget {
  readonly resource: HttpResource;
  readonly operations: RecordOperations;
}

export function registerRecordRoutes(router: Router, services: HttpServices): void {
  const resolve = (ctx: Context): HttpResource => {
    const resource = services.resources.get(String(pathParams(ctx).collection));
    if (!resource) throw new UnknownUrlError();
    return resource;
  };
  router.all("/:collection", (ctx) => serveCollection(ctx, services, { resource: resolve(ctx), operations: services.records }));
  router.all("/:collection/:id", (ctx) =>
    serveRecord(ctx, services, { resource: resolve(ctx), operations: services.records }, String(pathParams(ctx).id)),
  );
}

function allowedFor(ctx: Context, services: HttpServices, resource: HttpResource, endpoint: Endpoint): void {
  const allowed = allowedMethods(services, resource, endpoint);
  if (!allowed.includes(ctx.method)) throw new MethodNotAllowedError(allowed);
}

function cacheHeaders(ctx: Context, services: HttpServices, resource: HttpResource): void {
  const seconds = resource.cacheExpiresSeconds;
  if (seconds !== undefined && requesterOf(ctx).userId === undefined && ctx.method === "GET") {
    ctx.set("Cache-Control", `max-age=${seconds}`);
    ctx.set("Expires", new Date(services.clock.now() + seconds * 1000).toUTCString());
  }
}

/** `GET`/`HEAD`/`POST`/`DELETE` on a collection's URL. */
export async function serveCollection(ctx: Context, services: HttpServices, target: RecordTarget): Promise<void> {
  const { resource, operations: records } = target;
  allowedFor(ctx, services, resource, "collection");
  // A stream was asked for where none is served (the feed route took those it serves): JSON only here.
  if (ctx.get("accept") && !ctx.accepts(JSON_TYPE)) throw new NotAcceptableError();
  const definition = resource.definition;
  const requester = requesterOf(ctx);
  const preconditions = preconditionsOf((name) => ctx.get(name) || undefined);
  switch (ctx.method) {
    case "GET":
    case "HEAD": {
      const query = parseListQuery(new URLSearchParams(ctx.querystring), {
        paginateBy: services.options.paginateBy,
        maxFetchSize: services.options.storageMaxFetchSize,
        now: services.clock.now(),
        limits: services.options.inputLimits,
      });
      if (query.usedDeprecatedTo)
        ctx.set(
          "Alert",
          JSON.stringify({ code: "soft-eol", message: "_to is deprecated, use _before", url: services.options.projectDocs }),
        );
      if (ctx.method === "HEAD") {
        const { count, timestamp } = await records.count(requester, definition, query.filters, preconditions);
        setTimestampHeaders(ctx, timestamp);
        ctx.set("Total-Objects", String(count));
        ctx.set("Total-Records", String(count));
        ctx.status = 200;
        return;
      }
      const result = await records.list(requester, definition, query, preconditions);
      setTimestampHeaders(ctx, result.timestamp);
      if (result.nextToken) ctx.set("Next-Page", nextPageUrl(ctx, services, query.limit, result.nextToken));
      cacheHeaders(ctx, services, resource);
      respondWithList(ctx, result.entries, query.fields);
      return;
    }
    case "POST": {
      const result = await records.create(
        requester,
        definition,
        submitted(() => parseRecordPayload(ctx.request.body, definition, services.clock.now())),
        preconditions,
      );
      respondWithRecord(ctx, result.created ? 201 : 200, result);
      return;
    }
    default: {
      const query = parseListQuery(new URLSearchParams(ctx.querystring), {
        paginateBy: undefined,
        maxFetchSize: Number.MAX_SAFE_INTEGER,
        now: services.clock.now(),
        limits: services.options.inputLimits,
      });
      const { tombstones, timestamp } = await records.deleteAll(requester, definition, query.filters, preconditions);
      setTimestampHeaders(ctx, timestamp);
      respondWithList(ctx, tombstones);
    }
  }
}

/** `GET`/`HEAD`/`PUT`/`PATCH`/`DELETE` on a record's URL. */
export async function serveRecord(ctx: Context, services: HttpServices, target: RecordTarget, id: string): Promise<void> {
  const { resource, operations: records } = target;
  allowedFor(ctx, services, resource, "record");
  if (!isValidRecordId(id)) throw ValidationError.single("path", "id", "Invalid object id");
  const definition = resource.definition;
  const requester = requesterOf(ctx);
  const preconditions = preconditionsOf((name) => ctx.get(name) || undefined);
  switch (ctx.method) {
    case "GET":
    case "HEAD": {
      const fields = new URLSearchParams(ctx.querystring).get("_fields")?.split(",").filter(Boolean);
      const result = await records.get(requester, definition, id, preconditions);
      cacheHeaders(ctx, services, resource);
      respondWithRecord(ctx, 200, result, fields);
      return;
    }
    case "PUT": {
      const result = await records.replace(
        requester,
        definition,
        id,
        submitted(() => parseRecordPayload(ctx.request.body, definition, services.clock.now())),
        preconditions,
      );
      respondWithRecord(ctx, result.created ? 201 : 200, result);
      return;
    }
    case "PATCH": {
      const type = bodyMediaType(ctx);
      const parse = (): PatchPayload =>
        type === JSON_PATCH_TYPE
          ? { operations: checkJsonPatchTimestamp(parseJsonPatch(ctx.request.body), services.clock.now()), merge: false }
          : parseRecordPatch(ctx.request.body, definition, type === MERGE_PATCH_TYPE, services.clock.now());
      const result = await records.update(requester, definition, id, submitted(parse), preconditions);
      respondWithRecord(ctx, 200, result);
      return;
    }
    default: {
      const tombstone = await records.delete(requester, definition, id, preconditions, deletionTimestamp(ctx, services.clock.now()));
      setTimestampHeaders(ctx, tombstone.lastModified);
      ctx.status = 200;
      ctx.body = { data: tombstoneBody(tombstone) };
    }
  }
}

/** `DELETE ?last_modified=<int>` forces the tombstone timestamp when greater; bounded like `_since`. */
function deletionTimestamp(ctx: Context, now: number): number | undefined {
  const value = new URLSearchParams(ctx.querystring).get("last_modified");
  if (value === null) return undefined;
  const timestamp = timestampValue(value, now);
  if (timestamp === undefined) throw ValidationError.single("querystring", "last_modified", CLIENT_TIMESTAMP_RULE);
  return timestamp;
}

/** The same URL with every parameter kept, `_limit` set to the effective limit and `_token` added. */
export function nextPageUrl(ctx: Context, services: HttpServices, limit: number, token: string): string {
  const url = requestUrl(ctx, services.options);
  url.query.set("_limit", String(limit));
  url.query.set("_token", token);
  return urlText(url);
}
