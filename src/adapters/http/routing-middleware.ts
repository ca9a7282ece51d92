/** URL hygiene before routing: version prefix, unknown versions, trailing slashes (api-contract §1). */
import type { Context, Next } from "koa";
import { UnknownUrlError, UnknownVersionError } from "./http-errors.js";

export const VERSION_PREFIX = "/v1";

export function urlMiddleware(options: { versionPrefixRedirectEnabled: boolean; trailingSlashRedirectEnabled: boolean }) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const path = ctx.path;
    const query = ctx.querystring ? `?${ctx.querystring}` : "";
    // Like Kinto: anything starting with `/v<digits>` is never redirected (`/v2foo` included).
    const version = /^\/v\d+/.exec(path);
    if (!version) {
      if (!options.versionPrefixRedirectEnabled) throw new UnknownUrlError();
      return redirect(ctx, `${VERSION_PREFIX}${path}${query}`);
    }
    if (version[0] !== VERSION_PREFIX) throw new UnknownVersionError();
    if (!/^\/v1(?:\/|$)/.test(path)) throw new UnknownUrlError();
    if (path === VERSION_PREFIX) return redirect(ctx, `${VERSION_PREFIX}/${query}`);
    if (path.length > VERSION_PREFIX.length + 1 && path.endsWith("/")) {
      if (!options.trailingSlashRedirectEnabled) throw new UnknownUrlError();
      return redirect(ctx, `${path.replace(/\/+$/, "")}${query}`);
    }
    await next();
  };
}

function redirect(ctx: Context, location: string): void {
  ctx.status = 307;
  ctx.set("Location", location);
  ctx.body = {};
}
