/**
 * W8's ceiling: `node dist/bench/sse-ceiling-server.js <port>`, a bare `node:http` server doing
 * only the fan-out. `GET /v1/<c>` with `Accept: text/event-stream` holds a stream (no
 * authentication, no permissions: every stream gets every event); `POST /v1/<c>` takes W8's
 * write, answers 201 with the record as Tessera would (the data, an `id`, a `last_modified`) and
 * sends every stream the event Tessera would send (the same `id:`/`event:`/`data:` text). What the
 * writes of one turn of the event loop queued goes out in one write per stream, framed as a chunk
 * on the socket directly (as Tessera's streams do): the least a Node process can spend per delivery.
 */
import { randomUUID } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";

const port = Number(process.argv[2] ?? "0");
const streams = new Set<ServerResponse>();
let queued: string[] = [];
let lastModified = 0;

function flush(): void {
  const text = queued.join("");
  queued = [];
  const chunk = `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
  for (const response of streams) response.socket?.write(chunk);
}

function event(data: Record<string, unknown>): string {
  lastModified = Math.max(Date.now(), lastModified + 1);
  const record = { ...data, id: randomUUID(), last_modified: lastModified };
  if (queued.length === 0) setImmediate(flush);
  queued.push(`id: ${lastModified}\nevent: create\ndata: ${JSON.stringify(record)}\n\n`);
  return JSON.stringify({ data: record, permissions: { write: ["owner"] } });
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
    streams.add(response);
    response.once("close", () => streams.delete(response));
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
server.maxConnections = 100_000;
server.listen(port, "127.0.0.1");
process.once("SIGTERM", () => process.exit(0));
