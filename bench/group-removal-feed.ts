/**
 * Issue 26's group-change figure over HTTP: how long a group removal that takes 10,000 records
 * from one user takes to reach that user's open stream. One shareable collection of `--records`
 * records readable by `group:bench` only; the reader holds the group and keeps a stream open on a
 * `serve` process; this process, another one on the same database (as a tool or an extension
 * would), removes the reader from the group and adds them back, `--rounds` times. Per round: the
 * time from the start of the removal to the first and to the last of its `delete` events on the
 * stream (every record must arrive), then the same for the re-addition's `update` events.
 * Prints p50/p99. PostgreSQL storage with PostgreSQL (default) or Redis permissions. Never part
 * of `npm test`; `group_change_max_records` is raised to the record count.
 *
 *   npm run build && node dist/bench/group-removal-feed.js [--backend postgresql|redis] [--records 10000] [--rounds 20]
 */
import http from "node:http";
import path from "node:path";
import { buildContainer } from "../src/bootstrap/container.js";
import { loadSettings } from "../src/bootstrap/settings.js";
import { TOKENS } from "../src/bootstrap/tokens.js";
import { flushRedisPermissions, percentile, seedReadableRecords } from "./readable-records-seed.js";
import { authorization, backendSettings, baseServerSettings, databaseUrl, principalOf, recreateDatabase, withClient } from "./seed.js";
import { cliOf, freePort, runNode, settingsEnv, startProcess } from "./server-process.js";
import { argument } from "./argument.js";

const DATABASE = "tessera_bench_group_removal";
const REDIS_PREFIX = "tessera-bench-group-removal:";
const OWNER = "owner:group-removal";
const READER = "reader:group-removal";
const GROUP = "group:bench";
const COLLECTION = "grouped";

const backend = argument("backend", "postgresql") as "postgresql" | "redis";
const records = Number(argument("records", "10000"));
const rounds = Number(argument("rounds", "20"));
const server = argument("postgres", "postgresql://postgres@127.0.0.1:5432/postgres");
const redisUrl = argument("redis", "redis://127.0.0.1:6379/0");
const sql = databaseUrl(server, DATABASE);
const BUILD = path.resolve(import.meta.dirname, "..", "..");

function settings(port: number): Record<string, string> {
  return {
    ...baseServerSettings(port),
    resources: `${COLLECTION}:shareable`,
    group_change_max_records: String(records),
    ...backendSettings(backend, sql, redisUrl),
    ...(backend === "redis" ? { permission_prefix: REDIS_PREFIX } : {}),
  };
}

/** `records` records readable by the group only (written by the owner), at timestamps in the past. */
async function seed(): Promise<void> {
  if (backend === "redis") await flushRedisPermissions(redisUrl, REDIS_PREFIX);
  const redis = { url: redisUrl, prefix: REDIS_PREFIX };
  await seedReadableRecords({ backend, sql, redis, collection: COLLECTION, count: records, reader: GROUP, writer: principalOf(OWNER) });
}

/** The reader's stream: counts `delete` and `update` events per record as they arrive. */
function openStream(base: string): Promise<{ seen: (event: string) => number; close: () => void }> {
  const counts = new Map<string, number>();
  return new Promise((resolve, reject) => {
    const request = http.get(
      `${base}/v1/${COLLECTION}`,
      { headers: { Accept: "text/event-stream", Authorization: authorization(READER) } },
      (response) => {
        response.setEncoding("utf8");
        let rest = "";
        response.on("data", (chunk: string) => {
          rest += chunk;
          const blocks = rest.split("\n\n");
          rest = blocks.pop() ?? "";
          for (const block of blocks) {
            if (block.includes(": live")) resolve({ seen: (event) => counts.get(event) ?? 0, close: () => request.destroy() });
            const event = /^event: (\w+)$/m.exec(block)?.[1];
            if (event) counts.set(event, (counts.get(event) ?? 0) + 1);
          }
        });
        response.on("error", () => undefined);
      },
    );
    request.on("error", reject);
  });
}

/** Polls (every ms) until `count` events of `event` arrived; returns the times of the first and the last. */
async function arrival(seen: (event: string) => number, event: string, before: number, start: number): Promise<[number, number]> {
  let first: number | undefined;
  for (;;) {
    const now = seen(event) - before;
    if (now > 0 && first === undefined) first = performance.now() - start;
    if (now >= records) return [first ?? 0, performance.now() - start];
    if (performance.now() - start > 30_000) throw new Error(`only ${now} of ${records} ${event} events in 30 s`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function main(): Promise<void> {
  await recreateDatabase(server, DATABASE);
  await runNode([cliOf(BUILD), "migrate"], BUILD, settingsEnv(settings(0)));
  await seed();
  await withClient(sql, (client) => client.query("VACUUM ANALYZE"));
  const port = await freePort();
  const serving = await startProcess(
    { args: [cliOf(BUILD), "serve"], cwd: BUILD, env: settingsEnv(settings(port)), readyPath: "/v1/__lbheartbeat__" },
    port,
  );
  // This process changes the group as a tool would: through the membership use case, on the same database.
  const container = buildContainer(loadSettings({ argv: [], env: settingsEnv(settings(0)), defaultFile: false }));
  const memberships = await container.getAsync(TOKENS.Memberships);
  await container.getAsync(TOKENS.LiveFeed);
  const reader = principalOf(READER);
  try {
    await memberships.add(GROUP, [reader]);
    const stream = await openStream(serving.url);
    const removal: [number, number][] = [];
    const addition: [number, number][] = [];
    /** How long the removal call itself took (it returns once recorded and announced). */
    const calls: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const deletes = stream.seen("delete");
      let start = performance.now();
      await memberships.remove(GROUP, [reader]);
      calls.push(performance.now() - start);
      removal.push(await arrival(stream.seen, "delete", deletes, start));
      const updates = stream.seen("update");
      start = performance.now();
      await memberships.add(GROUP, [reader]);
      addition.push(await arrival(stream.seen, "update", updates, start));
    }
    stream.close();
    const show = (name: string, times: [number, number][]) => {
      const first = times.map((t) => t[0]).sort((a, b) => a - b);
      const last = times.map((t) => t[1]).sort((a, b) => a - b);
      console.log(
        `${name}: first event p50 ${percentile(first, 50).toFixed(0)} ms, p99 ${percentile(first, 99).toFixed(0)} ms; ` +
          `all ${records} events p50 ${percentile(last, 50).toFixed(0)} ms, p99 ${percentile(last, 99).toFixed(0)} ms (${times.length} rounds)`,
      );
    };
    console.log(`${backend === "redis" ? "PostgreSQL + Redis" : "PostgreSQL"}, ${records} records through ${GROUP}:`);
    const sortedCalls = calls.sort((a, b) => a - b);
    console.log(`removal call: p50 ${percentile(sortedCalls, 50).toFixed(0)} ms, p99 ${percentile(sortedCalls, 99).toFixed(0)} ms`);
    show("removal (delete)", removal);
    show("addition (update)", addition);
  } finally {
    await container.unbindAllAsync();
    await serving.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
