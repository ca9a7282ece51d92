/**
 * `explain` p99 (issue 26: at most 5 ms) beside a plain GET of the same record, measured in the
 * same run: a Tessera server on PostgreSQL (storage and permissions in one database) holding
 * 10,000 articles, read by a caller who holds the record only through nested groups (reader ->
 * group:l1 -> group:l2 -> group:l3, beside 97 other groups on 3 levels), so explain walks the
 * whole chain. The floors, in the same rounds: a GET by a user the record's ACL names directly
 * (one statement, no groups) and `__lbheartbeat__` (no statement). Requests go one at a time,
 * the four alternating, over one keep-alive connection (node:http) from this process to a
 * `serve` child process (its own event loop, as in production). Never part of `npm test`.
 *
 *   npm run build && node dist/bench/explain-p99.js [rounds=2000] [records=10000]
 */
import http from "node:http";
import path from "node:path";
import type pg from "pg";
import { authorization, backendSettings, baseServerSettings, databaseUrl, principalOf, recreateDatabase, withClient } from "./seed.js";
import { cliOf, freePort, runNode, settingsEnv, startProcess } from "./server-process.js";

const SERVER = process.env.TESSERA_BENCH_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const DATABASE = "tessera_bench_explain";
const READER = "reader:bench-password";
/** A user without groups, named by r2's ACL. */
const DIRECT = "direct:bench-password";
const BUILD = path.resolve(import.meta.dirname, "..", "..");
const sql = databaseUrl(SERVER, DATABASE);

function settings(port: number): Record<string, string> {
  return { ...baseServerSettings(port), resources: "articles:shareable", ...backendSettings("postgresql", sql) };
}

/** 10,000 records, each written by one of 1,000 owners; record r1 readable by group:l3 only; 100 groups on 3 levels. */
async function seed(client: pg.Client, records: number): Promise<void> {
  await client.query("TRUNCATE records, timestamps, access_control_entries, user_principals");
  await client.query(
    `INSERT INTO records (collection, parent_id, id, last_modified, data, deleted)
     SELECT 'articles', '', 'r' || g, 1700000000000 + g, jsonb_build_object('title', 'Article ' || g, 'n', g), FALSE
     FROM generate_series(1, $1::int) g`,
    [records],
  );
  await client.query("INSERT INTO timestamps VALUES ('articles', '', $1)", [1700000000000 + records]);
  await client.query(
    `INSERT INTO access_control_entries SELECT '/articles/r' || g, 'write', 'basicauth:owner' || (g % 1000) FROM generate_series(1, $1::int) g`,
    [records],
  );
  await client.query("INSERT INTO access_control_entries VALUES ('/articles/r1', 'read', 'group:l3')");
  await client.query("INSERT INTO access_control_entries VALUES ('/articles/r2', 'read', $1)", [principalOf(DIRECT)]);
  const reader = principalOf(READER);
  const links: [string, string][] = [
    [reader, "group:l1"],
    ["group:l1", "group:l2"],
    ["group:l2", "group:l3"],
  ];
  for (let i = 1; i <= 33; i++) links.push([reader, `group:a${i}`], [`group:a${i}`, `group:b${i}`], [`group:b${i}`, `group:c${i}`]);
  await client.query("INSERT INTO user_principals (user_id, principal) SELECT * FROM unnest($1::text[], $2::text[])", [
    links.map(([member]) => member),
    links.map(([, group]) => group),
  ]);
  await client.query("VACUUM ANALYZE records");
  await client.query("VACUUM ANALYZE access_control_entries");
  await client.query("VACUUM ANALYZE user_principals");
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** One keep-alive connection through node:http: undici's fetch costs the client a millisecond or more per request. */
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function get(url: string, authorization: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent, headers: { Authorization: authorization } }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      response.on("error", reject);
    });
    request.on("error", reject);
  });
}

async function timed(url: string, authorization: string, check: (body: { data: Record<string, unknown> }) => void): Promise<number> {
  const start = process.hrtime.bigint();
  const response = await get(url, authorization);
  const body = JSON.parse(response.text) as { data: Record<string, unknown> };
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${response.text}`);
  check(body);
  return ms;
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 2000);
  const records = Number(process.argv[3] ?? 10000);
  await recreateDatabase(SERVER, DATABASE);
  await runNode([cliOf(BUILD), "migrate"], BUILD, settingsEnv(settings(0)));
  await withClient(sql, (client) => seed(client, records));
  const port = await freePort();
  const server = await startProcess(
    { args: [cliOf(BUILD), "serve"], cwd: BUILD, env: settingsEnv(settings(port)), readyPath: "/v1/__lbheartbeat__" },
    port,
  );
  try {
    const reader = authorization(READER);
    const record = `${server.url}/v1/articles/r1`;
    const chain = [principalOf(READER), "group:l1", "group:l2", "group:l3"];
    const isRecord = (id: string) => (body: { data: Record<string, unknown> }) => {
      if (body.data.id !== id) throw new Error(`GET answered another record than ${id}`);
    };
    const isExplained = (body: { data: Record<string, unknown> }) => {
      const grants = body.data.grants as { principals: { chain?: string[] }[] }[];
      if (body.data.allowed !== true || JSON.stringify(grants[0]?.principals[0]?.chain) !== JSON.stringify(chain))
        throw new Error(`explain answered ${JSON.stringify(body.data)}`);
    };
    const requests: { label: string; send: () => Promise<number>; times: number[] }[] = [
      { label: "GET /v1/articles/r1 (through the groups)", send: () => timed(record, reader, isRecord("r1")), times: [] },
      { label: "GET /v1/articles/r1/explain", send: () => timed(`${record}/explain?permission=read`, reader, isExplained), times: [] },
      {
        label: "GET /v1/articles/r2 (named by its ACL)",
        send: () => timed(`${server.url}/v1/articles/r2`, authorization(DIRECT), isRecord("r2")),
        times: [],
      },
      { label: "GET /v1/__lbheartbeat__", send: () => timed(`${server.url}/v1/__lbheartbeat__`, reader, () => undefined), times: [] },
    ];
    for (let i = 0; i < 200; i++) for (const request of requests) await request.send();
    for (let i = 0; i < rounds; i++) for (const request of requests) request.times.push(await request.send());
    const sorted = requests.map(({ times }) => [...times].sort((a, b) => a - b));
    console.log(`${records} records, ${rounds} rounds; the reader holds r1 through reader -> group:l1 -> group:l2 -> group:l3`);
    console.log("request | median ms | p99 ms");
    requests.forEach(({ label }, i) =>
      console.log(`${label} | ${percentile(sorted[i]!, 50).toFixed(3)} | ${percentile(sorted[i]!, 99).toFixed(3)}`),
    );
    const [throughGroups, explained, named] = sorted as [number[], number[], number[]];
    const ratio = (a: readonly number[], b: readonly number[], p: number) => (percentile(a, p) / percentile(b, p)).toFixed(2);
    console.log(
      `explain / GET through the groups: median ${ratio(explained, throughGroups, 50)}, p99 ${ratio(explained, throughGroups, 99)}`,
    );
    console.log(`explain / GET named by the ACL: median ${ratio(explained, named, 50)}, p99 ${ratio(explained, named, 99)}`);
  } finally {
    agent.destroy();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
