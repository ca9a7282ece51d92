/**
 * `GET /v1/{collection}` with `Accept: text/event-stream`: the live change feed as Server-Sent
 * Events, under the listing's authentication, authorization and filters. Other requests go on
 * to the record routes.
 */
import type { ServerResponse } from "node:http";
import type Router from "@koa/router";
import type { Context, Next } from "koa";
import { BackendError, ValidationError } from "../../domain/errors.js";
import { MODIFIED_FIELD, type Filter } from "../../application/listing.js";
import type { FeedEvent, FeedSink } from "../../application/feed/live-feed.js";
import { addressKey, clientAddress, TrustedProxies } from "./client-address.js";
import { EVENT_STREAM, wantsEventStream } from "./event-stream.js";
import { answerLater } from "./feed-streams.js";
import { TooManyRequestsError } from "./http-errors.js";
import type { HttpResource, HttpServices } from "./http-services.js";
import { parseListQuery, timestampValue } from "./list-query.js";
import { allowedMethods, requesterOf } from "./record-routes.js";
import { StreamCounts } from "./stream-limits.js";
import { treeListOf } from "./tree-routes.js";

/**
 * An event's SSE bytes, and as one HTTP/1.1 chunk: the feed hands the same event object to every
 * recipient, so it is encoded once, not once per socket.
 */
interface Encoded {
  readonly bytes: Buffer;
  chunk?: Buffer;
}
const encoded = new WeakMap<FeedEvent, Encoded>();

function encode(event: FeedEvent): Encoded {
  let found = encoded.get(event);
  if (found === undefined) {
    found = { bytes: Buffer.from(`id: ${event.id}\nevent: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`) };
    encoded.set(event, found);
  }
  return found;
}

const CRLF = Buffer.from("\r\n");

/** `bytes` framed as one chunk of a chunked HTTP/1.1 body. */
function chunkOf(bytes: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, CRLF]);
}

const fixed = (text: string): Encoded => ({ bytes: Buffer.from(text) });
const KEEP_ALIVE = fixed(": keep-alive\n\n");
const LIVE = fixed(": live\n\n");
/** No `id:`: the client's Last-Event-ID stays its last event's, and it must not resume from it (docs/api.md "Live feed"). */
const RESYNC = fixed("event: resync\ndata: {}\n\n");

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
    private readonly overflowed: () => void,
  ) {}

  /** Several events, one socket write. */
  send(events: readonly FeedEvent[]): boolean {
    if (events.length === 1) return this.write(encode(events[0] as FeedEvent));
    return this.write({ bytes: Buffer.concat(events.map((event) => encode(event).bytes)) });
  }

  keepAlive(): boolean {
    return this.write(KEEP_ALIVE);
  }

  live(): boolean {
    return this.write(LIVE);
  }

  end(): void {
    if (!this.res.writableEnded) this.res.end();
  }

  /**
   * Ends the stream cleanly after telling the client where to resume (an `id:` line alone sets
   * EventSource's last event id) and, when given, how soon (`retry:`).
   */
  finish(cursor: number, retryMs?: number): void {
    const text = `${retryMs === undefined ? "" : `retry: ${retryMs}\n`}id: ${cursor}\n\n`;
    if (this.write(fixed(text))) this.end();
  }

  resync(): void {
    this.write(RESYNC);
    this.end();
  }

  private write(encoded: Encoded): boolean {
    const { res } = this;
    if (res.writableEnded || res.destroyed) return false;
    if (res.writableLength > this.maxBufferedBytes) {
      // Ending would leave the socket open, with its buffers, for as long as the client does not read;
      // a reset (not a FIN queued behind the unread bytes) frees the kernel's buffers at once too.
      res.socket?.resetAndDestroy();
      res.destroy();
      this.overflowed();
      return false;
    }
    const socket = res.socket;
    // Raw only once the response holds nothing of its own (the headers went out, nothing queued before the socket).
    if (this.rawChunks && socket && !socket.destroyed && res.headersSent && res.writableLength === socket.writableLength)
      socket.write((encoded.chunk ??= chunkOf(encoded.bytes)));
    else res.write(encoded.bytes);
    return true;
  }
}

/** `Last-Event-ID` (a reconnecting client) wins over `_since`; both are timestamps, bounded by the same rule. */
function startOf(ctx: Context, filters: readonly Filter[], now: number): { since: number | undefined; rest: Filter[] } {
  const rest = filters.filter((f) => !(f.field === MODIFIED_FIELD && f.operator === "gt"));
  const header = ctx.get("last-event-id");
  if (header !== "") {
    const since = timestampValue(header, now);
    if (since === undefined)
      throw ValidationError.single(
        "header",
        "Last-Event-ID",
        "Last-Event-ID must be a timestamp: an integer of milliseconds, at most 24 hours ahead of the server clock",
      );
    return { since, rest };
  }
  const since = filters.find((f) => f.field === MODIFIED_FIELD && f.operator === "gt");
  return { since: typeof since?.value === "number" ? Math.floor(since.value) : undefined, rest };
}

