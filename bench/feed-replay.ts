/**
 * What a restricted replay of the live feed costs (issue 25, ADR 16): a reader opens a stream of
 * a shareable collection from position 0 (`_since=0`) and waits for the `: live` comment that ends
 * the replay. Collections of 10,000 and 100,000 records of which the reader reads 100 (every
 * N/100-th), and one it reads entirely, on PostgreSQL (records and ACEs in one database) and on
 * PostgreSQL storage with Redis permissions. Two builds are measured against the same data, one
 * server each, alternated round by round (which goes first alternates too): p50/p99 of each and
 * the ratio after / before. Each replay's event count is checked against what the reader reads.
 * Never part of `npm test`.
 *
 *   npm run build && node dist/bench/feed-replay.js --before <another built checkout>
 *     [--after <a built checkout, this one by default>] [--backends postgresql,redis]
 *     [--sizes 10000,100000] [--all 10000] [--rounds 10]
 */
import http from "node:http";
import path from "node:path";
import { flushRedisPermissions, percentile, seedReadableRecords } from "./readable-records-seed.js";
import { authorization, backendSettings, baseServerSettings, databaseUrl, principalOf, recreateDatabase, withClient } from "./seed.js";
import { cliOf, freePort, runNode, settingsEnv, startProcess, type ServerProcess } from "./server-process.js";
import { RedisPermissionStore } from "../src/adapters/redis/redis-permission-store.js";
import { argument } from "./argument.js";

const DATABASE = "tessera_bench_feed_replay";
const REDIS_PREFIX = "tessera-bench-feed-replay:";
const OWNER = "owner:feed-replay";
const READER = "reader:feed-replay";
/** Reads every record: the records the reader does not read still have a reader, as shared data does. */
const OTHER = "other:feed-replay";
const READ_BY_READER = 100;

type Backend = "postgresql" | "redis";
const backends = argument("backends", "postgresql,redis").split(",") as Backend[];
const sizes = argument("sizes", "10000,100000").split(",").map(Number);
const allSize = Number(argument("all", "10000"));
const rounds = Number(argument("rounds", "10"));
const server = argument("postgres", "postgresql://postgres@127.0.0.1:5432/postgres");
const redisUrl = argument("redis", "redis://127.0.0.1:6379/0");
const sql = databaseUrl(server, DATABASE);
const AFTER = path.resolve(argument("after", path.resolve(import.meta.dirname, "..", "..")));
const BEFORE = path.resolve(argument("before", AFTER));

interface Collection {
  readonly name: string;
  readonly records: number;
  /** How many of them the reader reads (every records/readable-th). */
  readonly readable: number;
}

const collections: Collection[] = [
  ...sizes.map((records) => ({ name: `replay${records}`, records, readable: Math.min(READ_BY_READER, records) })),
  ...(allSize > 0 ? [{ name: `replayall${allSize}`, records: allSize, readable: allSize }] : []),
];

function settings(backend: Backend, port: number): Record<string, string> {
  return {
    ...baseServerSettings(port),
    resources: collections.map((c) => `${c.name}:shareable`).join(" "),
    ...backendSettings(backend, sql, redisUrl),
    ...(backend === "redis" ? { permission_prefix: REDIS_PREFIX } : {}),
  };
}

