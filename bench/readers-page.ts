/**
 * What a readers page costs next to a GET of the same record, over a group of 20,000 members
 * (docs/benchmarks.md, "Readers page"). Per backend: a server in this process, the group built
 * through the code API (PermissionStore.addUserPrincipal, as an extension would), a record shared
 * with the group, its writer allowed to read the group's record `/groups/bench` (so the members
 * are shown). Then `--requests` rounds, each a GET of the record, a readers page of `_limit=1` and
 * one of `_limit=100`, one after the other over one keep-alive connection; p50/p99 of each and
 * their ratio to the GET measured in the same run. Never part of `npm test`.
 *
 *   npm run build && node dist/bench/readers-page.js [--backends memory,postgresql,redis] [--members 20000] [--requests 500]
 */
import { pino } from "pino";
import { startServer, type RunningServer } from "../src/bootstrap/server.js";
import { loadSettings } from "../src/bootstrap/settings.js";
import { TOKENS } from "../src/bootstrap/tokens.js";
import { argument } from "./argument.js";
import { percentile } from "./readable-records-seed.js";
import { authorization, backendSettings, baseServerSettings, databaseUrl, principalOf, recreateDatabase } from "./seed.js";
import { unlinkByPrefix } from "../src/adapters/redis/redis-connection.js";
import { Redis } from "ioredis";

const DATABASE = "tessera_bench_readers_page";
const REDIS_PREFIX = "tessera-bench-readers-page:";
const OWNER = "owner:readers-page";
const GROUP = "group:bench";

const backends = argument("backends", "memory,postgresql").split(",") as ("memory" | "postgresql" | "redis")[];
const members = Number(argument("members", "20000"));
const requests = Number(argument("requests", "500"));
const server = argument("postgres", "postgresql://postgres@127.0.0.1:5432/postgres");
const redisUrl = argument("redis", "redis://127.0.0.1:6379/0");
const sql = databaseUrl(server, DATABASE);

async function start(backend: "memory" | "postgresql" | "redis"): Promise<RunningServer> {
  if (backend !== "memory") await recreateDatabase(server, DATABASE);
  if (backend === "redis") {
    const client = new Redis(redisUrl);
    await unlinkByPrefix(client, REDIS_PREFIX);
    await client.quit();
  }
  const settings = {
    ...baseServerSettings(0),
    // The group's record lives in the built-in group resource (served with any permission backend).
    resources: "articles:shareable",
    articles_create_principals: "system.Authenticated",
    ...backendSettings(backend, sql, redisUrl),
    ...(backend === "redis" ? { permission_prefix: REDIS_PREFIX } : {}),
  };
  const env = Object.fromEntries(
    Object.entries(settings).map(([name, value]) => [`TESSERA_${name.toUpperCase().replace(/[.-]/g, "_")}`, value]),
  );
  const running = await startServer(loadSettings({ argv: [], env, defaultFile: false }), { logger: pino({ level: "warn" }) });
  await (await running.container.getAsync(TOKENS.Migrator)).migrate();
  return running;
}

/** The group of `members` (through the code API, 50 at a time), the record shared with it, the group readable by its writer. */
async function seed(running: RunningServer): Promise<void> {
  const permissions = await running.container.getAsync(TOKENS.PermissionStore);
  for (let start = 0; start < members; start += 50)
    await Promise.all(
      Array.from({ length: Math.min(50, members - start) }, (_, i) =>
        permissions.addUserPrincipal(`account:member${String(start + i).padStart(6, "0")}`, GROUP),
      ),
    );
  await permissions.addPrincipalToAce("/groups/bench", "read", principalOf(OWNER));
  const put = await fetch(`${running.url}/v1/articles/shared`, {
    method: "PUT",
    headers: { authorization: authorization(OWNER), "content-type": "application/json" },
    body: JSON.stringify({ data: { title: "shared" }, permissions: { read: [GROUP] } }),
  });
  if (put.status !== 201) throw new Error(`PUT answered ${put.status}`);
}

/** Milliseconds one GET takes, body read; fails on anything but 200. */
async function timed(url: string, check?: (body: { data: unknown[] }) => void): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, { headers: { authorization: authorization(OWNER) } });
  const body = (await response.json()) as { data: unknown[] };
  const elapsed = performance.now() - started;
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  check?.(body);
  return elapsed;
}

async function measure(backend: "memory" | "postgresql" | "redis"): Promise<void> {
  const running = await start(backend);
  try {
    const seeding = performance.now();
    await seed(running);
    const record = `${running.url}/v1/articles/shared`;
    const pages = (limit: number) => (body: { data: unknown[] }) => {
      if (body.data.length !== limit) throw new Error(`a page of ${body.data.length}, not ${limit}`);
    };
    const samples = { get: [] as number[], limit1: [] as number[], limit100: [] as number[] };
    for (let round = 0; round < requests + 50; round++) {
      const get = await timed(record);
      const one = await timed(`${record}/readers?_limit=1`, pages(1));
      const hundred = await timed(`${record}/readers?_limit=100`, pages(100));
      if (round < 50) continue; // warm-up: plans, pools, JIT
      samples.get.push(get);
      samples.limit1.push(one);
      samples.limit100.push(hundred);
    }
    const stats = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
    };
    const get = stats(samples.get);
    const line = (name: string, values: number[]) => {
      const s = stats(values);
      return `  ${name.padEnd(18)} p50 ${s.p50.toFixed(2)} ms  p99 ${s.p99.toFixed(2)} ms  ×GET p50 ${(s.p50 / get.p50).toFixed(2)}  p99 ${(s.p99 / get.p99).toFixed(2)}`;
    };
    console.log(`${backend}: ${members} members (seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s), ${requests} rounds`);
    console.log(line("GET", samples.get));
    console.log(line("readers _limit=1", samples.limit1));
    console.log(line("readers _limit=100", samples.limit100));
  } finally {
    await running.stop();
  }
}

for (const backend of backends) await measure(backend);
