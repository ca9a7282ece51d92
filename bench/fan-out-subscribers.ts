/**
 * W8's subscribers, in worker threads of the bench (subscriber-thread.ts drives them, each
 * holding a share of the streams): reading thousands of event streams on the thread that sends
 * the writes would delay the writes by the bench's own work, and one thread reading a burst for
 * 3,000 streams alone would time its own queue rather than the server. Opens one stream per user (a few at a time, each counted as open once its
 * `: live` comment arrives), then per stream counts `create`/`update` events, keeps the ids of its
 * `delete` events and notes whether a `resync` came or the server closed it; per event it samples
 * the time from the record's `sentAt` (set by the writer when it sent the write) to its arrival
 * here. Requests come as { id, op } messages; each is answered with { id, ... }.
 */
import http from "node:http";
import { parentPort, workerData } from "node:worker_threads";
import { authorization } from "./seed.js";

export interface SubscribersStart {
  /** The stream's URL, e.g. `http://127.0.0.1:8888/v1/feed`. */
  readonly url: string;
  readonly users: readonly string[];
  /** Streams being opened at once. */
  readonly concurrency: number;
}

/** What one stream received since the last reset. */
export interface StreamRecord {
  readonly creates: number;
  /** Record ids of its `delete` events, in arrival order. */
  readonly deletes: readonly string[];
  /** `create`/`update` events that arrived after its first `delete`. */
  readonly afterDelete: number;
  /** When its last `delete` arrived (ms; 0: none). */
  readonly lastDeleteAt: number;
  readonly resync: boolean;
  /** The server ended or cut the stream. */
  readonly closed: boolean;
}

/** A thread's events since the last reset and its delivery samples (ms), to be merged with the other threads'. */
export interface Samples {
  readonly events: number;
  readonly samples: Float64Array;
  /** The first `create` event received, as sent (its size is what every delivery carries). */
  readonly sampleEvent: string | undefined;
}

export type SubscribersRequest =
  | { readonly id: number; readonly op: "open" }
  | { readonly id: number; readonly op: "count" }
  | { readonly id: number; readonly op: "reset" }
  | { readonly id: number; readonly op: "samples" }
  | { readonly id: number; readonly op: "streams" }
  | { readonly id: number; readonly op: "stop" };

const MAX_SAMPLES = 3_000_000;

class Stream {
  creates = 0;
  deletes: string[] = [];
  afterDelete = 0;
  lastDeleteAt = 0;
  resync = false;
  closed = false;
  live = false;
  request: http.ClientRequest | undefined;

  record(): StreamRecord {
    const { creates, deletes, afterDelete, lastDeleteAt, resync, closed } = this;
    return { creates, deletes, afterDelete, lastDeleteAt, resync, closed };
  }

  reset(): void {
    this.creates = 0;
    this.deletes = [];
    this.afterDelete = 0;
    this.lastDeleteAt = 0;
    this.resync = false;
  }
}

const start = workerData as SubscribersStart;
// node:http, not fetch: web streams and a TextDecoder per chunk cost this thread several times more CPU.
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const streams = start.users.map(() => new Stream());
let latencies: number[] = [];
let events = 0;
let stopping = false;
let sampleEvent: string | undefined;

/** One event's text (without its blank line), as the server wrote it. */
function take(stream: Stream, text: string, from: number, to: number, now: number): void {
  const at = text.indexOf("event: ", from);
  if (at < 0 || at >= to) return; // a comment, or an `id:` line alone (a stream's end)
  const nameEnd = text.indexOf("\n", at);
  const name = text.slice(at + 7, nameEnd);
  if (name === "resync") {
    stream.resync = true;
    return;
  }
  events += 1;
  if (name === "delete") {
    const data = text.indexOf("data: ", nameEnd);
    const body = JSON.parse(text.slice(data + 6, to)) as { id: string };
    stream.deletes.push(body.id);
    stream.lastDeleteAt = now;
    return;
  }
  if (stream.deletes.length > 0) stream.afterDelete += 1;
  else stream.creates += 1;
  sampleEvent ??= `${text.slice(from, to)}\n\n`;
  const sent = text.indexOf('"sentAt":', nameEnd);
  if (sent >= 0 && sent < to && latencies.length < MAX_SAMPLES) latencies.push(now - parseInt(text.slice(sent + 9, sent + 24), 10));
}

/** Takes the complete events of a stream's text; returns the incomplete rest. */
function consume(stream: Stream, text: string, now: number): string {
  let from = 0;
  let end = text.indexOf("\n\n");
  while (end >= 0) {
    if (text.startsWith(": live", from)) stream.live = true;
    else take(stream, text, from, end, now);
    from = end + 2;
    end = text.indexOf("\n\n", from);
  }
  return text.slice(from);
}

function open(index: number): Promise<void> {
  const stream = streams[index] as Stream;
  const user = start.users[index] as string;
  return new Promise((resolve, reject) => {
    const request = http.get(
      start.url,
      { agent, headers: { Accept: "text/event-stream", Authorization: authorization(user) } },
      (response) => {
        if (response.statusCode !== 200) {
          reject(new Error(`subscriber ${user}: ${response.statusCode}`));
          response.resume();
          return;
        }
        // The events are ASCII but for record data; latin1 decodes any byte and keeps the markers intact.
        response.setEncoding("latin1");
        let rest = "";
        response.on("data", (chunk: string) => {
          rest = consume(stream, rest + chunk, Date.now());
          if (stream.live) resolve();
        });
        const ended = () => {
          if (!stopping) stream.closed = true;
          reject(new Error(`subscriber ${user}: the stream ended before it went live`));
        };
        response.on("end", ended);
        response.on("close", ended);
        response.on("error", () => undefined); // a reset: `close` follows
      },
    );
    request.on("error", (error) => {
      if (!stopping) stream.closed = true;
      reject(error);
    });
    stream.request = request;
  });
}

async function openAll(): Promise<void> {
  let next = 0;
  const opener = async () => {
    while (next < streams.length) await open(next++);
  };
  await Promise.all(Array.from({ length: Math.max(1, start.concurrency) }, opener));
}

async function answer(request: SubscribersRequest): Promise<Record<string, unknown>> {
  switch (request.op) {
    case "open": {
      const started = Date.now();
      await openAll();
      return { seconds: (Date.now() - started) / 1000 };
    }
    case "count":
      return { events, closed: streams.filter((s) => s.closed).length };
    case "reset":
      events = 0;
      latencies = [];
      for (const stream of streams) stream.reset();
      return {};
    case "samples":
      return { events, samples: Float64Array.from(latencies), sampleEvent } satisfies Samples;
    case "streams":
      return { streams: streams.map((s) => s.record()) };
    case "stop":
      stopping = true;
      for (const stream of streams) stream.request?.destroy();
      return {};
  }
}

parentPort?.on("message", (request: SubscribersRequest) => {
  answer(request).then(
    (result) => parentPort?.postMessage({ id: request.id, ...result }),
    (error: unknown) => parentPort?.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
