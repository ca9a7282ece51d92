/**
 * Account sign-in under a burst of guesses, on one `tessera serve` process with accounts on
 * (`multiauth.policies = account`). Never part of `npm test`.
 *
 *   npm run build && node dist/bench/sign-in-burst.js [--rounds 3] [--cost 17]
 *        [--backend memory|postgresql|redis] [--compare A B] [--burst 30] [--owner-delay-ms 100]
 *        [--connections 32] [--duration 5] [--warmup 2] [--sign-ins 24] [--hash-connections 8]
 *        [--max-minutes N] [--postgres URL] [--database NAME] [--redis URL]
 *
 * Each round starts a fresh server (a throttled address or account must not carry over; on
 * PostgreSQL a freshly created database, on Redis a fresh key prefix) with
 * `trusted_proxies = 127.0.0.1`, so that `X-Forwarded-For` names the client, and then:
 *   1. signs up `victim` and `owner` (each sign-up is a hash), fires `--burst` concurrent
 *      `GET /v1/accounts/victim` with distinct wrong passwords from 203.0.113.66 (distinct: the
 *      same wrong password twice would share one hash), and `--owner-delay-ms` later
 *      `GET /v1/accounts/owner` with the right password from 198.51.100.7: a credential never
 *      verified before, so it needs a hash too. Reports the owner's wait and status and the
 *      statuses of the burst (target: the owner waits <= 2 s);
 *   2. the server's CPU (user + system, /proc) from the first request of the burst until every
 *      answer, the owner's included, arrived;
 *   3. signed-in GETs of the owner's account with its now remembered credential (the steady
 *      state; `--connections`, `--warmup` + `--duration` s), then sign-ins that each need a hash:
 *      `--sign-ins` accounts signed up first, each signing in once from an address of its own
 *      (`--hash-connections` connections; the rate is answers over the time from the first request
 *      to the last answer).
 *
 * `--compare A B`: A and B are build directories holding a compiled dist/ (e.g. a git worktree
 * of another commit, built there), started as `bench/run.ts` starts them; rounds alternate A, B,
 * and each figure's median is printed side by side with the ratio B/A. Every build runs from a
 * private copy of its dist/ (server-process.ts: a rebuild meanwhile cannot break the run). All
 * traffic goes to 127.0.0.1; every request has a time limit, and the whole run `--max-minutes`
 * (default 15 per round and build), after which it stops its server and exits.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { request } from "node:http";
import path from "node:path";
import { Redis } from "ioredis";
import type { RequestSpec } from "autocannon";
import { argument, argumentPair } from "./argument.js";
import { cpuMs } from "./cpu-time.js";
import { measure, type Measurement } from "./load.js";
import { median } from "./report.js";
import { authorization, backendSettings, baseServerSettings, databaseUrl, recreateDatabase } from "./seed.js";
import {
  cliOf,
  freePort,
  removeSnapshot,
  runNode,
  settingsEnv,
  snapshotBuild,
  startProcess,
  type ServerProcess,
} from "./server-process.js";

const THIS_BUILD = path.resolve(import.meta.dirname, "..", "..");
const PROXY = "127.0.0.1";
const ATTACKER = "203.0.113.66";
const OWNER_ADDRESS = "198.51.100.7";
const VICTIM = { id: "victim", password: "victim-right-password-1" };
const OWNER = { id: "owner", password: "owner-right-password-1" };
/** Time limits: a set-up request (a sign-up waits for a hash), a request of the burst or the owner's. */
const SETUP_TIMEOUT_MS = 300_000;
const BURST_TIMEOUT_MS = 600_000;

type Backend = "memory" | "postgresql" | "redis";

function count(name: string, fallback: number, min = 1): number {
  const value = Number(argument(name, String(fallback)));
  if (!Number.isSafeInteger(value) || value < min) throw new Error(`--${name} must be an integer >= ${min}`);
  return value;
}