/** Records r1…rN read by OTHER, written by OWNER; every (N/readable)-th also read by READER. */
async function seed(backend: Backend, collection: Collection): Promise<void> {
  const [owner, reader, other] = [principalOf(OWNER), principalOf(READER), principalOf(OTHER)];
  const { name, records, readable } = collection;
  const step = Math.floor(records / readable);
  await seedReadableRecords({
    backend,
    sql,
    redis: { url: redisUrl, prefix: REDIS_PREFIX },
    collection: name,
    count: records,
    reader: other,
    writer: owner,
  });
  const ids = Array.from({ length: readable }, (_, i) => `r${(i + 1) * step}`);
  if (backend === "postgresql") {
    await withClient(sql, (client) =>
      client.query(
        "INSERT INTO access_control_entries (object_id, permission, principal) SELECT '/' || $1 || '/' || id, 'read', $2 FROM unnest($3::text[]) id",
        [name, reader, ids],
      ),
    );
    return;
  }
  const store = new RedisPermissionStore({ url: redisUrl, prefix: REDIS_PREFIX, poolSize: 16, maxBacklog: -1 });
  try {
    let next = 0;
    const worker = async () => {
      while (next < ids.length) {
        const id = ids[next++];
        await store.replaceObjectPermissions(`/${name}/${id}`, { read: [other, reader], write: [owner] });
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
  } finally {
    await store.close();
  }
}

/** Milliseconds from opening the stream at `_since=0` to its `: live` comment; checks the events replayed. */
function replay(base: string, collection: Collection): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    let events = 0;
    let rest = "";
    const stream = http.get(
      `${base}/v1/${collection.name}?_since=0`,
      { headers: { Accept: "text/event-stream", Authorization: authorization(READER) } },
      (response) => {
        if (response.statusCode !== 200) {
          reject(new Error(`${collection.name}: ${response.statusCode}`));
          response.resume();
          return;
        }
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          rest += chunk;
          const end = rest.lastIndexOf("\n\n");
          if (end < 0) return;
          const blocks = rest.slice(0, end).split("\n\n");
          rest = rest.slice(end + 2);
          for (const block of blocks) {
            const lines = block.split("\n");
            if (lines.some((line) => line.startsWith("data: "))) events += 1;
            if (lines.includes(": live")) {
              const elapsed = performance.now() - start;
              stream.destroy();
              if (events !== collection.readable)
                reject(new Error(`${collection.name}: replayed ${events} events, expected ${collection.readable}`));
              else resolve(elapsed);
              return;
            }
          }
        });
        response.on("error", () => undefined);
      },
    );
    stream.on("error", (error) => reject(error));
  });
}

async function main(): Promise<void> {
  const rows: string[] = [];
  for (const backend of backends) {
    await recreateDatabase(server, DATABASE);
    if (backend === "redis") await flushRedisPermissions(redisUrl, REDIS_PREFIX);
    await runNode([cliOf(AFTER), "migrate"], AFTER, settingsEnv(settings(backend, 0)));
    for (const collection of collections) {
      const started = Date.now();
      await seed(backend, collection);
      console.log(
        `${backend}: seeded ${collection.name} (${collection.readable} of ${collection.records} readable) in ${Date.now() - started} ms`,
      );
    }
    await withClient(sql, (client) => client.query("VACUUM ANALYZE"));
    const servers: { label: string; process: ServerProcess }[] = [];
    try {
      for (const [label, build] of [
        ["before", BEFORE],
        ["after", AFTER],
      ] as const) {
        const port = await freePort();
        const process_ = await startProcess(
          { args: [cliOf(build), "serve"], cwd: build, env: settingsEnv(settings(backend, port)), readyPath: "/v1/__lbheartbeat__" },
          port,
        );
        servers.push({ label, process: process_ });
      }
      for (const collection of collections) {
        const times = new Map<string, number[]>(servers.map((s) => [s.label, []]));
        for (let round = -1; round < rounds; round++) {
          const order = round % 2 === 0 ? servers : [...servers].reverse();
          for (const { label, process: p } of order) {
            const elapsed = await replay(p.url, collection);
            if (round >= 0) times.get(label)?.push(elapsed); // round -1 warms up
          }
        }
        const sorted = (label: string) => (times.get(label) ?? []).sort((a, b) => a - b);
        const [before, after] = [sorted("before"), sorted("after")];
        const fmt = (t: number[], p: number) => percentile(t, p).toFixed(1);
        const row = [
          backend === "redis" ? "PostgreSQL + Redis" : "PostgreSQL",
          collection.records,
          collection.readable,
          fmt(before, 50),
          fmt(before, 99),
          fmt(after, 50),
          fmt(after, 99),
          (percentile(after, 50) / percentile(before, 50)).toFixed(2),
        ].join(" | ");
        console.log(row);
        rows.push(row);
      }
    } finally {
      for (const { process: p } of servers) await p.stop();
    }
    if (backend === "redis") await flushRedisPermissions(redisUrl, REDIS_PREFIX);
  }
  console.log(`before: ${BEFORE}\nafter: ${AFTER}\nrounds: ${rounds} (alternated, one warm-up each)`);
  console.log("backends | records | readable | before p50 ms | p99 | after p50 ms | p99 | after / before p50");
  for (const row of rows) console.log(row);
}

await main();
