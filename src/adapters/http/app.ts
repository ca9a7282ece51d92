/**
 * The Koa application: middleware in the order of api-contract §8 (route, media types,
 * authentication, then the handlers), with the error table outermost so that every failure,
 * unknown URLs included, answers JSON with CORS headers.
 */
import { bodyParser } from "@koa/bodyparser";
import Router from "@koa/router";
import { Stream } from "node:stream";
import Koa, { type Context, type Next } from "koa";
import { ValidationError } from "../../domain/errors.js";
import type { Requester } from "../../application/requester.js";
import { registerAccessRoutes } from "./access-routes.js";
import { registerAccountRoutes } from "./account-routes.js";
import { BATCH_REQUESTERS, registerBatchRoute } from "./batch-route.js";
import { requestCredentials } from "./request-credentials.js";
import { TrustedProxies } from "./client-address.js";
import { corsMiddleware } from "./cors.js";
import { errorMiddleware } from "./errors.js";
import { registerFeedRoute } from "./feed-route.js";
import { ServiceGoneError, UnknownUrlError } from "./http-errors.js";
import { bodyJsonMiddleware, deferBodyError, urlLengthMiddleware } from "./input-limits.js";
import type { HttpServices } from "./http-services.js";
import { BODY_TYPES, emptyBodyAsObject, JSON_TYPE, negotiationMiddleware } from "./negotiation.js";
import { registerOpenApiRoute } from "./openapi.js";
import { registerRecordRoutes } from "./record-routes.js";
import { registerTreeRoutes } from "./tree-routes.js";
import { adminPages } from "./admin-pages.js";
import { metricsRoute, routeOf } from "./metrics-route.js";
import { JsonText } from "./json-text.js";
import { currentRequest, REQUEST_ID_HEADER, requestIdFrom, runInRequest } from "./request-context.js";
import { urlMiddleware, VERSION_PREFIX } from "./routing-middleware.js";
import { registerUtilityRoutes } from "./utility-routes.js";

/** Kinto's policy: a JSON API loads nothing and is framed by nobody. */
const CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none';";

export function createApp(services: HttpServices): Koa {
  const { options, logger } = services;
  const app = new Koa({ proxy: false });
  app.silent = true; // the error middleware logs what deserves it

  app.use(responseBasics(services));
  app.use(
    errorMiddleware({
      retryAfterSeconds: options.retryAfterSeconds,
      challenge: services.authenticator.challenge,
      infoLink: options.errorInfoLink,
      logger,
    }),
  );
  app.use(corsMiddleware({ origins: options.corsOrigins, maxAgeSeconds: options.corsMaxAgeSeconds }));
  app.use(urlLengthMiddleware(options.inputLimits));
  // Operators' pages come before URL hygiene and media types: never redirected, authenticated or refused.
  if (services.metrics && options.metricsOnApiPort) app.use(metricsRoute(services.metrics));
  if (options.adminEnabled) app.use(adminPages({ capabilities: options.capabilities }));
  app.use(urlMiddleware(options, () => services.clock.now()));
  if (options.endOfService) app.use(endOfService(services));
  app.use(negotiationMiddleware(options));
  app.use(
    bodyParser({
      enableTypes: ["json"],
      extendTypes: { json: BODY_TYPES },
      jsonLimit: options.maxBodyBytes,
      jsonStrict: false,
      onError: deferParseError,
    }),
  );
  app.use(bodyJsonMiddleware(options.inputLimits));
  app.use(emptyBodyAsObject);
  app.use(authentication(services));

  const router = new Router({ prefix: VERSION_PREFIX });
  registerUtilityRoutes(router, services);
  registerOpenApiRoute(router, services);
  registerBatchRoute(router, services, app);
  registerFeedRoute(router, services);
  registerAccountRoutes(router, services);
  if (services.access) registerAccessRoutes(router, services, services.access);
  if (services.tree) registerTreeRoutes(router, services, services.tree);
  registerRecordRoutes(router, services);
  app.use(router.routes());
  app.use(() => {
    throw new UnknownUrlError();
  });
  return app;
}

/**
 * An unparsable body is a body-validation error, which must not outrank 404, 401 or 403
 * (api-contract §8): it is thrown, as a ValidationError, when a handler reads the body, and the
 * record service reports it after authorization. 413 and 415 stay eager.
 */