const rounds = count("rounds", 3);
const cost = count("cost", 17);
const backend = argument("backend", "memory") as Backend;
if (!["memory", "postgresql", "redis"].includes(backend)) throw new Error(`--backend: memory, postgresql or redis (got ${backend})`);
const burst = count("burst", 30);
const ownerDelayMs = count("owner-delay-ms", 100, 0);
const connections = count("connections", 32);
const load = { duration: count("duration", 5), warmup: count("warmup", 2, 0) };
const signIns = count("sign-ins", 24);
const hashConnections = Math.min(count("hash-connections", 8), signIns);
const postgres = argument("postgres", process.env.TESSERA_BENCH_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres");
const database = argument("database", "tessera_bench_sign_in_burst");
const redisUrl = argument("redis", "redis://127.0.0.1:6379/3");
const compare = argumentPair("compare");
const maxMinutes = count("max-minutes", 15 * rounds * (compare ? 2 : 1));

interface Build {
  /** As given on the command line (or "this build"). */
  readonly name: string;
  readonly dir: string;
  /** The private copy servers run from. */
  readonly copy: string;
}

interface RoundFigures {
  readonly ownerMs: number;
  readonly ownerStatus: number;
  /** Burst answers by status; 0: no answer (connection error or time limit). */
  readonly burstStatuses: ReadonlyMap<number, number>;
  /** From the first request of the burst to the last answer (the owner's included). */
  readonly lastAnswerMs: number;
  readonly burstCpuS: number;
  readonly remembered: Measurement;
  readonly hashed: Measurement;
}

/** The build's commit, for the log. */
function revision(dir: string): string {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      cwd: dir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    return "unknown revision";
  }
}

function log(text: string): void {
  process.stderr.write(`# ${text}\n`);
}

let serial = 0;
/** The server under test, stopped by the time limit or a failure. */
let running: ServerProcess | undefined;
/** The private copies of the builds, removed at the end. */
const copies: string[] = [];

/** A fresh server of `build` with accounts on, and what to do once done with it. */
async function startServer(build: Build): Promise<{ server: ServerProcess; sqlUrl: string | undefined; cleanup: () => Promise<void> }> {
  serial += 1;
  const port = await freePort();
  const sqlUrl = backend === "memory" ? undefined : databaseUrl(postgres, database);
  const prefix = `tessera-bench-sign-in-burst:${process.pid}:${serial}:`;
  const cache: Record<string, string> =
    backend === "memory"
      ? { cache_backend: "memory" }
      : backend === "postgresql"
        ? { cache_backend: "postgresql", cache_url: sqlUrl ?? "" }
        : { cache_backend: "redis", cache_url: redisUrl, cache_prefix: `${prefix}cache:`, permission_prefix: `${prefix}permission:` };
  const settings: Record<string, string> = {
    ...baseServerSettings(port),
    ...backendSettings(backend, sqlUrl ?? "", redisUrl),
    ...cache,
    "multiauth.policies": "account",
    account_scrypt_cost: String(cost),
    trusted_proxies: PROXY,
  };
  if (sqlUrl !== undefined) {
    await recreateDatabase(postgres, database);
    await runNode([cliOf(build.copy), "migrate"], build.copy, settingsEnv(settings));
  }
  const server = await startProcess(
    { args: [cliOf(build.copy), "serve"], cwd: build.copy, env: settingsEnv(settings), readyPath: "/v1/__lbheartbeat__" },
    port,
  );
  running = server;
  return {
    server,
    sqlUrl,
    cleanup: async () => {
      await server.stop();
      running = undefined;
      if (backend === "redis") await deleteKeys(prefix);
    },
  };
}

/** The keys a Redis run left under its prefix. */
async function deleteKeys(prefix: string): Promise<void> {
  const client = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
  try {
    await client.connect();
    for await (const keys of client.scanStream({ match: `${prefix}*`, count: 1000 }) as AsyncIterable<string[]>)
      if (keys.length > 0) await client.del(...keys);
  } finally {
    client.disconnect();
  }
}

