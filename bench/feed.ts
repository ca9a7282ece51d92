/**
 * W7: live-feed subscribers during a W2 write load. Opens N subscribers of `writes`
 * (`text/event-stream`, each its own user) and runs W2 (`POST /v1/writes`, one owner) for a fixed
 * duration; reports the writers' rate without and with subscribers (fresh server each, same
 * records, alternated pairs), the p50/p99 delivery latency (arrival at the subscriber minus the
 * `sentAt` the writer put in the record when it built the request: one machine, one clock; an
 * upper bound of commit → delivery, as it includes the write's own latency; `last_modified` is no
 * clock under load, as it runs ahead of time by one per write), events delivered against
 * expected, the server's peak RSS, and the CPU seconds of the server and of this process
 * (subscribers read on a worker thread, so that the bench's own reading does not slow its writers).
 *
 * Who reads what (each subscriber a different subset): the first `--collection-readers`
 * subscribers hold collection-level read (`writes_read_principals` names them); every other one
 * reads only records shared with it: each create grants `read` to `--grants` restricted
 * subscribers, in turn (record n to readers n·g … n·g+g−1, modulo their number). So a write is
 * delivered to collection-readers + grants subscribers, and every restricted subscriber sees a
 * different slice of the collection.
 *
 *   npm run build && node dist/bench/feed.js [--backend memory|postgresql] [--subscribers 1000]
 *     [--collection-readers 10] [--grants 2] [--duration 10] [--warmup 3] [--connections 10] [--repeat 1]
 *     [--postgres postgresql://postgres@127.0.0.1:5432/postgres] [--database tessera_bench_feed] [--profile]
 *
 * `--profile` writes a CPU profile of the server of each run with subscribers and prints its summary.
 * The settings go to the server in an .ini file (settings-file.ts): thousands of collection
 * readers overflow an environment variable.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import autocannon from "autocannon";
import { authorization, backendSettings, baseServerSettings, databaseUrl, recreateDatabase, OWNER, principalOf } from "./seed.js";
import { latestProfile, summarizeProfile } from "./profile.js";
import { cliOf, freePort, runNode, startProcess, type ServerProcess } from "./server-process.js";
import { writeSettingsFile } from "./settings-file.js";

const BUILD = path.resolve(import.meta.dirname, "..", "..");

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

const backendArgument = argument("backend") ?? "memory";
if (backendArgument !== "memory" && backendArgument !== "postgresql") throw new Error("--backend must be memory or postgresql");
const backend: "memory" | "postgresql" = backendArgument;
const subscribers = option("subscribers", 1000);
const collectionReaders = Math.min(subscribers, option("collection-readers", 10));
const grants = option("grants", 2);
const duration = option("duration", 10);
const warmup = option("warmup", 3);
const connections = option("connections", 10);
const repeat = Math.max(1, option("repeat", 1));
const profile = process.argv.includes("--profile");
const postgres = argument("postgres") ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const database = argument("database") ?? "tessera_bench_feed";
const sql = databaseUrl(postgres, database);

const readers = Array.from({ length: subscribers }, (_, i) => `reader${i}:pw`);
const restricted = readers.slice(collectionReaders).map(principalOf);

function settings(port: number): Record<string, string> {
  return {
    ...baseServerSettings(port),
    // Every subscriber holds a connection: the default limit (1,000) would refuse the writers.
    max_connections: String(subscribers + connections + 100),
    // ...all from one address, and each reader one stream (builds before issue 23 ignore these).
    max_connections_per_address: String(subscribers + connections + 100),
    feed_max_streams_per_address: String(subscribers),
    resources: "writes:shareable",
    writes_create_principals: "system.Authenticated",
    writes_read_principals: readers.slice(0, collectionReaders).map(principalOf).join(" "),
    ...backendSettings(backend, sql),
  };
}

async function startServer(profileDir: string | undefined): Promise<ServerProcess> {
  // A fresh database per run: deleting the last run's rows would leave them dead (autovacuum may be off), and each run of
  // a pair would start on more of them than the one before.
  if (backend === "postgresql") {
    await recreateDatabase(postgres, database);
    const migrating = writeSettingsFile(settings(0));
    try {
      await runNode([cliOf(BUILD), "migrate", ...migrating.args], BUILD, {});
    } finally {
      migrating.remove();
    }
  }
  const port = await freePort();
  const nodeFlags = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
  const file = writeSettingsFile(settings(port));
  try {
    const server = await startProcess(
      { args: [cliOf(BUILD), "serve", ...file.args], cwd: BUILD, env: {}, nodeFlags, readyPath: "/v1/__lbheartbeat__" },
      port,
    );
    return { ...server, stop: () => server.stop().finally(() => file.remove()) };
  } catch (error) {
    file.remove();
    throw error;
  }
}

/** The subscribers, on their own thread (feed-subscribers.ts); resolves once every stream is open. */
async function openSubscribers(url: string, users: readonly string[]) {
  const worker = new Worker(new URL("./feed-subscribers.js", import.meta.url), { workerData: { url, users } });
  const ask = <T>(message: string) =>
    new Promise<T>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
      if (message !== "") worker.postMessage(message);
    });
  await ask("");
  return {
    events: async () => (await ask<{ events: number }>("count")).events,
    /** Counts and samples start again from here (after the warm-up). */
    reset: () => ask<string>("reset"),
    stop: async () => {
      const result = await ask<{ events: number; latencies: number[] }>("stop");
      await worker.terminate();
      return result;
    },
  };
}

