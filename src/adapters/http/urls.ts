import type { Context } from "koa";
import { ValidationError } from "../../domain/errors.js";
import type { HttpOptions } from "./http-services.js";

/** The absolute URL of the request, with `http_scheme`/`http_host` taking over when set. */
export function requestUrl(ctx: Context, options: Pick<HttpOptions, "httpScheme" | "httpHost">): URL {
  const scheme = options.httpScheme ?? ctx.protocol;
  const host = options.httpHost ?? ctx.host;
  try {
    return new URL(ctx.originalUrl, `${scheme}://${host}`);
  } catch {
    // The Host header is the client's: an unusable one is its mistake, not a 500.
    throw ValidationError.single("header", "Host", `Invalid Host header: ${JSON.stringify(host)}`);
  }
}