/** `GET path` on a new connection from the proxy, for the client `forwardedFor`: status (0: no answer) and milliseconds to the end of the answer. */
function timedGet(
  server: ServerProcess,
  target: string,
  credentials: string,
  forwardedFor: string,
  timeoutMs: number,
): Promise<{ status: number; ms: number }> {
  const { hostname, port } = new URL(server.url);
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(
      {
        host: hostname,
        port: Number(port),
        path: target,
        agent: false,
        timeout: timeoutMs,
        headers: { Authorization: authorization(credentials), "X-Forwarded-For": forwardedFor },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
        res.on("error", () => resolve({ status: 0, ms: performance.now() - started }));
      },
    );
    req.on("timeout", () => req.destroy(new Error("time limit")));
    req.on("error", () => resolve({ status: 0, ms: performance.now() - started }));
    req.end();
  });
}

/** Signs up `id` (no Authorization: nothing to verify, so the sign-up's hash is its only one). */
async function signUp(server: ServerProcess, id: string, password: string): Promise<void> {
  const response = await fetch(`${server.url}/v1/accounts/${id}`, {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ data: { password } }),
    signal: AbortSignal.timeout(SETUP_TIMEOUT_MS),
  });
  await response.arrayBuffer();
  if (response.status !== 201) throw new Error(`sign-up of ${id}: ${response.status}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function burstAndOwner(
  server: ServerProcess,
): Promise<Pick<RoundFigures, "ownerMs" | "ownerStatus" | "burstStatuses" | "lastAnswerMs" | "burstCpuS">> {
  await signUp(server, VICTIM.id, VICTIM.password);
  await signUp(server, OWNER.id, OWNER.password);
  const cpuBefore = cpuMs(server.pid);
  const started = performance.now();
  const guesses = Array.from({ length: burst }, (_, i) =>
    timedGet(server, `/v1/accounts/${VICTIM.id}`, `${VICTIM.id}:wrong-password-${i}`, ATTACKER, BURST_TIMEOUT_MS),
  );
  await sleep(ownerDelayMs);
  const owner = await timedGet(server, `/v1/accounts/${OWNER.id}`, `${OWNER.id}:${OWNER.password}`, OWNER_ADDRESS, BURST_TIMEOUT_MS);
  const answers = await Promise.all(guesses);
  const lastAnswerMs = performance.now() - started;
  const burstCpuS = (cpuMs(server.pid) - cpuBefore) / 1000;
  const burstStatuses = new Map<number, number>();
  for (const { status } of answers) burstStatuses.set(status, (burstStatuses.get(status) ?? 0) + 1);
  return { ownerMs: owner.ms, ownerStatus: owner.status, burstStatuses, lastAnswerMs, burstCpuS };
}

/** Signed-in GETs with the owner's credential, remembered since its sign-in (the steady state). */
async function rememberedSignIns(server: ServerProcess, sqlUrl: string | undefined): Promise<Measurement> {
  const credentials = `${OWNER.id}:${OWNER.password}`;
  const check = await fetch(`${server.url}/v1/accounts/${OWNER.id}`, {
    headers: { Authorization: authorization(credentials) },
    signal: AbortSignal.timeout(SETUP_TIMEOUT_MS),
  });
  await check.arrayBuffer();
  if (check.status !== 200) throw new Error(`the owner's signed-in GET answered ${check.status}`);
  const figure = {
    label: "remembered",
    connections,
    requests: [{ method: "GET", path: `/v1/accounts/${OWNER.id}`, headers: { Authorization: authorization(credentials) } }],
  };
  return measure(server, backend, figure, load, sqlUrl);
}

