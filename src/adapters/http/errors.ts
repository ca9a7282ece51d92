/**
 * The one table mapping error classes to status, errno and body (api-contract §8), and the
 * middleware that applies it. Nothing a client sends reaches the client as a raw exception.
 */
import type { Context, Next } from "koa";
import type { Logger } from "pino";
import {
  BackendError,
  ConflictError,
  ForbiddenError,
  MethodNotAllowedError,
  NotModifiedError,
  PreconditionFailedError,
  ParentNotFoundError,
  RecordNotFoundError,
  ResyncRequiredError,
  UnauthenticatedError,
  ValidationError,
} from "../../domain/errors.js";
import type { JsonObject, JsonValue } from "../../domain/json.js";
import { SignInThrottledError } from "../../application/accounts/sign-in-throttled-error.js";
import {
  AtCapacityError,
  BadRequestError,
  NotAcceptableError,
  PayloadTooLargeError,
  ServiceGoneError,
  TooManyRequestsError,
  UnknownUrlError,
  UnknownVersionError,
  UnsupportedMediaTypeError,
} from "./http-errors.js";

export interface ErrorResponse {
  readonly status: number;
  readonly errno: number;
  /** The `error` field when it is not the status's usual reason. */
  readonly error?: string;
  readonly message?: string;
  readonly details?: JsonValue;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface ErrorContext {
  readonly retryAfterSeconds: number;
  readonly challenge: string | undefined;
}

type Rule = [new (...args: never[]) => Error, (error: never, context: ErrorContext) => ErrorResponse];

const rule = <E extends Error>(type: new (...args: never[]) => E, map: (error: E, context: ErrorContext) => ErrorResponse): Rule => [
  type,
  map,
];

export const ERROR_TABLE: readonly Rule[] = [
  rule(ValidationError, (e) => ({ status: 400, errno: 107, message: e.message, details: e.details.map((d) => ({ ...d })) })),
  rule(BadRequestError, (e) => ({ status: 400, errno: 107, error: "Bad Request", message: e.message })),
  rule(UnauthenticatedError, (e, c) => ({
    status: 401,
    errno: 104,
    message: e.message,
    headers: c.challenge ? { "WWW-Authenticate": c.challenge } : undefined,
  })),
  rule(ForbiddenError, (e) => ({ status: 403, errno: 121, message: e.message })),
  rule(ParentNotFoundError, (e) => ({ status: 404, errno: 111, details: { id: e.id, resource_name: e.collection } })),
  rule(RecordNotFoundError, (e) => ({ status: 404, errno: 110, details: { id: e.id, resource_name: e.collection } })),
  rule(UnknownUrlError, (e) => ({ status: 404, errno: 111, message: e.message })),
  rule(UnknownVersionError, (e) => ({ status: 404, errno: 116, message: e.message })),
  rule(MethodNotAllowedError, (e) => ({
    status: 405,
    errno: 115,
    message: e.message,
    details: { allowed: [...e.allowed] },
    headers: { Allow: e.allowed.join(", ") },
  })),
  rule(NotAcceptableError, (e) => ({ status: 406, errno: 107, message: e.message })),
  rule(ConflictError, (e) => ({ status: 409, errno: 122, message: e.message, details: { existing: e.existing } })),
  rule(ServiceGoneError, (e) => ({ status: 410, errno: 202, message: e.message })),
  rule(ResyncRequiredError, (e) => ({
    status: 410,
    errno: 124,
    message: e.message,
    details: { location: "querystring", name: "_since", since: e.since, timestamp: e.timestamp },
  })),
  rule(PreconditionFailedError, (e) => ({ status: 412, errno: 114, message: e.message, details: { existing: e.existing } })),
  rule(PayloadTooLargeError, (e) => ({ status: 413, errno: 113, message: e.message })),
  rule(UnsupportedMediaTypeError, (e) => ({ status: 415, errno: 107, message: e.message })),
  rule(TooManyRequestsError, (e, c) => ({
    status: 429,
    errno: 117,
    message: e.message,
    headers: { "Retry-After": String(c.retryAfterSeconds) },
  })),
  rule(SignInThrottledError, (e) => ({
    status: 429,
    errno: 117,
    message: e.message,
    headers: { "Retry-After": String(e.retryAfterSeconds) },
  })),
  rule(AtCapacityError, (e, c) => ({
    status: 503,
    errno: 201,
    message: e.message,
    headers: { "Retry-After": String(c.retryAfterSeconds) },
  })),
  rule(BackendError, (e, c) => ({
    status: 503,
    errno: 201,
    message: `Service temporary unavailable due to overloading or maintenance (${e.backend} backend).`,
    details: { backend: e.backend },
    headers: { "Retry-After": String(c.retryAfterSeconds) },
  })),
];

const REASONS: Record<number, string> = {
  400: "Invalid parameters",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  409: "Conflict",
  410: "Gone",
  412: "Precondition Failed",
  413: "Request Entity Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

const INTERNAL: ErrorResponse = { status: 500, errno: 999, message: "A programmatic error occurred, developers have been informed." };

/** errno of client errors raised by Koa or the body parser, by status; others are 107. */
const ERRNO_BY_STATUS: Readonly<Record<number, number>> = {
  401: 104,
  403: 121,
  404: 111,
  405: 115,
  409: 122,
  410: 202,
  412: 114,
  413: 113,
};

/**
 * Body-parser and Koa errors carry a status; the client ones keep it (a 404 stays a 404), only
 * a 400 is read as an unparsable body. Their own messages are not shown: they may name internals.
 */
function fromHttpError(error: unknown): ErrorResponse | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status !== "number" || status < 400 || status >= 500) return undefined;
  if (status === 400)
    return {
      status: 400,
      errno: 107,
      message: "Invalid JSON body",
      details: [{ location: "body", name: null, description: "Invalid JSON" }],
    };
  if (status === 413) return { status: 413, errno: 113, message: "Request body is too large." };
  if (status === 415) return { status: 415, errno: 107, message: "Unsupported Content-Type." };
  return { status, errno: ERRNO_BY_STATUS[status] ?? 107 };
}

