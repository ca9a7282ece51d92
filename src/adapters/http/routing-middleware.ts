/** URL hygiene before routing: encoding, version prefix, unknown versions, trailing slashes (api-contract §1). */
import type { Context, Next } from "koa";
import { BadRequestError, UnknownUrlError, UnknownVersionError } from "./http-errors.js";
import type { HttpOptions } from "./http-services.js";
import { requestUrl, urlText } from "./urls.js";

export const VERSION_PREFIX = "/v1";
/** `ctx.state` key: path and query a redirect points to (a batch follows it without parsing Location). */
export const REDIRECT_TARGET = "tessera.redirectTarget";

type UrlOptions = Pick<
  HttpOptions,
  | "versionPrefixRedirectEnabled"
  | "trailingSlashRedirectEnabled"
  | "versionPrefixRedirectTtlSeconds"
  | "trailingSlashRedirectTtlSeconds"
  | "httpScheme"
  | "httpHost"
>;

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Percent-decoded text, or undefined when the bytes are not UTF-8. */
function decodedUtf8(text: string): string | undefined {
  if (!text.includes("%") && /^[\x20-\x7e]*$/.test(text)) return text; // the usual URL: nothing to decode
  const bytes = Buffer.from(
    text.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    "latin1",
  );
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

export function urlMiddleware(options: UrlOptions, now: () => number) {
  const redirect = (ctx: Context, path: string, ttlSeconds: number): void => {
    const url = requestUrl(ctx, options);
    ctx.status = 307;
    ctx.set("Location", urlText(url, path, ctx.querystring)); // absolute, as Kinto (WebOb) sends it; query verbatim
    ctx.state[REDIRECT_TARGET] = ctx.querystring ? `${path}?${ctx.querystring}` : path;
    if (ttlSeconds >= 0) {
      ctx.set("Cache-Control", `max-age=${ttlSeconds}`);
      ctx.set("Expires", new Date(now() + ttlSeconds * 1000).toUTCString());
    }
    ctx.body = {};
  };

  return async (ctx: Context, next: Next): Promise<void> => {
    const path = ctx.path;
    const decoded = decodedUtf8(path);
    if (decoded === undefined) throw new BadRequestError("Invalid URL path.");
    // A control character (CR/LF…) in a path is never echoed back in a Location.
    // eslint-disable-next-line no-control-regex
    const redirectable = !/[\u0000-\u001f\u007f]/.test(decoded);
    // Like Kinto: anything starting with `/v<digits>` is never redirected (`/v2foo` included).
    const version = /^\/v\d+/.exec(path);
    if (!version) {
      if (!options.versionPrefixRedirectEnabled || !redirectable) throw new UnknownUrlError();
      return redirect(ctx, `${VERSION_PREFIX}${path}`, options.versionPrefixRedirectTtlSeconds);
    }
    if (version[0] !== VERSION_PREFIX) throw new UnknownVersionError();
    if (!/^\/v1(?:\/|$)/.test(path)) throw new UnknownUrlError();
    const slashed =
      path === VERSION_PREFIX
        ? `${VERSION_PREFIX}/`
        : path.length > VERSION_PREFIX.length + 1 && path.endsWith("/")
          ? path.replace(/\/+$/, "")
          : undefined;
    if (slashed !== undefined) {
      if (!options.trailingSlashRedirectEnabled || !redirectable) throw new UnknownUrlError();
      return redirect(ctx, slashed, options.trailingSlashRedirectTtlSeconds);
    }
    if (ctx.querystring && decodedUtf8(ctx.querystring.replace(/\+/g, " ")) === undefined) {
      // Kinto's text, missing space included (clients and Kinto's own tests compare it).
      throw new BadRequestError(
        `A request with an incorrect encoding in the querystring wasreceived. Please make sure your requests are encoded in UTF-8: ${ctx.querystring}`,
      );
    }
    await next();
  };
}
