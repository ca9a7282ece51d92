/**
 * How long another client waits while one address holds its maximum of connections (issue 23):
 * a client on 127.0.0.3 makes `--requests` requests one after the other, each on a new
 * connection (connect to last byte of the answer), in three phases on one server:
 *   A. alone (the baseline of the same run);
 *   B. while 127.0.0.2 holds max_connections_per_address connections (half event streams with
 *      invented users, half idle) and keeps opening new ones (`--churn-ms` apart);
 *   C. as B, plus enough idle connections from 127.0.0.4… to fill max_connections: every
 *      connection the client opens needs an idle one closed first.
 * Prints p50/p99/max of the wait per phase, its ratio to A, and what the client was refused.
 *
 *   npm run build && node dist/bench/admission.js [--requests 500] [--churn-ms 2]
 *     [--max-connections 300] [--per-address 100]
 */
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import path from "node:path";
import { positiveInteger } from "./argument.js";
import { baseServerSettings } from "./seed.js";
import { cliOf, freePort, settingsEnv, startProcess } from "./server-process.js";

const BUILD = path.resolve(import.meta.dirname, "..", "..");

const requests = positiveInteger("requests", 500);
const churnMs = positiveInteger("churn-ms", 2);
const maxConnections = positiveInteger("max-connections", 300);
const perAddress = positiveInteger("per-address", 100);
const streamsPerAddress = Math.floor(perAddress / 2);

interface Held {
  readonly sockets: Socket[];
}

function open(port: number, localAddress: string, first?: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: "127.0.0.1", localAddress });
    socket.on("error", () => {}); // refused or closed to make room: expected
    socket.once("connect", () => {
      if (first !== undefined) socket.write(first);
      resolve(socket);
    });
    socket.once("error", reject);
  });
}

function streamRequest(user: string): string {
  const credentials = Buffer.from(`${user}:x`).toString("base64");
  return `GET /v1/articles HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nAuthorization: Basic ${credentials}\r\n\r\n`;
}

/** One request on a new connection from `localAddress`: milliseconds from connect to the end of the answer, and its status. */
function timedRequest(port: number, localAddress: string): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, localAddress, path: "/v1/__lbheartbeat__", agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve({ ms: performance.now() - started, status: res.statusCode ?? 0 }));
    });
    req.on("error", () => resolve({ ms: performance.now() - started, status: 0 }));
    req.end();
  });
}

interface Figures {
  readonly p50: number;
  readonly p99: number;
}

/** Refusals and reclaims so far, from the metrics (scraped from 127.0.0.9). */
async function counters(port: number): Promise<Record<string, number>> {
  const text = await new Promise<string>((resolve) => {
    const req = request({ host: "127.0.0.1", port, localAddress: "127.0.0.9", path: "/v1/__metrics__", agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve(body));
    });
    req.on("error", () => resolve("")); // refused (a build without admission drops it at capacity)
    req.end();
  });
  const found: Record<string, number> = {};
  for (const line of text.split("\n")) {
    const match = /^tessera_http_(refused_total\{reason="(\w+)"\}|idle_connections_reclaimed_total) (\S+)$/.exec(line);
    if (match) found[match[2] ?? "reclaimed"] = Number(match[3]);
  }
  return found;
}

async function measure(port: number, label: string, baseline: Figures | undefined): Promise<Figures> {
  const before = await counters(port);
  const waits: number[] = [];
  const statuses = new Map<number, number>();
  for (let i = 0; i < requests; i += 1) {
    const { ms, status } = await timedRequest(port, "127.0.0.3");
    waits.push(ms);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  waits.sort((a, b) => a - b);
  const at = (p: number) => waits[Math.min(waits.length - 1, Math.floor(p * waits.length))] ?? NaN;
  const figures = { p50: at(0.5), p99: at(0.99) };
  const ratio = baseline ? `  ×${(figures.p50 / baseline.p50).toFixed(2)} / ×${(figures.p99 / baseline.p99).toFixed(2)} of A` : "";
  const answers = [...statuses].map(([status, count]) => `${status === 0 ? "failed" : status}: ${count}`).join(", ");
  const after = await counters(port);
  const moved = Object.entries(after)
    .map(([name, value]) => [name, value - (before[name] ?? 0)] as const)
    .filter(([, delta]) => delta > 0)
    .map(([name, delta]) => `${name} +${delta}`)
    .join(", ");
  console.log(
    `${label.padEnd(44)} p50 ${figures.p50.toFixed(2)} ms  p99 ${figures.p99.toFixed(2)} ms  max ${at(1).toFixed(2)} ms${ratio}  client: ${answers}; server: ${moved || "nothing refused or reclaimed"}`,
  );
  return figures;
}

/** Opens new connections from `localAddress` every `churnMs` until stopped (each closes the address's oldest idle one or is refused). */
function churn(port: number, localAddress: string): () => void {
  let running = true;
  const loop = async () => {
    while (running) {
      const socket = await open(port, localAddress).catch(() => undefined);
      setTimeout(() => socket?.destroy(), 1000).unref();
      await new Promise((resolve) => setTimeout(resolve, churnMs));
    }
  };
  void loop();
  return () => {
    running = false;
  };
}

async function main(): Promise<void> {
  const port = await freePort();
  const settings = {
    ...baseServerSettings(port),
    resources: "articles:shareable",
    permission_backend: "memory",
    articles_read_principals: "system.Authenticated",
    max_connections: String(maxConnections),
    max_connections_per_address: String(perAddress),
    feed_max_streams_per_address: String(streamsPerAddress),
    log_level: "warn",
  };
  const server = await startProcess(
    { args: [cliOf(BUILD), "serve"], cwd: BUILD, env: settingsEnv(settings), readyPath: "/v1/__lbheartbeat__" },
    port,
  );
  const held: Held = { sockets: [] };
  try {
    console.log(
      `admission bench: ${requests} requests per phase, max_connections ${maxConnections}, per address ${perAddress} (${streamsPerAddress} streams), churn every ${churnMs} ms; node ${process.version}`,
    );
    const baseline = await measure(port, "A. alone", undefined);

    for (let i = 0; i < streamsPerAddress; i += 1) held.sockets.push(await open(port, "127.0.0.2", streamRequest(`intruder${i}`)));
    for (let i = 0; i < perAddress - streamsPerAddress; i += 1) held.sockets.push(await open(port, "127.0.0.2"));
    const stopChurn = churn(port, "127.0.0.2");
    await measure(port, `B. 127.0.0.2 holds ${perAddress} and opens more`, baseline);

    const fill = maxConnections - perAddress;
    for (let i = 0; i < fill; i += 1) held.sockets.push(await open(port, `127.0.0.${4 + Math.floor(i / perAddress)}`));
    await measure(port, `C. as B, server full of idle connections`, baseline);
    stopChurn();
    console.log(`server highest RSS ${server.highWaterMb()} MB`);
  } finally {
    for (const socket of held.sockets) socket.destroy();
    await server.stop();
  }
}

await main();
