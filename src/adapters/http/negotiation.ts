/** Media types: JSON answers (or the live feed's event stream), JSON bodies only (415 otherwise). */
import type { Context, Next } from "koa";
import { wantsEventStream } from "./event-stream.js";
import { NotAcceptableError, PayloadTooLargeError, UnsupportedMediaTypeError } from "./http-errors.js";

/** The media types of the API, in one place: responses, bodies, and the two PATCH dialects. */
export const JSON_TYPE = "application/json";
export const MERGE_PATCH_TYPE = "application/merge-patch+json";
export const JSON_PATCH_TYPE = "application/json-patch+json";
export const BODY_TYPES = [JSON_TYPE, MERGE_PATCH_TYPE, JSON_PATCH_TYPE];
const PATCH_TYPES = [JSON_TYPE, MERGE_PATCH_TYPE, JSON_PATCH_TYPE];
const WRITE_METHODS = new Set(["POST", "PUT", "PATCH"]);

/** The request body's media type without parameters, lower-cased: RFC 9110 makes type and subtype case-insensitive. */
export function bodyMediaType(ctx: Context): string {
  return ctx.request.type.trim().toLowerCase();
}

export function negotiationMiddleware(options: { maxBodyBytes: number }) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.get("accept") && !ctx.accepts(JSON_TYPE) && !wantsEventStream(ctx)) throw new NotAcceptableError();
    const hasBody = ctx.request.length !== 0 && (ctx.request.length !== undefined || Boolean(ctx.get("transfer-encoding")));
    // Like Kinto, a declared media type is checked even for an empty body; no type at all is fine without a body.
    if (WRITE_METHODS.has(ctx.method) && (hasBody || ctx.get("content-type"))) {
      const accepted = ctx.method === "PATCH" ? PATCH_TYPES : [JSON_TYPE];
      if (!accepted.includes(bodyMediaType(ctx))) throw new UnsupportedMediaTypeError(accepted);
      if ((ctx.request.length ?? 0) > options.maxBodyBytes) throw new PayloadTooLargeError();
    }
    await next();
  };
}

/** After body parsing: an empty JSON body is the empty object, as in Kinto (`POST` with no content creates). */
export async function emptyBodyAsObject(ctx: Context, next: Next): Promise<void> {
  if (WRITE_METHODS.has(ctx.method) && (ctx.request as { rawBody?: unknown }).rawBody === "") ctx.request.body = {};
  await next();
}