/** Sign-ins that each need a hash: `signIns` fresh accounts, each signing in once. */
async function hashedSignIns(server: ServerProcess, sqlUrl: string | undefined): Promise<Measurement> {
  const accounts = Array.from({ length: signIns }, (_, i) => ({ id: `member-${i}`, password: `member-password-${i}` }));
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < accounts.length; i = next++) {
      const account = accounts[i];
      if (account) await signUp(server, account.id, account.password);
    }
  };
  await Promise.all([worker(), worker()]); // the hasher runs two at once
  let handedOut = 0;
  let first = 0;
  let last = 0;
  const request: RequestSpec = {
    method: "GET",
    setupRequest: (spec) => {
      if (handedOut === 0) first = performance.now();
      const account = accounts[handedOut % accounts.length] ?? { id: "", password: "" };
      handedOut += 1;
      return {
        ...spec,
        path: `/v1/accounts/${account.id}`,
        // Each member from an address of its own, as separate people sign in (one address's checks take turns).
        headers: {
          Authorization: authorization(`${account.id}:${account.password}`),
          "X-Forwarded-For": `198.18.${handedOut >> 8}.${handedOut & 255}`,
        },
      };
    },
    onResponse: () => {
      last = performance.now();
    },
  };
  const figure = { label: "hash needed", connections: hashConnections, requests: [request] };
  const measured = await measure(server, backend, figure, { duration: 0, warmup: 0, amount: signIns }, sqlUrl);
  if (handedOut !== signIns) throw new Error(`${handedOut} sign-ins sent for ${signIns} accounts: some were not a first sign-in`);
  // autocannon's rate is a mean of per-second counts, and its run ends on the tick after the last
  // answer: at a few sign-ins per second, the time from the first request to the last answer is exact.
  const seconds = (last - first) / 1000;
  return { ...measured, requestsPerSecond: seconds > 0 ? measured.total / seconds : NaN };
}

async function round(build: Build): Promise<RoundFigures> {
  const { server, sqlUrl, cleanup } = await startServer(build);
  try {
    const burstFigures = await burstAndOwner(server);
    const remembered = await rememberedSignIns(server, sqlUrl);
    const hashed = await hashedSignIns(server, sqlUrl);
    return { ...burstFigures, remembered, hashed };
  } finally {
    await cleanup();
  }
}