/** CPU seconds a process used so far (user + system), from `/proc/<pid>/stat` (0 once gone). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** Lets the subscribers receive what was committed (bounded: 30 s). */
async function drain(subscribed: { events(): Promise<number> }, expected: number): Promise<void> {
  for (let i = 0; i < 300 && (await subscribed.events()) < expected; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
}

/** The W2 body of the n-th create: the bench record, shared for reading with `grants` restricted subscribers. */
function body(n: number): string {
  const read = restricted.length === 0 ? [] : Array.from({ length: grants }, (_, j) => restricted[(n * grants + j) % restricted.length]);
  return JSON.stringify({
    data: { title: `Record ${String(n).padStart(7, "0")}`, done: false, priority: 3, tags: ["alpha", "beta", "gamma"], sentAt: Date.now() },
    permissions: { read },
  });
}

async function run(count: number): Promise<number> {
  const profileDir = profile && count > 0 ? mkdtempSync(path.join(tmpdir(), "tessera-feed-profile-")) : undefined;
  const server = await startServer(profileDir);
  const subscribed = count > 0 ? await openSubscribers(server.url, readers.slice(0, count)) : undefined;
  // Each write reaches the collection readers and the subscribers it was shared with (those subscribed).
  const perWrite = Math.min(count, collectionReaders) + (count > collectionReaders ? Math.min(grants, count - collectionReaders) : 0);
  let n = 0;
  const load = (seconds: number) =>
    autocannon({
      url: server.url,
      connections,
      pipelining: 1,
      duration: seconds,
      requests: [
        {
          method: "POST",
          path: "/v1/writes",
          headers: { Authorization: authorization(OWNER), "Content-Type": "application/json" },
          setupRequest: (request) => ({ ...request, body: body((n += 1)) }),
        },
      ],
    });
  try {
    // As the other workloads: a warm-up (subscribers open) whose figures are discarded, once its events arrived.
    if (warmup > 0) {
      const warm = await load(warmup);
      if (subscribed) {
        await drain(subscribed, warm["2xx"] * perWrite);
        await subscribed.reset();
      }
    }
    const stopSampling = server.sampleRss();
    const serverCpu = cpuSeconds(server.pid);
    const benchCpu = process.cpuUsage();
    const result = await load(duration);
    const expected = result["2xx"] * perWrite;
    if (subscribed) await drain(subscribed, expected);
    const rssMb = stopSampling();
    const used = process.cpuUsage(benchCpu);
    const { events, latencies: sorted } = (await subscribed?.stop()) ?? { events: 0, latencies: [] };
    console.log(
      JSON.stringify({
        backend,
        subscribers: count,
        collectionReaders: Math.min(count, collectionReaders),
        grants,
        connections,
        duration,
        warmup,
        writesPerSecond: result.requests.average,
        writes2xx: result["2xx"],
        non2xx: result.non2xx,
        events,
        expectedEvents: expected,
        deliveryP50Ms: percentile(sorted, 50),
        deliveryP99Ms: percentile(sorted, 99),
        deliveryMaxMs: sorted.at(-1) ?? NaN,
        peakRssMb: rssMb,
        // Where the 2 cores went during the load and the drain (the box is shared: the rest is other work).
        serverCpuSeconds: Math.round((cpuSeconds(server.pid) - serverCpu) * 10) / 10,
        benchCpuSeconds: Math.round(((used.user + used.system) / 1e6) * 10) / 10,
      }),
    );
    return result.requests.average;
  } finally {
    await server.stop();
    if (profileDir) console.log(summarizeProfile(latestProfile(profileDir)));
  }
}

// Alternated, so that both sides see the same load of a shared box; the ratio is per pair.
const ratios: number[] = [];
for (let i = 0; i < repeat; i += 1) {
  const without = await run(0);
  ratios.push((await run(subscribers)) / without);
}
const sortedRatios = [...ratios].sort((a, b) => a - b);
console.log(
  JSON.stringify({
    w2RatioWithToWithout: ratios.map((r) => Math.round(r * 100) / 100),
    median: sortedRatios[Math.floor(ratios.length / 2)],
  }),
);
