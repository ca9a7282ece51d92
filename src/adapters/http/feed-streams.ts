/**
 * This process's open event streams, and the answers that bring standard clients back. An
 * EventSource (browsers, npm `eventsource`) treats any answer but a 200 event stream as final:
 * it never reconnects. So a stream this process cannot serve now (no lease, a backend failure,
 * a stop under way) is answered 200 with a `retry:` delay and an end; the client reconnects
 * with its Last-Event-ID and misses nothing. A graceful stop hands every open stream over the
 * same way, at once, so its clients resume on another process.
 */
import type { ServerResponse } from "node:http";
import { EVENT_STREAM } from "./event-stream.js";

/** What the stop needs of an open stream: end it, telling the client where to resume and how soon. */
export interface HandOver {
  handOver(retryMs: number): void;
}

/** A graceful stop spreads its clients' reconnections over this long, so they do not all come back at once. */
const STOP_SPREAD_MS = 1000;

export class FeedStreams {
  private readonly open = new Set<HandOver>();
  private stopping = false;

  /** @param retryMs the reconnection delay told to clients (`feed_retry_seconds`). */
  constructor(readonly retryMs: number) {}

  get draining(): boolean {
    return this.stopping;
  }

  /** Counts a stream as open until the returned function is called. */
  add(stream: HandOver): () => void {
    this.open.add(stream);
    return () => this.open.delete(stream);
  }

  /** The process is stopping: every open stream is handed over; new ones are answered `retry` (answerLater). */
  drain(): number {
    this.stopping = true;
    const streams = [...this.open];
    this.open.clear();
    for (const stream of streams) stream.handOver(this.stopRetryMs());
    return streams.length;
  }

  /** Between one and two reconnection delays, at random: the clients refused together do not return together. */
  laterRetryMs(): number {
    return Math.round(this.retryMs * (1 + Math.random()));
  }

  /** Under a second (at most the usual delay), at random: a stopping process's clients come back soon, spread out. */
  stopRetryMs(): number {
    return Math.floor(Math.random() * Math.min(STOP_SPREAD_MS, this.retryMs));
  }
}

/**
 * Answers a stream request with "come back in `retryMs`": a 200 event stream holding only that
 * and a comment saying why. No `id:`: the client keeps its Last-Event-ID. When the process is
 * stopping the connection closes too, so that the client's next attempt reaches another process.
 */
export function answerLater(res: ServerResponse, retryMs: number, reason: string, head: boolean, closeConnection: boolean): void {
  res.statusCode = 200;
  res.setHeader("Content-Type", `${EVENT_STREAM}; charset=utf-8`);
  res.setHeader("Cache-Control", "no-cache, no-store");
  if (closeConnection) res.setHeader("Connection", "close");
  res.end(head ? undefined : `retry: ${retryMs}\n: ${reason.replace(/[\r\n]+/g, " ")}\n\n`);
}
