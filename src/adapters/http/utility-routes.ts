/** Root ("hello"), heartbeat, load-balancer heartbeat and version views (api-contract §10). */
import type Router from "@koa/router";
import type { Context } from "koa";
import { MethodNotAllowedError } from "../../domain/errors.js";
import type { JsonObject } from "../../domain/json.js";
import { requesterOf } from "./record-routes.js";
import type { HttpServices } from "./http-services.js";
import { requestUrl } from "./urls.js";

export const API_VERSION = "1.0";

export function registerUtilityRoutes(router: Router, services: HttpServices): void {
  const { options } = services;

  readOnlyRoute(router, "/", async (ctx) => {
    const url = requestUrl(ctx, options);
    const body: JsonObject = {
      project_name: options.projectName,
      project_version: options.projectVersion,
      project_docs: options.projectDocs,
      http_api_version: API_VERSION,
      url: `${url.origin}/v1/`,
      settings: { ...options.publicSettings },
      capabilities: options.capabilities,
      // Not in Kinto's root view: what a client (the admin page) can browse.
      resources: [...services.resources.values()].map(({ definition }) => ({
        name: definition.name,
        kind: definition.kind,
        permissions: [...definition.permissions],
      })),
    };
    const requester = requesterOf(ctx);
    if (requester.userId !== undefined) {
      const caller = await requester.caller();
      body.user = { id: requester.userId, principals: [...caller.principals] };
      const bucket = services.tree?.defaultBucket.idOf(requester);
      if (bucket !== undefined) body.user.bucket = bucket;
    }
    ctx.body = body;
  });

  readOnlyRoute(router, "/__heartbeat__", async (ctx) => {
    const results = await services.health.run();
    ctx.status = Object.values(results).every((r) => r !== false) ? 200 : 503;
    ctx.body = results;
  });

  readOnlyRoute(router, "/__lbheartbeat__", (ctx) => {
    ctx.body = {};
  });

  readOnlyRoute(router, "/__version__", (ctx) => {
    ctx.body = services.versionInfo;
  });
}

/**
 * GET/HEAD only; other methods get 405 here, or they would fall through to the collection route
 * (`/:collection` matches `/__heartbeat__`) and answer a misleading 404.
 */
export function readOnlyRoute(router: Router, path: string, handler: (ctx: Context) => unknown): void {
  router.all(path, async (ctx) => {
    if (ctx.method !== "GET" && ctx.method !== "HEAD") throw new MethodNotAllowedError(["GET", "HEAD"]);
    await handler(ctx);
  });
}
