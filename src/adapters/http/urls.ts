import type { Context } from "koa";
import type { HttpOptions } from "./http-services.js";

/** The absolute URL of the request, with `http_scheme`/`http_host` taking over when set. */
export function requestUrl(ctx: Context, options: Pick<HttpOptions, "httpScheme" | "httpHost">): URL {
  const scheme = options.httpScheme ?? ctx.protocol;
  const host = options.httpHost ?? ctx.host;
  return new URL(ctx.originalUrl, `${scheme}://${host}`);
}
