/**
 * Issue 29's workload over HTTP: what a restricted `_since` with nothing new, and the delivery of
 * a write to a live-feed subscriber, cost as the records the caller may read grow: 100 / 10,000 /
 * 100,000 records readable by the reader, one shareable collection per size, on PostgreSQL
 * (records and ACEs in one database) and on PostgreSQL storage with Redis permissions. Per size:
 * the p50/p99 of `GET /v1/<collection>?_since=<ETag>` (empty answer), and of the time from
 * sending a create shared with the reader to its event's arrival on the reader's stream (one
 * write at a time). Prints each figure's ratio to the smallest size, measured in the same run
 * (the machine may be shared: compare the ratios, not the milliseconds). Never part of `npm test`.
 *
 *   npm run build && node dist/bench/since-feed-readable.js [--backends postgresql,redis]
 *     [--sizes 100,10000,100000] [--rounds 100] [--writes 50] [--build <another built checkout>]
 */
import http from "node:http";
import path from "node:path";
import { flushRedisPermissions, percentile, seedReadableRecords } from "./readable-records-seed.js";
import { authorization, backendSettings, baseServerSettings, databaseUrl, principalOf, recreateDatabase, withClient } from "./seed.js";
import { cliOf, freePort, runNode, settingsEnv, startProcess } from "./server-process.js";
import { argument } from "./argument.js";

const DATABASE = "tessera_bench_since_feed";
const REDIS_PREFIX = "tessera-bench-since-feed:";
const OWNER = "owner:since-feed";
const READER = "reader:since-feed";

const backends = argument("backends", "postgresql,redis").split(",") as ("postgresql" | "redis")[];
const sizes = argument("sizes", "100,10000,100000").split(",").map(Number);
const rounds = Number(argument("rounds", "100"));
const writes = Number(argument("writes", "50"));
const server = argument("postgres", "postgresql://postgres@127.0.0.1:5432/postgres");
const redisUrl = argument("redis", "redis://127.0.0.1:6379/0");
const sql = databaseUrl(server, DATABASE);
/** The build whose server is measured (another checkout's, to compare): this one by default. */
const BUILD = path.resolve(argument("build", path.resolve(import.meta.dirname, "..", "..")));
const collectionOf = (size: number) => `since${size}`;

function settings(backend: "postgresql" | "redis", port: number): Record<string, string> {
  return {
    ...baseServerSettings(port),
    resources: sizes.map((size) => `${collectionOf(size)}:shareable`).join(" "),
    ...Object.fromEntries(sizes.map((size) => [`${collectionOf(size)}_create_principals`, "system.Authenticated"])),
    ...backendSettings(backend, sql, redisUrl),
    ...(backend === "redis" ? { permission_prefix: REDIS_PREFIX } : {}),
  };
}

/** `size` records readable by the reader (and written by the owner), at timestamps in the past. */
function seed(backend: "postgresql" | "redis", size: number): Promise<void> {
  const [writer, reader] = [principalOf(OWNER), principalOf(READER)];
  return seedReadableRecords({
    backend,
    sql,
    redis: { url: redisUrl, prefix: REDIS_PREFIX },
    collection: collectionOf(size),
    count: size,
    reader,
    writer,
  });
}

async function flushRedis(): Promise<void> {
  await flushRedisPermissions(redisUrl, REDIS_PREFIX);
}

