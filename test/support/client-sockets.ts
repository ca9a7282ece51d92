/**
 * Raw client sockets from a chosen loopback address (127.0.0.0/8 all reach a server on
 * 127.0.0.1 on Linux), so that tests and benchmarks can be several clients: idle connections,
 * event streams, plain requests, and what the server answered on each.
 */
import { request as httpRequest } from "node:http";
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";

export interface RawConnection {
  readonly socket: Socket;
  /** Everything the server sent so far (latin1: byte for byte). */
  received(): string;
  readonly closed: Promise<void>;
  isClosed(): boolean;
  /** The socket error that ended it, if any (ECONNRESET: the server reset it). */
  error(): string | undefined;
  /** The status of the server's first answer, once its status line arrived. */
  status(): number | undefined;
}

export async function rawConnect(port: number, localAddress: string): Promise<RawConnection> {
  const socket = connect({ port, host: "127.0.0.1", localAddress });
  let data = "";
  let closed = false;
  let failure: string | undefined;
  socket.on("data", (chunk: Buffer) => (data += chunk.toString("latin1")));
  socket.on("error", (error: NodeJS.ErrnoException) => (failure ??= error.code ?? error.message));
  const closedPromise = new Promise<void>((resolve) => socket.once("close", () => resolve())).then(() => {
    closed = true;
  });
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  return {
    socket,
    received: () => data,
    closed: closedPromise,
    isClosed: () => closed,
    error: () => failure,
    status: () => {
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(data);
      return match ? Number(match[1]) : undefined;
    },
  };
}

export function basic(credentials: string): string {
  return `Basic ${Buffer.from(credentials).toString("base64")}`;
}

/** Asks for the live feed of `path` on a new connection from `localAddress`. */
export async function rawStream(
  port: number,
  localAddress: string,
  options: { path?: string; credentials?: string; headers?: Record<string, string> } = {},
): Promise<RawConnection> {
  const connection = await rawConnect(port, localAddress);
  const headers: Record<string, string> = { Host: "127.0.0.1", Accept: "text/event-stream", ...options.headers };
  if (options.credentials !== undefined) headers.Authorization = basic(options.credentials);
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  if (!connection.isClosed()) connection.socket.write(`GET ${options.path ?? "/v1/articles"} HTTP/1.1\r\n${lines.join("")}\r\n`);
  return connection;
}

/** The JSON body of a complete non-chunked answer (Content-Length), undefined until it is all there. */
export function jsonBody(raw: string): unknown {
  const end = raw.indexOf("\r\n\r\n");
  const length = /\r\ncontent-length: (\d+)/i.exec(raw.slice(0, end));
  if (end < 0 || !length) return undefined;
  const body = Buffer.from(raw.slice(end + 4), "latin1");
  return body.length >= Number(length[1]) ? JSON.parse(body.subarray(0, Number(length[1])).toString("utf8")) : undefined;
}

/** The value of header `name` in the first answer. */
export function headerOf(raw: string, name: string): string | undefined {
  const head = raw.slice(0, raw.indexOf("\r\n\r\n"));
  const match = new RegExp(`\r\n${name}: ([^\r\n]*)`, "i").exec(head);
  return match?.[1];
}

export interface AddressedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON of any shape, asserted by the tests
}

/** One request on a connection of its own from `localAddress`. */
export function requestFrom(
  url: string,
  localAddress: string,
  method: string,
  path: string,
  options: { credentials?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<AddressedResponse> {
  const { hostname, port } = new URL(url);
  const headers: Record<string, string> = { ...options.headers };
  if (options.credentials !== undefined) headers.Authorization = basic(options.credentials);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port: Number(port), localAddress, method, path, headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => {
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON: the test sees the text
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Waits until `predicate` holds, checking every 10 ms, at most `timeoutMs`; throws with `what` otherwise. */
export async function until(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A metric's value in a Prometheus text exposition (0 when absent). */
export function metricValue(exposition: string, name: string, labels = ""): number {
  const line = exposition.split("\n").find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ""} `));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

/**
 * The kernel's TCP sockets (IPv4, Linux /proc/net/tcp) from local port `port` to peer port
 * `peerPort`: their state (01 established, 04 FIN-WAIT-1…) and bytes queued to send.
 */
export function kernelSockets(port: number, peerPort: number): { state: string; sendQueue: number }[] {
  const hex = (n: number) => n.toString(16).toUpperCase().padStart(4, "0");
  return readFileSync("/proc/net/tcp", "utf8")
    .split("\n")
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[1]?.endsWith(`:${hex(port)}`) && fields[2]?.endsWith(`:${hex(peerPort)}`))
    .map((fields) => ({ state: fields[3] ?? "", sendQueue: parseInt((fields[4] ?? "0:0").split(":")[0] ?? "0", 16) }));
}
