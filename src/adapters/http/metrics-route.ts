/** `GET /v1/__metrics__` (on the API port or a port of its own), and the route label of a request. */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context, Next } from "koa";
import { MethodNotAllowedError } from "../../domain/errors.js";
import { UNMATCHED_ROUTE, type HttpMetrics } from "./metrics.js";

export const METRICS_PATH = "/v1/__metrics__";
/** Routes answered before the router, by their fixed path. */
const OWN_ROUTE = "tessera.route";

/** The route template that answered (`/v1/:collection/:id`), never the raw path. */
export function routeOf(ctx: Context): string {
  const own = ctx.state[OWN_ROUTE] as string | undefined;
  const matched = (ctx as Context & { _matchedRoute?: unknown })._matchedRoute;
  return own ?? (typeof matched === "string" ? matched : UNMATCHED_ROUTE);
}

/** Labels a request answered by a middleware of its own (metrics, admin pages). */
export function labelRoute(ctx: Context, route: string): void {
  ctx.state[OWN_ROUTE] = route;
}

/** Never behind authentication: scrapers send no credentials, and metrics name no user. */
export function metricsRoute(metrics: HttpMetrics) {
  return async (ctx: Context, next: Next): Promise<void> => {
    if (ctx.path !== METRICS_PATH) {
      await next();
      return;
    }
    labelRoute(ctx, METRICS_PATH);
    if (ctx.method !== "GET" && ctx.method !== "HEAD") throw new MethodNotAllowedError(["GET", "HEAD"]);
    const text = await metrics.exposition();
    ctx.type = metrics.contentType();
    ctx.body = text;
  };
}

/** The same exposition for a server of its own (`metrics_listen_port`): `/metrics` or `/v1/__metrics__`. */
export function metricsListener(metrics: HttpMetrics) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? "").split("?")[0];
    if ((path !== "/metrics" && path !== METRICS_PATH) || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("Not Found\n");
      return;
    }
    metrics.exposition().then(
      (text) => res.writeHead(200, { "Content-Type": metrics.contentType() }).end(req.method === "HEAD" ? undefined : text),
      () => res.writeHead(500, { "Content-Type": "text/plain" }).end("metrics unavailable\n"),
    );
  };
}
