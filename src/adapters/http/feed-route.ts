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

/** An event's SSE text and its UTF-8 length: the feed hands the same event object to every recipient, encoded once. */
interface Encoded {
  readonly text: string;
  readonly bytes: number;
}
const encoded = new WeakMap<FeedEvent, Encoded>();

function encode(event: FeedEvent): Encoded {
  let found = encoded.get(event);
  if (found === undefined) {
    const text = `id: ${event.id}\nevent: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
    found = { text, bytes: Buffer.byteLength(text) };
    encoded.set(event, found);
  }
  return found;
}

const KEEP_ALIVE = ": keep-alive\n\n";
const LIVE = ": live\n\n";
/** No `id:`: the client's Last-Event-ID stays its last event's, and it must not resume from it (README). */
const RESYNC = "event: resync\ndata: {}\n\n";

/**
 * An SSE stream on the raw response; refuses to queue more than `maxBufferedBytes` unread. On
 * HTTP/1.1 the response is chunked and each write goes to the socket as one chunk framed here,
 * one `socket.write` per burst and subscriber (the response object would make it four, with its
 * bookkeeping, for every write). `end()` still goes through the response: its last chunk ends
 * the stream as HTTP says, so a client tells a clean end from a cut connection.
 */
class SseSink implements FeedSink {
  constructor(
    private readonly res: ServerResponse,
    private readonly maxBufferedBytes: number,
    private readonly rawChunks: boolean,
  ) {}

  /** Several events, one socket write. */
  send(events: readonly FeedEvent[]): boolean {
    if (events.length === 1) {
      const { text, bytes } = encode(events[0] as FeedEvent);
      return this.write(text, bytes);
    }
    let text = "";
    let bytes = 0;
    for (const event of events) {
      const one = encode(event);
      text += one.text;
      bytes += one.bytes;
    }
    return this.write(text, bytes);
  }

  keepAlive(): boolean {
    return this.write(KEEP_ALIVE, KEEP_ALIVE.length);
  }

  live(): boolean {
    return this.write(LIVE, LIVE.length);
  }

  end(): void {
    if (!this.res.writableEnded) this.res.end();
  }

  resync(): void {
    this.write(RESYNC, RESYNC.length);
    this.end();
  }

  private write(text: string, bytes: number): boolean {
    const { res } = this;
    if (res.writableEnded || res.destroyed) return false;
    if (res.writableLength > this.maxBufferedBytes) return false;
    const socket = res.socket;
    // Raw only once the response holds nothing of its own (the headers went out, nothing queued before the socket).
    if (this.rawChunks && socket && !socket.destroyed && res.headersSent && res.writableLength === socket.writableLength)
      socket.write(`${bytes.toString(16)}\r\n${text}\r\n`);
    else res.write(text);
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
      // Chunked, said explicitly, so that the chunks SseSink frames itself are what the client expects.
      const rawChunks = ctx.req.httpVersionMajor === 1 && ctx.req.httpVersionMinor >= 1;
      if (rawChunks) res.setHeader("Transfer-Encoding", "chunked");
      res.flushHeaders();
      res.write(": connected\n\n");
      return new SseSink(res, services.options.feedBufferBytes ?? DEFAULT_BUFFER_BYTES, rawChunks);
    });
    ctx.req.once("close", () => subscription.close());
    res.once("close", () => subscription.close());
  });
}
