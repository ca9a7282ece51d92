/**
 * CORS on every response, errors and unknown URLs included; preflights answered here, before
 * authentication. A request from an origin `cors_origins` does not allow is refused with a 400,
 * unless it comes from the server's own origin (the admin page): same-origin is never refused.
 */
import type { Context, Next } from "koa";
import { ValidationError } from "../../domain/errors.js";

export const EXPOSED_HEADERS = [
  "Content-Length",
  "Content-Type",
  "ETag",
  "Last-Modified",
  "Next-Page",
  "Total-Objects",
  "Total-Records",
  "Backoff",
  "Retry-After",
  "Alert",
  "X-Request-Id",
];
const ALLOWED_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";
const ALLOWED_HEADERS = "Authorization, Content-Type, If-Match, If-None-Match, X-Request-Id";

/** Shell-style patterns: `*` any run of characters, `?` one character. */
export function originMatcher(patterns: readonly string[]): (origin: string) => boolean {
  const regexes = patterns.map(
    (p) =>
      new RegExp(
        `^${p
          .replace(/[.+^${}()|[\]\\]/g, "\\$&")
          .replace(/\*/g, ".*")
          .replace(/\?/g, ".")}$`,
        "i",
      ),
  );
  return (origin) => regexes.some((r) => r.test(origin));
}

/**
 * Whether `origin` is the one the request was sent to: its host (and port) is the `Host` header.
 * The scheme is not compared: behind a proxy that ends TLS, the server sees plain HTTP.
 */
function isSameOrigin(origin: string, host: string): boolean {
  try {
    return host !== "" && new URL(origin).host === host.toLowerCase();
  } catch {
    return false; // `null` or garbage
  }
}

export function corsMiddleware(options: { origins: readonly string[]; maxAgeSeconds: number | undefined }) {
  const allowed = originMatcher(options.origins);
  // Like Kinto (cornice): `*` when every origin is allowed, the caller's origin otherwise. Only an
  // echoed origin may be sent credentials (a browser refuses them with `*`).
  const everyOrigin = options.origins.includes("*");
  return async (ctx: Context, next: Next): Promise<void> => {
    const origin = ctx.get("origin");
    if (origin && allowed(origin)) {
      ctx.set("Access-Control-Allow-Origin", everyOrigin ? "*" : origin);
      if (!everyOrigin) ctx.set("Access-Control-Allow-Credentials", "true");
      ctx.set("Access-Control-Expose-Headers", EXPOSED_HEADERS.join(", "));
      ctx.vary("Origin");
    } else if (origin && !isSameOrigin(origin, ctx.get("host"))) {
      throw ValidationError.single("header", "Origin", `${origin} not allowed`);
    }
    if (ctx.method === "OPTIONS") {
      if (origin && ctx.get("access-control-request-method")) {
        ctx.set("Access-Control-Allow-Methods", ALLOWED_METHODS);
        ctx.set("Access-Control-Allow-Headers", ctx.get("access-control-request-headers") || ALLOWED_HEADERS);
        if (options.maxAgeSeconds) ctx.set("Access-Control-Max-Age", String(options.maxAgeSeconds)); // empty or 0: let browsers decide
      }
      ctx.status = 200;
      ctx.body = {};
      return;
    }
    await next();
  };
}
