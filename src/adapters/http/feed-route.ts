/**
 * `GET /v1/{collection}` with `Accept: text/event-stream`: the live change feed as Server-Sent
 * Events, under the listing's authentication, authorization and filters. Other requests go on
 * to the record routes.
 */
import type { ServerResponse } from "node:http";
import type Router from "@koa/router";
import type { Context, Next } from "koa";
import { ValidationError } from "../../domain/errors.js";
import { MODIFIED_FIELD, type Filter } from "../../application/listing.js";
import type { FeedEvent, FeedSink } from "../../application/live-feed.js";
import { EVENT_STREAM, wantsEventStream } from "./event-stream.js";
import type { HttpServices } from "./http-services.js";
import { parseListQuery } from "./list-query.js";
import { allowedMethods, requesterOf } from "./record-routes.js";

const DEFAULT_BUFFER_BYTES = 1024 * 1024;

/** The feed hands the same event object to every recipient: each is encoded once. */
const encoded = new WeakMap<FeedEvent, string>();

function encode(event: FeedEvent): string {
  let text = encoded.get(event);
  if (text === undefined) {
    text = `id: ${event.id}\nevent: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
    encoded.set(event, text);
  }
  return text;
}

/** An SSE stream on the raw response; refuses to queue more than `maxBufferedBytes` unread. */
class SseSink implements FeedSink {
  constructor(
    private readonly res: ServerResponse,
    private readonly maxBufferedBytes: number,
  ) {}

  /** Several events, one socket write. */
  send(events: readonly FeedEvent[]): boolean {
    return this.write(events.length === 1 ? encode(events[0] as FeedEvent) : events.map(encode).join(""));
  }

  keepAlive(): boolean {
    return this.write(": keep-alive\n\n");
  }

  live(): boolean {
    return this.write(": live\n\n");
  }

  end(): void {
    if (!this.res.writableEnded) this.res.end();
  }

  private write(text: string): boolean {
    if (this.res.writableEnded || this.res.destroyed) return false;
    if (this.res.writableLength > this.maxBufferedBytes) return false;
    this.res.write(text);
    return true;
  }
}

/** `Last-Event-ID` (a reconnecting client) wins over `_since`; both are timestamps. */
function startOf(ctx: Context, filters: readonly Filter[]): { since: number | undefined; rest: Filter[] } {
  const rest = filters.filter((f) => !(f.field === MODIFIED_FIELD && f.operator === "gt"));
  const header = ctx.get("last-event-id");
  if (header !== "") {
    if (!/^\d+$/.test(header) || !Number.isSafeInteger(Number(header)))
      throw ValidationError.single("header", "Last-Event-ID", "Last-Event-ID must be a timestamp (a non-negative integer)");
    return { since: Number(header), rest };
  }
  const since = filters.find((f) => f.field === MODIFIED_FIELD && f.operator === "gt");
  return { since: typeof since?.value === "number" ? Math.floor(since.value) : undefined, rest };
}

export function registerFeedRoute(router: Router, services: HttpServices): void {
  router.get("/:collection", async (ctx: Context, next: Next) => {
    const feed = services.feed;
    const resource = services.resources.get(String((ctx.params as Record<string, string | undefined>).collection));
    if (!feed || !wantsEventStream(ctx) || !resource || !allowedMethods(services, resource, "collection").includes("GET")) {
      await next();
      return;
    }
    const query = parseListQuery(new URLSearchParams(ctx.querystring), {
      paginateBy: undefined,
      maxFetchSize: services.options.storageMaxFetchSize,
      now: services.clock.now(),
      limits: services.options.inputLimits,
    });
    const { since, rest } = startOf(ctx, query.filters);
    const requester = requesterOf(ctx);
    const definition = resource.definition;
    const scope = { collection: definition.name, parentId: definition.kind === "user" ? (requester.userId ?? "") : "" };
    const res = ctx.res;
    const subscription = await feed.subscribe({ requester, resource: definition, filters: rest, since }, scope, () => {
      ctx.respond = false;
      res.statusCode = 200;
      res.setHeader("Content-Type", `${EVENT_STREAM}; charset=utf-8`);
      res.setHeader("Cache-Control", "no-cache, no-store");
      res.setHeader("X-Accel-Buffering", "no");
      res.flushHeaders();
      res.write(": connected\n\n");
      return new SseSink(res, services.options.feedBufferBytes ?? DEFAULT_BUFFER_BYTES);
    });
    ctx.req.once("close", () => subscription.close());
    res.once("close", () => subscription.close());
  });
}
