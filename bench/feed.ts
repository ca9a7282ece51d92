/**
 * W7: live-feed subscribers during a W2 write load. Opens N subscribers of `writes`
 * (`text/event-stream`, each its own user) and runs W2 (`POST /v1/writes`, one owner) for a fixed
 * duration; reports the writers' rate without and with subscribers (fresh server each, same
 * records, same run), the p50/p99 from commit to delivery (delivery time in this process minus the
 * record's `last_modified`: one machine, one clock), events delivered against expected, and the
 * server's peak RSS.
 *
 * Who reads what (each subscriber a different subset): the first `--collection-readers`
 * subscribers hold collection-level read (`writes_read_principals` names them); every other one
 * reads only records shared with it: each create grants `read` to `--grants` restricted
 * subscribers, in turn (record n to readers n·g … n·g+g−1, modulo their number). So a write is
 * delivered to collection-readers + grants subscribers, and every restricted subscriber sees a
 * different slice of the collection.
 *
 *   npm run build && node dist/bench/feed.js [--backend memory|postgresql] [--subscribers 1000]
 *     [--collection-readers 10] [--grants 2] [--duration 10] [--connections 10]
 *     [--postgres postgresql://postgres@127.0.0.1:5432/postgres]
 */
import path from "node:path";
import autocannon from "autocannon";
import { authorization, BENCH_SECRET, clearCollectionSql, databaseUrl, ensureDatabase, OWNER, principalOf } from "./seed.js";
import { cliOf, freePort, runNode, settingsEnv, startProcess, type ServerProcess } from "./server-process.js";

const BUILD = path.resolve(import.meta.dirname, "..", "..");
const DATABASE = "tessera_bench_feed";

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

function option(name: string, fallback: number): number {
  const raw = argument(name);
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`--${name} must be a non-negative integer`);
  return value;
}

const backend = argument("backend") ?? "memory";
if (backend !== "memory" && backend !== "postgresql") throw new Error("--backend must be memory or postgresql");
const subscribers = option("subscribers", 1000);
const collectionReaders = Math.min(subscribers, option("collection-readers", 10));
const grants = option("grants", 2);
const duration = option("duration", 10);
const connections = option("connections", 10);
const postgres = argument("postgres") ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const sql = databaseUrl(postgres, DATABASE);

const readers = Array.from({ length: subscribers }, (_, i) => `reader${i}:pw`);
const restricted = readers.slice(collectionReaders).map(principalOf);

function settings(port: number): Record<string, string> {
  const storage: Record<string, string> =
    backend === "memory"
      ? { storage_backend: "memory", permission_backend: "memory" }
      : { storage_backend: "postgresql", storage_url: sql, permission_backend: "postgresql", permission_url: sql };
  return {
    listen_host: "127.0.0.1",
    listen_port: String(port),
    log_level: "warn",
    userid_hmac_secret: BENCH_SECRET,
    "multiauth.policies": "basicauth",
    cache_backend: "memory",
    // Every subscriber holds a connection: the default limit (1,000) would refuse the writers.
    max_connections: String(subscribers + connections + 100),
    resources: "writes:shareable",
    writes_create_principals: "system.Authenticated",
    writes_read_principals: readers.slice(0, collectionReaders).map(principalOf).join(" "),
    ...storage,
  };
}

async function startServer(): Promise<ServerProcess> {
  if (backend === "postgresql") await clearCollectionSql(sql, "writes", true);
  const port = await freePort();
  return startProcess({ args: [cliOf(BUILD), "serve"], cwd: BUILD, env: settingsEnv(settings(port)), readyPath: "/v1/__lbheartbeat__" }, port);
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
        const now = Date.now();
        buffer += decoder.decode(value, { stream: true });
        let end = buffer.indexOf("\n\n");
        while (end >= 0) {
          const id = /^id: (\d+)$/m.exec(buffer.slice(0, end))?.[1];
          if (id !== undefined) {
            counters.events += 1;
            if (latencies.length < 2_000_000) latencies.push(now - Number(id));
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

/** The W2 body of the n-th create: the bench record, shared for reading with `grants` restricted subscribers. */
function body(n: number): string {
  const read = restricted.length === 0 ? [] : Array.from({ length: grants }, (_, j) => restricted[(n * grants + j) % restricted.length]);
  return JSON.stringify({
    data: { title: `Record ${String(n).padStart(7, "0")}`, done: false, priority: 3, tags: ["alpha", "beta", "gamma"] },
    permissions: { read },
  });
}

async function run(count: number): Promise<void> {
  const server = await startServer();
  const controller = new AbortController();
  const latencies: number[] = [];
  const counters = { events: 0 };
  try {
    for (let i = 0; i < count; i += 1) await subscribe(server.url, readers[i] as string, latencies, counters, controller.signal);
    const stopSampling = server.sampleRss();
    let n = 0;
    const result = await autocannon({
      url: server.url,
      connections,
      pipelining: 1,
      duration,
      requests: [
        {
          method: "POST",
          path: "/v1/writes",
          headers: { Authorization: authorization(OWNER), "Content-Type": "application/json" },
          setupRequest: (request) => ({ ...request, body: body((n += 1)) }),
        },
      ],
    });
    // Each write reaches the collection readers and the subscribers it was shared with (those subscribed).
    const perWrite = Math.min(count, collectionReaders) + (count > collectionReaders ? Math.min(grants, count - collectionReaders) : 0);
    const expected = result["2xx"] * perWrite;
    // Let the subscribers drain what was committed at the end (bounded).
    for (let i = 0; i < 300 && counters.events < expected; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    const rssMb = stopSampling();
    const sorted = [...latencies].sort((a, b) => a - b);
    console.log(
      JSON.stringify({
        backend,
        subscribers: count,
        collectionReaders: Math.min(count, collectionReaders),
        grants,
        connections,
        duration,
        writesPerSecond: result.requests.average,
        writes2xx: result["2xx"],
        non2xx: result.non2xx,
        events: counters.events,
        expectedEvents: expected,
        deliveryP50Ms: percentile(sorted, 50),
        deliveryP99Ms: percentile(sorted, 99),
        deliveryMaxMs: sorted.at(-1) ?? NaN,
        peakRssMb: rssMb,
      }),
    );
  } finally {
    controller.abort();
    await server.stop();
  }
}

if (backend === "postgresql") {
  await ensureDatabase(postgres, DATABASE);
  await runNode([cliOf(BUILD), "migrate"], BUILD, settingsEnv(settings(0)));
}
await run(0);
await run(subscribers);
