/** Which requests ask for the live feed's event stream (content negotiation and the feed route both ask). */
import type { Context } from "koa";

export const EVENT_STREAM = "text/event-stream";
/** A flat collection's URL, or the records URL of a collection of Kinto's tree. */
const COLLECTION_PATH = /^\/v1\/(?:[^/]+|buckets\/[^/]+\/collections\/[^/]+\/records)$/;

/** A GET (or HEAD) of a collection that prefers an event stream to JSON; media types are case-insensitive. */
export function wantsEventStream(ctx: Context): boolean {
  return (
    (ctx.method === "GET" || ctx.method === "HEAD") &&
    COLLECTION_PATH.test(ctx.path) &&
    ctx.get("accept").toLowerCase().includes(EVENT_STREAM) &&
    ctx.accepts("application/json", EVENT_STREAM) === EVENT_STREAM
  );
}