async function request(base: string, method: string, url: string, credentials: string, body?: unknown) {
  const response = await fetch(`${base}/v1${url}`, {
    method,
    headers: { Authorization: authorization(credentials), ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 400) throw new Error(`${method} ${url}: ${response.status} ${text.slice(0, 200)}`);
  return { etag: response.headers.get("etag"), json: JSON.parse(text) as { data: unknown[] } };
}

/** p50/p99 (ms) of an empty restricted `_since` at the collection's ETag. */
async function sinceTimes(base: string, collection: string): Promise<number[]> {
  const first = await request(base, "GET", `/${collection}?_limit=1`, READER);
  const position = (first.etag ?? "").replace(/"/g, "");
  const times: number[] = [];
  for (let i = 0; i < rounds + 10; i++) {
    const start = process.hrtime.bigint();
    const answer = await request(base, "GET", `/${collection}?_since=${position}`, READER);
    if (i >= 10) times.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (answer.json.data.length !== 0) throw new Error(`an empty _since answered ${answer.json.data.length} records`);
  }
  return times.sort((a, b) => a - b);
}

/** p50/p99 (ms) from sending a create shared with the reader to its event on the reader's stream. */
async function deliveryTimes(base: string, collection: string): Promise<number[]> {
  const arrived = new Map<string, (at: number) => void>();
  let live: () => void = () => undefined;
  const isLive = new Promise<void>((resolve) => (live = resolve));
  const stream = http.get(
    `${base}/v1/${collection}`,
    { headers: { Accept: "text/event-stream", Authorization: authorization(READER) } },
    (response) => {
      response.setEncoding("utf8");
      let rest = "";
      response.on("data", (chunk: string) => {
        rest += chunk;
        if (rest.includes(": live")) live();
        for (const match of rest.matchAll(/"id":"(w\d+)"/g)) arrived.get(match[1] ?? "")?.(performance.now());
        rest = rest.slice(Math.max(0, rest.lastIndexOf("\n\n")));
      });
      response.on("error", () => undefined);
    },
  );
  stream.on("error", () => undefined);
  await isLive;
  const times: number[] = [];
  for (let i = 0; i < writes + 5; i++) {
    const id = `w${i}`;
    const delivered = new Promise<number>((resolve) => arrived.set(id, resolve));
    const start = performance.now();
    await request(base, "POST", `/${collection}`, OWNER, { data: { id }, permissions: { read: [principalOf(READER)] } });
    const at = await delivered;
    if (i >= 5) times.push(at - start);
  }
  stream.destroy();
  return times.sort((a, b) => a - b);
}

async function main(): Promise<void> {
  const rows: string[] = [];
  for (const backend of backends) {
    await recreateDatabase(server, DATABASE);
    if (backend === "redis") await flushRedis();
    await runNode([cliOf(BUILD), "migrate"], BUILD, settingsEnv(settings(backend, 0)));
    for (const size of sizes) {
      const started = Date.now();
      await seed(backend, size);
      console.log(`${backend}: seeded ${size} readable records in ${Date.now() - started} ms`);
    }
    await withClient(sql, (client) => client.query("VACUUM ANALYZE"));
    const port = await freePort();
    const process_ = await startProcess(
      { args: [cliOf(BUILD), "serve"], cwd: BUILD, env: settingsEnv(settings(backend, port)), readyPath: "/v1/__lbheartbeat__" },
      port,
    );
    try {
      const measured: { size: number; since: number[]; delivery: number[] }[] = [];
      for (const size of sizes) {
        const since = await sinceTimes(process_.url, collectionOf(size));
        const delivery = await deliveryTimes(process_.url, collectionOf(size));
        measured.push({ size, since, delivery });
      }
      const [first] = measured;
      for (const m of measured) {
        const ratio = (a: number[], b: number[] | undefined) => (percentile(a, 50) / percentile(b ?? a, 50)).toFixed(2);
        rows.push(
          [
            backend === "redis" ? "PostgreSQL + Redis" : "PostgreSQL",
            m.size,
            percentile(m.since, 50).toFixed(2),
            percentile(m.since, 99).toFixed(2),
            ratio(m.since, first?.since),
            percentile(m.delivery, 50).toFixed(1),
            percentile(m.delivery, 99).toFixed(1),
            ratio(m.delivery, first?.delivery),
          ].join(" | "),
        );
      }
    } finally {
      await process_.stop();
    }
    if (backend === "redis") await flushRedis();
  }
  console.log("backends | readable | _since p50 ms | p99 | p50 / smallest | delivery p50 ms | p99 | p50 / smallest");
  for (const row of rows) console.log(row);
}

await main();
