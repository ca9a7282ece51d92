/**
 * W1 (one record read by its owner) signed in by an account against W1 with Basic Auth, in the
 * same run: the accounts policy at its default scrypt cost (2^17) must stay within 0.9x of Basic
 * Auth, which is only possible because a verified credential is remembered in the cache backend,
 * and on PostgreSQL and Redis because each process memoises it (`account_local_cache_seconds`).
 * Never part of `npm test`.
 *
 *   npm run build && node dist/bench/accounts.js [--backend memory|postgresql|redis] [--connections 32]
 *        [--duration 5] [--warmup 3] [--rounds 6] [--postgres URL] [--redis URL]
 *
 * One server per policy, side by side; `--rounds` slices of `--duration` seconds measured in
 * alternation (A B, B A, ...), and the medians compared. `redis`: records in PostgreSQL,
 * permissions and cache in Redis.
 */
import { fileURLToPath } from "node:url";
import { measure, type Measurement } from "./load.js";
import { api, authorization, baseServerSettings, BENCH_SECRET, databaseUrl, ensureDatabase, recordData } from "./seed.js";
import { cliOf, freePort, runNode, settingsEnv, startProcess, type ServerProcess } from "./server-process.js";
import type { Figure } from "./workloads.js";

const BUILD = fileURLToPath(new URL("../..", import.meta.url));
const ACCOUNT = "benchowner:bench-account-password-1";
const BASIC = "owner:bench-password";

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

const backend = option("backend", "memory");
const connections = Number(option("connections", "32"));
const load = { duration: Number(option("duration", "5")), warmup: Number(option("warmup", "3")) };
const rounds = Number(option("rounds", "6"));
const postgres = option("postgres", "postgresql://postgres@127.0.0.1:5432/test");
const redis = option("redis", "redis://127.0.0.1:6379/14");

function backendSettings(sql: string): Record<string, string> {
  switch (backend) {
    case "memory":
      return { storage_backend: "memory", permission_backend: "memory", cache_backend: "memory" };
    case "postgresql":
      return {
        storage_backend: "postgresql",
        storage_url: sql,
        permission_backend: "postgresql",
        permission_url: sql,
        cache_backend: "postgresql",
        cache_url: sql,
      };
    case "redis":
      return {
        storage_backend: "postgresql",
        storage_url: sql,
        permission_backend: "redis",
        permission_url: redis,
        permission_prefix: "tessera-bench-accounts:permission:",
        cache_backend: "redis",
        cache_url: redis,
        cache_prefix: "tessera-bench-accounts:cache:",
      };
    default:
      throw new Error(`unknown backend ${backend}`);
  }
}

/** A server with `policy` first in the chain, W1's record written by its owner, and the figure to measure. */
async function serve(policy: "basicauth" | "account", sql: string): Promise<{ server: ServerProcess; figure: Figure }> {
  const port = await freePort();
  const settings = {
    ...baseServerSettings(port),
    ...backendSettings(sql),
    userid_hmac_secret: BENCH_SECRET,
    "multiauth.policies": policy,
    resources: "articles:shareable",
    articles_create_principals: "system.Authenticated",
  };
  if (backend !== "memory") await runNode([cliOf(BUILD), "migrate"], BUILD, settingsEnv(settings));
  const server = await startProcess(
    { args: [cliOf(BUILD), "serve"], cwd: BUILD, env: settingsEnv(settings), readyPath: "/v1/__lbheartbeat__" },
    port,
  );
  const credentials = policy === "account" ? ACCOUNT : BASIC;
  if (policy === "account") {
    const [id, password] = ACCOUNT.split(":") as [string, string];
    const signUp = await fetch(`${server.url}/v1/accounts/${id}`, {
      method: "PUT",
      headers: { "Content-Type": "application/json", Authorization: authorization(ACCOUNT) },
      body: JSON.stringify({ data: { password } }),
    });
    if (![200, 201].includes(signUp.status)) throw new Error(`sign-up: ${signUp.status}`);
  }
  const put = await api(server.url, "PUT", `/articles/w1-${policy}`, credentials, { data: recordData(1) });
  if (![200, 201].includes(put.status)) throw new Error(`W1 set-up: ${put.status}`);
  const root = await api(server.url, "GET", "/", credentials);
  const user = (root.json as { user?: { id?: string } }).user?.id ?? "";
  if (!user.startsWith(policy === "account" ? "account:" : "basicauth:")) throw new Error(`W1 signed in as ${user}`);
  const figure: Figure = {
    label: `W1 ${policy}`,
    connections,
    requests: [{ method: "GET", path: `/v1/articles/w1-${policy}`, headers: { Authorization: authorization(credentials) } }],
  };
  return { server, figure };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

async function main(): Promise<void> {
  let sql = "";
  if (backend !== "memory") {
    await ensureDatabase(postgres, `tessera_bench_accounts_${backend}`);
    sql = databaseUrl(postgres, `tessera_bench_accounts_${backend}`);
  }
  // Both servers run side by side and are measured in alternation, slice after slice, so that a
  // busy machine slows both alike and the ratio stays meaningful.
  const servers = { basicauth: await serve("basicauth", sql), account: await serve("account", sql) };
  const figures: Record<"basicauth" | "account", Measurement[]> = { basicauth: [], account: [] };
  try {
    for (let round = 1; round <= rounds; round += 1) {
      for (const policy of round % 2 === 1 ? (["basicauth", "account"] as const) : (["account", "basicauth"] as const)) {
        const { server, figure } = servers[policy];
        const m = await measure(server, backend, figure, { duration: load.duration, warmup: round <= 2 ? load.warmup : 0 });
        figures[policy].push(m);
        const failures = m.errors + m.non2xx;
        console.log(
          `slice ${round} ${m.label} [${backend}, ${connections} conn]: ${Math.round(m.requestsPerSecond)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, failures ${failures}`,
        );
        if (failures > 0) throw new Error(`${m.label}: ${failures} failed requests (${JSON.stringify(m.statuses)})`);
      }
    }
  } finally {
    await servers.basicauth.server.stop();
    await servers.account.server.stop();
  }
  const basic = median(figures.basicauth.map((m) => m.requestsPerSecond));
  const accounts = median(figures.account.map((m) => m.requestsPerSecond));
  const ratio = accounts / basic;
  console.log(
    `median W1: basicauth ${Math.round(basic)} req/s, accounts ${Math.round(accounts)} req/s, ratio ${ratio.toFixed(3)} (goal >= 0.9)`,
  );
  if (ratio < 0.9) process.exitCode = 1;
}

await main();
