/**
 * W8's ceiling: `node dist/bench/sse-ceiling-server.js <port>`, a bare `node:http` server doing
 * only the fan-out. `GET /v1/<c>` with `Accept: text/event-stream` holds a stream (no
 * authentication, no permissions: every stream gets every event); `POST /v1/<c>` takes W8's
 * write, answers 201 with the record as Tessera would (the data, an `id`, a `last_modified`) and
 * sends every stream the event Tessera would send (the same `id:`/`event:`/`data:` text). What the
 * writes of one turn of the event loop queued goes out in one write per stream, framed as a chunk
 * on the socket directly (as Tessera's streams do): the least a Node process can spend per delivery.
 *
 * W8B's bare deliveries: `POST /deliveries?grants=G` is one request whose body never ends, a
 * line per write answered elsewhere (its record's data as JSON); each line's event goes to the
 * next G streams in turn, one chunk each, as a selective write's readers get it.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

const port = Number(process.argv[2] ?? "0");
/** The open streams, in the order they were opened. */
const streams: ServerResponse[] = [];
let queued: string[] = [];
let lastModified = 0;
/** The stream the next selective delivery goes to. */
let nextStream = 0;

const chunkOf = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;

function flush(): void {
  const chunk = chunkOf(queued.join(""));
  queued = [];
  for (const response of streams) response.socket?.write(chunk);
}

/** The record Tessera would store for `data`, and its event's text. */
function created(data: Record<string, unknown>): { record: Record<string, unknown>; text: string } {
  lastModified = Math.max(Date.now(), lastModified + 1);
  const record = { ...data, id: randomUUID(), last_modified: lastModified };
  return { record, text: `id: ${lastModified}\nevent: create\ndata: ${JSON.stringify(record)}\n\n` };
}

function event(data: Record<string, unknown>): string {
  const { record, text } = created(data);
  if (queued.length === 0) setImmediate(flush);
  queued.push(text);
  return JSON.stringify({ data: record, permissions: { write: ["owner"] } });
}

/** One write's event to the next `grants` streams. */
function deliverSelectively(data: Record<string, unknown>, grants: number): void {
  if (streams.length === 0) return;
  const chunk = chunkOf(created(data).text);
  for (let j = 0; j < grants; j += 1) {
    streams[nextStream % streams.length]?.socket?.write(chunk);
    nextStream += 1;
  }
}

/** Reads the never-ending body of `POST /deliveries`: a line of JSON per write. */
function takeDeliveries(request: IncomingMessage, grants: number): void {
  let pending = "";
  request.setEncoding("utf8");
  request.on("data", (text: string) => {
    const lines = (pending + text).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) if (line !== "") deliverSelectively(JSON.parse(line) as Record<string, unknown>, grants);
  });
}

const server = createServer((request, response) => {
  if (request.method === "GET" && (request.headers.accept ?? "").includes("text/event-stream")) {
    response.writeHead(200, {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-store",
      "Transfer-Encoding": "chunked",
    });
    response.flushHeaders();
    response.write(": connected\n\n: live\n\n");
    streams.push(response);
    response.once("close", () => streams.splice(streams.indexOf(response), 1));
    return;
  }
  if (request.method === "POST" && request.url?.startsWith("/deliveries")) {
    takeDeliveries(request, Number(new URL(request.url, "http://x").searchParams.get("grants") ?? "1"));
    return;
  }
  if (request.method === "POST") {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { data?: Record<string, unknown> };
      const answer = event(body.data ?? {});
      response.writeHead(201, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(answer) });
      response.end(answer);
    });
    return;
  }
  response.writeHead(200, { "Content-Type": "application/json" });
  response.end("{}");
});
server.keepAliveTimeout = 65_000;
// The deliveries' request lasts the whole run.
server.requestTimeout = 0;
server.maxConnections = 100_000;
server.listen(port, "127.0.0.1");
process.once("SIGTERM", () => process.exit(0));