function deferParseError(error: Error, ctx: Context): void {
  if ((error as { status?: unknown }).status !== 400) throw error;
  // Kinto's shape: the parser's own message (it only describes the client's body), then colander's "Required".
  const description = error instanceof SyntaxError ? `Invalid JSON: ${withoutEcho(error.message)}` : "Invalid JSON";
  deferBodyError(
    ctx,
    new ValidationError(
      [
        { location: "body", name: "", description },
        { location: "body", name: "", description: "Required" },
      ],
      description,
    ),
  );
}

/** V8 quotes the body around the fault (`Unexpected token 'x', "…" is not valid JSON`): a password must not come back. */
function withoutEcho(message: string): string {
  return /^Unexpected token/.test(message) ? "Unexpected token" : message.replace(/, ".*$/s, "");
}

/** The request's Requester; inside a batch, shared by sub-requests with the same credentials. */
function authentication({ authenticator, options }: HttpServices) {
  const proxies = new TrustedProxies(options.trustedProxies ?? []);
  return async (ctx: Context, next: Next): Promise<void> => {
    // Every request is identified (any policy may look at any header); inside a batch the
    // requester of an identity already seen is reused, with its principals computed once.
    const identified = await authenticator.identify(requestCredentials(ctx, proxies));
    const shared = ctx.state[BATCH_REQUESTERS] as Map<string, Requester> | undefined;
    const key = identified.userId ?? "";
    const requester = shared?.get(key) ?? identified;
    shared?.set(key, requester);
    ctx.state.requester = requester;
    await next();
  };
}

/**
 * Outermost: the request id (the client's when acceptable, else a new one; a batch's
 * sub-requests share the batch's), the headers every response carries (errors and 304 included),
 * `Retry-After` on every 503, metrics, and one structured log line per request.
 */
function responseBasics({ logger, options, metrics }: HttpServices) {
  const logging = logger.isLevelEnabled("info");
  return (ctx: Context, next: Next): Promise<void> => {
    const batch = currentRequest();
    const requestId = batch?.requestId ?? requestIdFrom(ctx.get(REQUEST_ID_HEADER) || undefined);
    return runInRequest(requestId, async (request) => {
      const started = performance.now();
      const answered = batch ? undefined : metrics?.requestStarted(); // a sub-request is part of its batch
      const log = logger.child({ request_id: requestId });
      ctx.state.logger = log;
      ctx.set(REQUEST_ID_HEADER, requestId);
      ctx.set("X-Content-Type-Options", "nosniff");
      ctx.set("Content-Security-Policy", CONTENT_SECURITY_POLICY);
      ctx.set("Cache-Control", "no-cache, no-store");
      ctx.type = JSON_TYPE;
      if (options.backoff !== undefined) ctx.set("Backoff", options.backoff);
      try {
        await next();
      } finally {
        if (ctx.status === 503) ctx.set("Retry-After", String(options.retryAfterSeconds));
        // Serialised here, once, so that the log knows the size; a batch reads its sub-responses as JSON.
        if (!batch && ctx.body !== null && typeof ctx.body === "object" && !Buffer.isBuffer(ctx.body) && !(ctx.body instanceof Stream))
          ctx.body = ctx.body instanceof JsonText ? ctx.body.text : JSON.stringify(ctx.body);
        const route = routeOf(ctx);
        answered?.(ctx.method, route, ctx.status);
        if (logging) {
          const requester = ctx.state.requester as { userId?: string } | undefined;
          const ms = (value: number) => Math.round(value * 1000) / 1000;
          log.info(
            {
              method: ctx.method,
              path: ctx.path,
              route,
              status: ctx.status,
              bytes: ctx.response.length ?? 0,
              duration_ms: ms(performance.now() - started),
              backend_ms: ms(request.backendMs),
              user: requester?.userId ?? null,
            },
            "request",
          );
        }
      }
    });
  };
}

/** `eos`: an `Alert` before the end-of-service date, 410 Gone after it. */
function endOfService({ options, clock }: HttpServices) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const eos = options.endOfService;
    if (eos) {
      const gone = eos.hardEol !== undefined && clock.now() >= eos.hardEol.getTime();
      ctx.set("Alert", JSON.stringify({ code: gone ? "hard-eol" : "soft-eol", message: eos.message, url: eos.url }));
      if (gone) throw new ServiceGoneError(eos.message);
    }
    await next();
  };
}