function statusText(statuses: ReadonlyMap<number, number>): string {
  return [...statuses]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status === 0 ? "no answer" : status}×${n}`)
    .join(" ");
}

function failures(m: Measurement): string {
  const parts = Object.entries(m.statuses).map(([code, n]) => `${code}×${n}`);
  if (m.errors > 0) parts.push(`errors×${m.errors}`);
  return parts.length > 0 ? `, failed: ${parts.join(" ")}` : "";
}

function roundLine(label: string, r: RoundFigures): string {
  return (
    `${label}: owner ${r.ownerStatus === 0 ? "no answer" : r.ownerStatus} after ${(r.ownerMs / 1000).toFixed(2)} s; ` +
    `burst ${statusText(r.burstStatuses)}, last answer ${(r.lastAnswerMs / 1000).toFixed(2)} s, server CPU ${r.burstCpuS.toFixed(2)} s; ` +
    `remembered ${Math.round(r.remembered.requestsPerSecond)} req/s (c=${r.remembered.connections}, p50 ${r.remembered.p50} ms, p99 ${r.remembered.p99} ms${failures(r.remembered)}); ` +
    `hash needed ${r.hashed.requestsPerSecond.toFixed(2)} sign-ins/s (c=${r.hashed.connections}, ${r.hashed.total} accounts, p50 ${r.hashed.p50} ms${failures(r.hashed)})`
  );
}

/** The figures compared, each a number per round (medians printed). */
const FIGURES: readonly { label: string; digits: number; of: (r: RoundFigures) => number }[] = [
  { label: "owner wait, s (target <= 2)", digits: 2, of: (r) => r.ownerMs / 1000 },
  { label: "burst answered 401", digits: 0, of: (r) => r.burstStatuses.get(401) ?? 0 },
  { label: "burst answered 429", digits: 0, of: (r) => r.burstStatuses.get(429) ?? 0 },
  { label: "burst answered 503", digits: 0, of: (r) => r.burstStatuses.get(503) ?? 0 },
  {
    label: "burst, other or no answer",
    digits: 0,
    of: (r) => [...r.burstStatuses].filter(([s]) => ![401, 429, 503].includes(s)).reduce((n, [, c]) => n + c, 0),
  },
  { label: "burst, last answer, s", digits: 2, of: (r) => r.lastAnswerMs / 1000 },
  { label: "burst, server CPU, s", digits: 2, of: (r) => r.burstCpuS },
  { label: `remembered, req/s (c=${connections})`, digits: 0, of: (r) => r.remembered.requestsPerSecond },
  { label: "remembered, p99 ms", digits: 0, of: (r) => r.remembered.p99 },
  { label: `hash needed, sign-ins/s (c=${hashConnections})`, digits: 2, of: (r) => r.hashed.requestsPerSecond },
  { label: "hash needed, p50 ms", digits: 0, of: (r) => r.hashed.p50 },
];

const COLUMN = 14;

function summary(builds: readonly Build[], results: readonly (readonly RoundFigures[])[]): string {
  const width = 38;
  const lines = builds.map((b, i) => `${String.fromCharCode(65 + i)} = ${b.name} (${revision(b.dir)})`);
  const columns = builds.map((_, i) => String.fromCharCode(65 + i).padStart(COLUMN));
  lines.push(`${`median of ${rounds} round(s)`.padEnd(width)}${columns.join("")}${builds.length === 2 ? "B/A".padStart(8) : ""}`);
  const ownerStatuses = results.map((list) =>
    list
      .map((r) => r.ownerStatus || "none")
      .join(",")
      .padStart(COLUMN),
  );
  lines.push(`${"owner status, each round".padEnd(width)}${ownerStatuses.join("")}`);
  for (const figure of FIGURES) {
    const values = results.map((list) => median(list.map(figure.of)));
    const cells = values.map((v) => v.toFixed(figure.digits).padStart(COLUMN));
    const [a, b] = values;
    const ratio = builds.length === 2 && a !== undefined && b !== undefined ? (a === 0 ? "-" : (b / a).toFixed(2)).padStart(8) : "";
    lines.push(`${figure.label.padEnd(width)}${cells.join("")}${ratio}`);
  }
  for (const [i, list] of results.entries()) {
    const wait = median(list.map((r) => r.ownerMs / 1000));
    lines.push(
      `${String.fromCharCode(65 + i)}: the owner waited ${wait.toFixed(2)} s (median): target <= 2 s ${wait <= 2 ? "met" : "not met"}`,
    );
  }
  return lines.join("\n");
}

function buildOf(spec: string): Build {
  const dir = path.resolve(spec);
  if (!existsSync(cliOf(dir))) throw new Error(`--compare: ${spec} holds no compiled ${path.relative(dir, cliOf(dir))}`);
  return { name: spec, dir, copy: "" };
}

async function main(): Promise<void> {
  const watchdog = setTimeout(() => {
    process.stderr.write(`sign-in-burst: stopped after ${maxMinutes} minutes (--max-minutes)\n`);
    void (running?.stop() ?? Promise.resolve()).finally(() => {
      for (const copy of copies) removeSnapshot(copy);
      process.exit(2);
    });
  }, maxMinutes * 60_000);
  watchdog.unref();
  const builds = (compare ? compare.map(buildOf) : [{ name: "this build", dir: THIS_BUILD, copy: "" }]).map((b) => {
    const copy = snapshotBuild(b.dir);
    copies.push(copy);
    return { ...b, copy };
  });
  try {
    log(
      `sign-in burst: ${builds.map((b) => `${b.name} (${revision(b.dir)})`).join(" vs ")}, ${backend}, account_scrypt_cost ${cost}, ` +
        `${burst} wrong passwords from ${ATTACKER} + the owner from ${OWNER_ADDRESS} ${ownerDelayMs} ms later, ${rounds} round(s), node ${process.version}`,
    );
    const results: RoundFigures[][] = builds.map(() => []);
    for (let r = 1; r <= rounds; r += 1) {
      for (const [i, build] of builds.entries()) {
        const figures = await round(build);
        results[i]?.push(figures);
        console.log(roundLine(`round ${r} ${builds.length > 1 ? String.fromCharCode(65 + i) : build.name}`, figures));
      }
    }
    console.log(summary(builds, results));
  } finally {
    clearTimeout(watchdog);
    for (const copy of copies) removeSnapshot(copy);
  }
}

main().then(
  () => process.exit(0),
  async (error: unknown) => {
    process.stderr.write(`sign-in-burst failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    await running?.stop();
    process.exit(1);
  },
);