export function describeError(error: unknown, context: ErrorContext): ErrorResponse {
  for (const [type, map] of ERROR_TABLE) if (error instanceof type) return map(error as never, context);
  return fromHttpError(error) ?? INTERNAL;
}

export function errorBody(response: ErrorResponse, infoLink: string): JsonObject {
  const body: JsonObject = { code: response.status, errno: response.errno, error: response.error ?? REASONS[response.status] ?? "Error" };
  if (response.message !== undefined) body.message = response.message;
  if (infoLink !== "") body.info = infoLink; // `error_info_link =` switches the link off
  if (response.details !== undefined) body.details = response.details;
  return body;
}

/** Maps every failure below it to its JSON error; 304 is answered here too (no body). */
export function errorMiddleware(context: ErrorContext & { infoLink: string; logger: Logger }) {
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
    } catch (error) {
      if (error instanceof NotModifiedError) {
        ctx.status = 304;
        ctx.set("ETag", `"${error.timestamp}"`);
        ctx.body = null;
        return;
      }
      const response = describeError(error, context);
      if (response.status >= 500) {
        const logger = (ctx.state.logger as Logger | undefined) ?? context.logger; // the request's, with its id
        if (response.status === 500) logger.error({ err: error, path: ctx.path }, "unexpected error");
        else logger.warn({ err: (error as Error).cause ?? error, path: ctx.path }, (error as Error).message);
      }
      ctx.status = response.status;
      for (const [name, value] of Object.entries(response.headers ?? {})) ctx.set(name, value);
      ctx.body = errorBody(response, context.infoLink);
    }
  };
}