export function registerFeedRoute(router: Router, services: HttpServices): void {
  const { feedLimits, trustedProxies } = services.options;
  const proxies = new TrustedProxies(trustedProxies ?? []);
  const streams =
    feedLimits && new StreamCounts({ maxPerAddress: feedLimits.maxStreamsPerAddress, maxPerUser: feedLimits.maxStreamsPerUser });
  const open = services.feedStreams;
  const params = (ctx: Context) => ctx.params as Record<string, string | undefined>;
  router.get("/:collection", (ctx: Context, next: Next) => stream(ctx, next, services.resources.get(String(params(ctx).collection))));
  const tree = services.tree;
  if (tree)
    router.get("/buckets/:bucket/collections/:collection/records", async (ctx: Context, next: Next) => {
      if (wantsEventStream(ctx)) await stream(ctx, next, await treeListOf(ctx, tree, "record"));
      else await next();
    });

  /** The event stream of a collection's URL, for a request that asks for one (else the next route). */
  async function stream(ctx: Context, next: Next, resource: HttpResource | undefined): Promise<void> {
    const feed = services.feed;
    if (!feed || !wantsEventStream(ctx) || !resource || !allowedMethods(services, resource, "collection").includes("GET")) {
      await next();
      return;
    }
    const now = services.clock.now();
    const query = parseListQuery(new URLSearchParams(ctx.querystring), {
      paginateBy: undefined,
      maxFetchSize: services.options.storageMaxFetchSize,
      now,
      limits: services.options.inputLimits,
    });
    const { since, rest } = startOf(ctx, query.filters, now);
    const requester = requesterOf(ctx);
    const definition = resource.definition;
    const res = ctx.res;
    const head = ctx.method === "HEAD";
    const comeBack = (reason: string, retryMs = open.laterRetryMs()) => {
      services.metrics?.feedStreamEnded("unavailable");
      ctx.respond = false;
      answerLater(res, retryMs, reason, head, open.draining);
    };
    if (open.draining) return comeBack("this process is stopping", open.stopRetryMs());
    const address = addressKey(clientAddress(ctx.req.socket.remoteAddress, ctx.get("x-forwarded-for") || undefined, proxies));
    const place = streams?.acquire(address, requester.userId);
    if (typeof place === "string") {
      services.metrics?.refused(place);
      throw new TooManyRequestsError(
        place === "streams_per_user" ? "Too many event streams open for this user." : "Too many event streams open from this address.",
      );
    }
    res.once("close", () => place?.release());
    let sink: SseSink | undefined;
    const opened = feed.subscribe({ requester, resource: definition, filters: rest, since }, () => {
      ctx.respond = false;
      res.statusCode = 200;
      res.setHeader("Content-Type", `${EVENT_STREAM}; charset=utf-8`);
      res.setHeader("Cache-Control", "no-cache, no-store");
      res.setHeader("X-Accel-Buffering", "no");
      // Chunked, said explicitly, so that the chunks SseSink frames itself are what the client expects.
      const rawChunks = ctx.req.httpVersionMajor === 1 && ctx.req.httpVersionMinor >= 1;
      if (rawChunks) res.setHeader("Transfer-Encoding", "chunked");
      // HEAD: the checks and headers of GET, no body (the sink of an ended response sends nothing).
      if (head) res.end();
      else {
        res.flushHeaders();
        // The reconnection delay, said again on every stream: a stop's shorter one must not stay.
        res.write(`: connected\nretry: ${open.retryMs}\n\n`);
      }
      sink = new SseSink(res, services.options.feedBufferBytes, rawChunks, () => services.metrics?.feedStreamEnded("buffer"));
      return sink;
    });
    let subscription: Awaited<typeof opened>;
    try {
      subscription = await opened;
    } catch (error) {
      place?.release();
      // Nothing was sent yet: a standard client told 503 would never come back; told `retry`, it resumes.
      if (error instanceof BackendError && !res.headersSent) return comeBack(`the ${error.backend} backend is unavailable for the moment`);
      throw error;
    }
    if (head) {
      subscription.close();
      return;
    }
    const handedOver = (retryMs: number) => {
      services.metrics?.feedStreamEnded("stop");
      sink?.finish(subscription.cursor(), retryMs);
      subscription.close();
    };
    const forget = open.add({ handOver: handedOver });
    // Opened while the stop began: handed over at once.
    if (open.draining) handedOver(open.stopRetryMs());
    ctx.req.once("close", () => subscription.close());
    res.once("close", () => {
      forget();
      subscription.close();
    });
    const lifetime = feedLimits?.maxLifetimeSeconds ?? 0;
    if (lifetime > 0) {
      // Up to a tenth earlier, at random: streams opened together (after a restart) do not all come back at once.
      const ending = setTimeout(
        () => {
          if (res.writableEnded || res.destroyed) return;
          services.metrics?.feedStreamEnded("lifetime");
          sink?.finish(subscription.cursor());
          subscription.close();
        },
        lifetime * 1000 * (1 - Math.random() / 10),
      );
      ending.unref();
      res.once("close", () => clearTimeout(ending));
    }
  }
}
