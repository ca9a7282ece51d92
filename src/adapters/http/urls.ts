import type { Context } from "koa";
import { ValidationError } from "../../domain/errors.js";
import type { HttpOptions } from "./http-services.js";

export interface RequestUrl {
  /** `<scheme>://<host>`, the Host kept as the client gave it (as Kinto does), default port left out. */
  readonly origin: string;
  /** The path as received, still percent-encoded. */
  readonly path: string;
  readonly query: URLSearchParams;
}

const DEFAULT_PORTS: Readonly<Record<string, string>> = { http: "80", https: "443" };

/**
 * The absolute URL of the request, with `http_scheme`/`http_host` taking over when set. Built as
 * text, never re-parsed: a URL parser would turn `Host: https://server.name:443` into host `https`.
 */
export function requestUrl(ctx: Context, options: Pick<HttpOptions, "httpScheme" | "httpHost">): RequestUrl {
  const scheme = options.httpScheme ?? ctx.protocol;
  const host = withoutDefaultPort(options.httpHost ?? (ctx.host || localAuthority(ctx)), scheme);
  // The Host header is the client's: one no URL can start with is its mistake, not a 500.
  if (!URL.canParse(`${scheme}://${host}/`)) throw ValidationError.single("header", "Host", `Invalid Host header: ${JSON.stringify(host)}`);
  return { origin: `${scheme}://${host}`, path: ctx.path, query: new URLSearchParams(ctx.querystring) };
}

/** The request URL as text, optionally with another path or (raw) query. */
export function urlText(url: RequestUrl, path = url.path, search = url.query.toString()): string {
  return `${url.origin}${path}${search ? `?${search}` : ""}`;
}

function withoutDefaultPort(host: string, scheme: string): string {
  const port = /:(\d+)$/.exec(host)?.[1];
  return port !== undefined && port === DEFAULT_PORTS[scheme] && !host.includes("/") ? host.slice(0, -port.length - 1) : host;
}

/** Without any Host (HTTP/1.0), the address the request came in on. */
function localAuthority(ctx: Context): string {
  const { localAddress = "localhost", localPort } = ctx.req.socket;
  const address = localAddress.includes(":") ? `[${localAddress}]` : localAddress;
  return localPort === undefined ? address : `${address}:${localPort}`;
}
