/**
 * A live-feed subscriber on npm `eventsource` (the browsers' EventSource spec, in Node): a
 * non-200 answer is final, a cut connection or a stream's end is followed by a reconnection with
 * `Last-Event-ID`. Its `fetch` adds the Basic credentials and records every request in the log.
 * A refused connection (the process is down) is tried again every 20 ms, within `patienceMs`,
 * before EventSource is told: the reconnection reaches a restarted process the moment it
 * listens, as when a whole fleet of clients reconnects to a process that is still warming up.
 */
import { EventSource, type FetchLike } from "eventsource";
import { errorDetail, FEED_EVENT_TYPES, type FeedSubscriber, type SubscriberLog } from "./feed-subscriber-log.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function refused(error: unknown): boolean {
  const cause = error instanceof Error ? (error.cause as { code?: string } | undefined) : undefined;
  return cause?.code === "ECONNREFUSED" || cause?.code === "ECONNRESET" || cause?.code === "UND_ERR_SOCKET";
}

/** Opens the stream at `url` as `credentials` (`user:password`); on `resync`, starts again without `Last-Event-ID`. */
export function openNodeSubscriber(url: string, credentials: string, log: SubscriberLog, patienceMs = 10_000): FeedSubscriber {
  const authorization = `Basic ${Buffer.from(credentials).toString("base64")}`;
  const recordingFetch: FetchLike = async (input, init) => {
    const request = log.requested(init.headers["Last-Event-ID"]);
    const giveUpAt = Date.now() + patienceMs;
    for (;;) {
      try {
        const response = await fetch(input, { ...init, headers: { ...init.headers, Authorization: authorization } });
        request.outcome = response.status;
        if (response.status !== 200) request.detail = errorDetail(await response.clone().text());
        return response;
      } catch (error) {
        const aborted = (init.signal as AbortSignal | undefined)?.aborted === true;
        if (aborted || !refused(error) || Date.now() > giveUpAt) {
          request.outcome = aborted ? "aborted" : String(error instanceof Error ? (error.cause ?? error) : error);
          throw error;
        }
        await pause(20);
      }
    }
  };
  let source: EventSource;
  const open = () => {
    source = new EventSource(url, { fetch: recordingFetch });
    const current = source;
    current.addEventListener("open", () => log.opened());
    for (const type of FEED_EVENT_TYPES)
      current.addEventListener(type, (event) =>
        log.received({ id: event.lastEventId, type, data: JSON.parse(String(event.data)) as Record<string, unknown> }),
      );
    current.addEventListener("resync", () => {
      current.close();
      log.resynced();
      open();
    });
    current.addEventListener("error", (event) => {
      // CLOSED after an error: the client failed the connection and will never reconnect.
      if (current.readyState === current.CLOSED) log.gaveUpFor(`${event.code ?? "no status"}: ${event.message ?? "error"}`);
    });
  };
  open();
  return {
    log,
    readyState: () => Promise.resolve(source.readyState),
    close: () => Promise.resolve(source.close()),
  };
}
