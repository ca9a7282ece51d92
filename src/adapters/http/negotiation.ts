/** Media types: JSON answers only (406 otherwise), JSON bodies only (415 otherwise). */
import type { Context, Next } from "koa";
import { NotAcceptableError, PayloadTooLargeError, UnsupportedMediaTypeError } from "./http-errors.js";

export const JSON_TYPE = "application/json";
export const MERGE_PATCH_TYPE = "application/merge-patch+json";
const WRITE_METHODS = new Set(["POST", "PUT", "PATCH"]);

export function negotiationMiddleware(options: { maxBodyBytes: number }) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.get("accept") && !ctx.accepts(JSON_TYPE)) throw new NotAcceptableError();
    if (WRITE_METHODS.has(ctx.method) && ctx.request.length !== 0 && (ctx.request.length !== undefined || ctx.get("transfer-encoding"))) {
      const accepted = ctx.method === "PATCH" ? [JSON_TYPE, MERGE_PATCH_TYPE] : [JSON_TYPE];
      if (!ctx.is(...accepted)) throw new UnsupportedMediaTypeError(accepted);
      if ((ctx.request.length ?? 0) > options.maxBodyBytes) throw new PayloadTooLargeError();
    }
    await next();
  };
}
