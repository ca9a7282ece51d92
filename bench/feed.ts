/**
 * W7: live-feed subscribers during a W2 write load (memory backends). Opens N subscribers of
 * `writes` (`text/event-stream`, each its own user), runs W2 (`POST /v1/writes`) for a fixed
 * duration, and reports the writers' rate with and without subscribers (fresh server each), the
 * p50/p99 from commit to delivery (delivery time in this process minus the record's
 * `last_modified`, one clock), events delivered, and the server's peak RSS.
 *
 *   npm run build && node dist/bench/feed.js [--subscribers 1000] [--duration 10] [--connections 10]
 */
import path from "node:path";
import autocannon from "autocannon";
import { authorization, BENCH_SECRET, OWNER } from "./seed.js";
import { cliOf, freePort, settingsEnv, startProcess, type ServerProcess } from "./server-process.js";

const BUILD = path.resolve(import.meta.dirname, "..", "..");

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`--${name} must be a non-negative integer`);
  return value;
}

async function startServer(): Promise<ServerProcess> {
  const port = await freePort();
  const settings = {
    listen_host: "127.0.0.1",
    listen_port: String(port),
    log_level: "warn",
    userid_hmac_secret: BENCH_SECRET,
    "multiauth.policies": "basicauth",
    resources: "writes:shareable",
    permission_backend: "memory",
    writes_create_principals: "system.Authenticated",
    writes_read_principals: "system.Authenticated",
  };
  return startProcess({ args: [cliOf(BUILD), "serve"], cwd: BUILD, env: settingsEnv(settings), readyPath: "/v1/__lbheartbeat__" }, port);
}

/** One subscriber: counts events and records commit→delivery latencies (bounded sample). */
async function subscribe(url: string, user: string, latencies: number[], counters: { events: number }, signal: AbortSignal): Promise<void> {
  const response = await fetch(`${url}/v1/writes`, {
    headers: { Accept: "text/event-stream", Authorization: authorization(user) },
    signal,
  });
  if (response.status !== 200 || !response.body) throw new Error(`subscriber ${user}: ${response.status}`);
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let end = buffer.indexOf("\n\n");
        while (end >= 0) {
          const id = /^id: (\d+)$/m.exec(buffer.slice(0, end))?.[1];
          if (id !== undefined) {
            counters.events += 1;
            if (latencies.length < 2_000_000) latencies.push(Date.now() - Number(id));
          }
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf("\n\n");
        }
      }
    } catch {
      // aborted at the end of the run
    }
  })();
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function run(subscribers: number, duration: number, connections: number): Promise<void> {
  const server = await startServer();
  const controller = new AbortController();
  const latencies: number[] = [];
  const counters = { events: 0 };
  try {
    for (let i = 0; i < subscribers; i += 1) await subscribe(server.url, `reader${i}:pw`, latencies, counters, controller.signal);
    const body = JSON.stringify({ data: { title: "Record 0000001", done: false, priority: 3, tags: ["alpha", "beta", "gamma"] } });
    const stopSampling = server.sampleRss();
    const result = await autocannon({
      url: server.url,
      connections,
      pipelining: 1,
      duration,
      requests: [
        { method: "POST", path: "/v1/writes", headers: { Authorization: authorization(OWNER), "Content-Type": "application/json" }, body },
      ],
    });
    // Let the subscribers drain what was committed at the end (bounded).
    const expected = result["2xx"] * subscribers;
    for (let i = 0; i < 300 && counters.events < expected; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    const rssMb = stopSampling();
    const sorted = [...latencies].sort((a, b) => a - b);
    console.log(
      JSON.stringify({
        subscribers,
        connections,
        duration,
        writesPerSecond: result.requests.average,
        writes2xx: result["2xx"],
        non2xx: result.non2xx,
        events: counters.events,
        expectedEvents: expected,
        deliveryP50Ms: percentile(sorted, 50),
        deliveryP99Ms: percentile(sorted, 99),
        peakRssMb: rssMb,
      }),
    );
  } finally {
    controller.abort();
    await server.stop();
  }
}

const subscribers = option("subscribers", 1000);
const duration = option("duration", 10);
const connections = option("connections", 10);
await run(0, duration, connections);
await run(subscribers, duration, connections);
