/**
 * Bounds on what one request may ask for, checked at the edge so that no adapter ever works on
 * more than they allow (docs/operating.md "Limits").
 */
import type { Context, Next } from "koa";
import { ValidationError } from "../../domain/errors.js";
import { clientJsonDetail } from "./client-json.js";

export interface InputLimits {
  /** Nesting of arrays/objects in a request body or a JSON filter value. */
  readonly maxJsonDepth: number;
  /** Filters (including `_since`/`_before`) in one listing query. */
  readonly maxFilters: number;
  /** Fields in one `_sort`. */
  readonly maxSortFields: number;
  /** Length of a request's path and query, batch sub-requests included. */
  readonly maxUrlLength: number;
}

export function urlLimitDescription(maxUrlLength: number): string {
  return `URL and query string are limited to ${maxUrlLength} characters`;
}

function urlTooLong(url: string, limits: InputLimits): ValidationError | undefined {
  return url.length > limits.maxUrlLength ? ValidationError.single("path", null, urlLimitDescription(limits.maxUrlLength)) : undefined;
}

/** Real requests are capped by the server's header size; batch sub-requests are not, so both pass here. */
export function urlLengthMiddleware(limits: InputLimits) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const error = urlTooLong(ctx.originalUrl, limits);
    if (error) throw error;
    await next();
  };
}

/**
 * The parsed body of a real request is checked once (a batch's sub-request bodies are parts of
 * it). Like an unparsable body, a refused one is a 400 thrown only when a handler reads the body,
 * so it does not outrank 404, 401 or 403 (api-contract §8).
 */
export function bodyJsonMiddleware(limits: InputLimits) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const request = ctx.request as typeof ctx.request & { rawBody?: unknown };
    if (
      !(ctx as Context & { disableBodyParser?: boolean }).disableBodyParser &&
      typeof request.rawBody === "string" &&
      request.rawBody.length > 0
    ) {
      const parsed = parsedBody(ctx);
      const detail = parsed && clientJsonDetail(request.rawBody, parsed.value, limits.maxJsonDepth, "body", null);
      if (detail) deferBodyError(ctx, new ValidationError([detail]));
    }
    await next();
  };
}

function parsedBody(ctx: Context): { value: unknown } | undefined {
  try {
    return { value: ctx.request.body };
  } catch {
    return undefined; // unparsable: that error is already deferred
  }
}

/** Reading the body throws `error` from now on. */
export function deferBodyError(ctx: Context, error: Error): void {
  Object.defineProperty(ctx.request, "body", {
    configurable: true,
    get() {
      throw error;
    },
  });
}
