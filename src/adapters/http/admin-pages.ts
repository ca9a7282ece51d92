/**
 * The admin page at `/v1/admin/`: static files built next to this module (`admin/`: HTML, CSS,
 * and the browser modules tsc compiles from `admin/*.ts`). The page talks to the public API only.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Context, Next } from "koa";
import { MethodNotAllowedError } from "../../domain/errors.js";
import { labelRoute } from "./metrics-route.js";

export const ADMIN_PATH = "/v1/admin/";
const ADMIN_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
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

export function adminPages(directory = path.join(import.meta.dirname, "admin")) {
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
    ctx.set("Content-Security-Policy", ADMIN_CSP);
    ctx.set("Referrer-Policy", "no-referrer");
    ctx.type = file.type;
    ctx.body = file.body;
  };
}
