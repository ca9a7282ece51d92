/**
 * The admin page at `/v1/admin/`: static files built next to this module (`admin/`: HTML, CSS,
 * and the browser modules tsc compiles from `admin/*.ts`). The page talks to the public API only.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Context, Next } from "koa";
import { MethodNotAllowedError } from "../../domain/errors.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../../domain/json.js";
import { labelRoute } from "./metrics-route.js";

export const ADMIN_PATH = "/v1/admin/";

/**
 * The page's Content-Security-Policy. It may connect to the service and to the OpenID Connect
 * providers the root view lists (`capabilities.openid.providers`): the discovery document and the
 * code exchange are fetched by the page itself (PKCE in the browser). Going to a provider's sign-in
 * page is a navigation, which connect-src does not govern.
 */
export function adminCsp(capabilities: JsonObject = {}): string {
  const connect = ["'self'", ...providerOrigins(capabilities)].join(" ");
  return `default-src 'none'; script-src 'self'; style-src 'self'; connect-src ${connect}; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}

/** A CSP source expression: scheme, host (ASCII after URL parsing) and port, nothing that could end the directive. */
const SAFE_ORIGIN = /^https?:\/\/(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d+)?$/i;

function originOf(value: string): string | undefined {
  try {
    const origin = new URL(value).origin;
    return SAFE_ORIGIN.test(origin) ? origin : undefined;
  } catch {
    return undefined; // not a URL after all: nothing to allow
  }
}

/** The origins of every http(s) URL of every listed provider (issuer, endpoints), sorted, once each. */
function providerOrigins(capabilities: JsonObject): string[] {
  const openid = capabilities.openid;
  const providers: JsonValue[] = isJsonObject(openid) && Array.isArray(openid.providers) ? openid.providers : [];
  const origins = new Set<string>();
  for (const provider of providers.filter(isJsonObject))
    for (const value of Object.values(provider)) {
      if (typeof value !== "string" || !/^https?:\/\//i.test(value)) continue;
      const origin = originOf(value);
      if (origin !== undefined) origins.add(origin);
    }
  return [...origins].sort();
}
const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
};

interface StaticFile {
  readonly type: string;
  readonly body: Buffer;
}

/** Every servable file of the directory, by name; read once (a few kilobytes). */
function loadFiles(directory: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  if (!existsSync(directory)) return files; // running from sources, unbuilt: no page
  const names = readdirSync(directory, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
  for (const name of names) {
    const type = TYPES[path.extname(name)];
    if (type !== undefined) files.set(name, { type, body: readFileSync(path.join(directory, name)) });
  }
  return files;
}

export interface AdminPagesOptions {
  /** The root view's capabilities: the OpenID Connect providers the page may connect to. */
  readonly capabilities?: JsonObject;
  readonly directory?: string;
}

export function adminPages(options: AdminPagesOptions = {}) {
  const directory = options.directory ?? path.join(import.meta.dirname, "admin");
  const csp = adminCsp(options.capabilities);
  let files: Map<string, StaticFile> | undefined;
  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.path === "/v1/admin") {
      labelRoute(ctx, ADMIN_PATH);
      ctx.status = 307;
      ctx.set("Location", ADMIN_PATH);
      ctx.body = {};
      return;
    }
    if (!ctx.path.startsWith(ADMIN_PATH)) {
      await next();
      return;
    }
    files ??= loadFiles(directory);
    const file = files.get(ctx.path === ADMIN_PATH ? "index.html" : ctx.path.slice(ADMIN_PATH.length));
    if (!file) {
      await next();
      return;
    }
    labelRoute(ctx, ADMIN_PATH);
    if (ctx.method !== "GET" && ctx.method !== "HEAD") throw new MethodNotAllowedError(["GET", "HEAD"]);
    ctx.set("Content-Security-Policy", csp);
    ctx.set("Referrer-Policy", "no-referrer");
    ctx.type = file.type;
    ctx.body = file.body;
  };
}
