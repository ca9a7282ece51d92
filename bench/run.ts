/**
 * The benchmark harness (docs/benchmarks.md). Never part of `npm test`.
 *
 *   npm run bench -- [--workload W1,W3|all] [--backend memory,postgresql,redis|all]
 *                    [--connections 32] [--duration 10] [--warmup 3] [--sizes 10000,100000,1000000]
 *                    [--no-ceilings] [--profile] [--compare A B] [--rounds N] [--set name=value]...
 *                    [--postgres URL] [--database tessera_bench_harness] [--redis URL] [--json FILE]
 *                    [--peer parse] [--series N]
 *
 * Each (backend, workload) gets a fresh server child (`node dist/src/bootstrap/cli.js serve`).
 * `--compare A B`: A and B are build directories (holding a compiled dist/) or setting sets
 * (`name=value,name=value`, on this build); rounds alternate A, B, A, B… and the medians are compared.
 * Without --compare, `--rounds N` repeats the whole run and ends with the medians of every figure.
 * `--series N`: each figure is measured N times back to back on the same server (one warm-up), to
 * see a figure drift as tables grow (e.g. W2 for 5 minutes: --duration 60 --series 5).
 * `--peer parse`: W1, W2, W3 (cold and analyzed) and W5 on Tessera (PostgreSQL) and on Parse Server,
 * interleaved, with the ratio per workload and, after the ceilings (unless --no-ceilings), each
 * Tessera figure as a share of Koa hello (bench/peer-run.ts).
 * W1T, W3T, W4T, W5T: W1, W3, W4, W5 on Kinto's tree (bench/tree-workloads.ts); `--help` lists all.
 * W8A, W8B, W8I (`W8`: all three): the live feed at scale, PostgreSQL only, each with its ceiling
 * (bench/feed-scale.ts); their figures print as `name=value` lines, with medians over --rounds.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { measure, type LoadSettings, type Measurement } from "./load.js";
import { latestProfile, summarizeProfile } from "./profile.js";
import { runParsePeer } from "./peer-run.js";
import { comparison, header, line, medians } from "./report.js";
import { isFeedScale, runFeedScale, type ScaleContext } from "./feed-scale.js";
import { scaleLine, scaleMedians, type ScaleResult } from "./feed-scale-report.js";
import { backendSettings, baseServerSettings, databaseUrl, ensureDatabase } from "./seed.js";
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
import { collectionsFor, PREPARE, WORKLOADS, type BackendName, type FigureWorkload, type WorkloadName } from "./workloads.js";

const USAGE = `node dist/bench/run.js [options] (docs/benchmarks.md)
  --workload LIST     ${WORKLOADS.join(",")} or all (default all)
                      W1T, W3T, W4T, W5T: W1, W3, W4, W5 on a records list of Kinto's tree, by callers
                      whose permission comes from the collection's ACL ("coll"), a group of the bucket
                      named there ("group"), or for W4T also the bucket's ACL ("bucket"); W3T "record":
                      W3's reader, holding its 100 records one by one. W3T and W4T: PostgreSQL only.
                      Run them beside their flat workload for the ratio: --workload W1,W1T,W3,W3T,W5,W5T
                      W8 (= W8A,W8B,W8I): the live feed at scale, PostgreSQL only, fresh databases
                      <--database>_fan/_sel/_idle. W8A: N subscribers reading every write through a
                      group, at 10,000 deliveries/s and at the most each sustains, against a bare
                      node:http fan-out; then 100 users leave the group mid-run (exact deletes?).
                      W8B: writers at full speed, each write read by 30 of N; with 0, N/10, N
                      subscribed, N on a second process, N served by a bare process (the
                      ceiling); statements per write. W8I: idle streams, server RSS vs bare.
  --subscribers N     W8A/W8B subscribers (3000)   --idle-subscribers N   W8I streams (10000)
  --backend LIST      memory,postgresql,redis or all (default: those reachable)
  --connections N     (32; W4 and W4T: 1 and 8)   --duration S (10)   --warmup S (3)
  --sizes LIST        W4/W4T collection sizes (10000,100000,1000000)
  --rounds N          repeat, then print the medians    --series N   N figures back to back
  --compare A B       build dirs or name=value settings, alternated over --rounds (3)
  --set name=value    a server setting    --no-ceilings   --profile   --json FILE
  --postgres URL      --database NAME (tessera_bench_harness)   --redis URL   --peer parse`;

const THIS_BUILD = fileURLToPath(new URL("../..", import.meta.url));
/** This build's copy the servers run from (see snapshotBuild). */
let thisBuild = THIS_BUILD;
const BACKENDS: readonly BackendName[] = ["memory", "postgresql", "redis"];

interface Side {
  readonly name: string;
  readonly buildDir: string;
  readonly settings: Readonly<Record<string, string>>;
}

interface Options {
  workloads: WorkloadName[];
  backends: BackendName[];
  connections: number;
  sizes: number[];
  load: LoadSettings;
  ceilings: boolean;
  profile: boolean;
  compare: [string, string] | undefined;
  /** Default: 3 with --compare, else 1. */
  rounds: number | undefined;
  settings: Record<string, string>;
  postgres: string;
  database: string;
  redis: string;
  json: string | undefined;
  peer: "parse" | undefined;
  series: number;
  subscribers: number;
  idleSubscribers: number;
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = {
    workloads: [...WORKLOADS],
    backends: [],
    connections: 32,
    sizes: [10_000, 100_000, 1_000_000],
    load: { duration: 10, warmup: 3 },
    ceilings: true,
    profile: false,
    compare: undefined,
    rounds: undefined,
    settings: {},
    postgres: process.env.TESSERA_BENCH_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres",
    database: "tessera_bench_harness",
    redis: "redis://127.0.0.1:6379/3",
    json: undefined,
    peer: undefined,
    series: 1,
    subscribers: 3000,
    idleSubscribers: 10_000,
  };
  const list = (text: string) =>
    text
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  const number = (flag: string, text: string | undefined) => {
    const value = Number(text);
    if (!Number.isFinite(value) || value < 0) throw new Error(`${flag} needs a number, got ${text}`);
    return value;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${flag} needs a value`);
      return next;
    };
    switch (flag) {
      case "--help":
        console.log(USAGE);
        process.exit(0);
        break;
      case "--workload":
      case "--workloads": {
        const names = list(value().toUpperCase()).flatMap((n) => (n === "W8" ? ["W8A", "W8B", "W8I"] : [n]));
        options.workloads = names.includes("ALL")
          ? [...WORKLOADS]
          : names.map((n) => {
              if (!(WORKLOADS as readonly string[]).includes(n))
                throw new Error(`unknown workload ${n} (expected ${WORKLOADS.join(", ")})`);
              return n as WorkloadName;
            });
        break;
      }
      case "--backend":
      case "--backends": {
        const names = list(value());
        options.backends = names.includes("all")
          ? [...BACKENDS]
          : names.map((n) => {
              if (!(BACKENDS as readonly string[]).includes(n)) throw new Error(`unknown backend ${n} (expected ${BACKENDS.join(", ")})`);
              return n as BackendName;
            });
        break;
      }
      case "--connections":
        options.connections = number(flag, value());
        break;
      case "--duration":
        options.load = { ...options.load, duration: number(flag, value()) };
        break;
      case "--warmup":
        options.load = { ...options.load, warmup: number(flag, value()) };
        break;
      case "--sizes":
        options.sizes = list(value()).map((s) => number(flag, s));
        break;
      case "--no-ceilings":
        options.ceilings = false;
        break;
      case "--profile":
        options.profile = true;
        options.ceilings = false;
        break;
      case "--compare":
        options.compare = [value(), value()];
        options.ceilings = false;
        break;
      case "--rounds":
        options.rounds = number(flag, value());
        break;
      case "--set": {
        const [name = "", ...rest] = value().split("=");
        options.settings[name] = rest.join("=");
        break;
      }
      case "--postgres":
        options.postgres = value();
        break;
      case "--database":
        options.database = value();
        break;
      case "--redis":
        options.redis = value();
        break;
      case "--json":
        options.json = value();
        break;
      case "--subscribers":
        options.subscribers = Math.max(1, number(flag, value()));
        break;
      case "--idle-subscribers":
        options.idleSubscribers = Math.max(1, number(flag, value()));
        break;
      case "--series":
        options.series = Math.max(1, number(flag, value()));
        break;
      case "--peer": {
        const peer = value();
        if (peer !== "parse") throw new Error(`--peer: only "parse" is known (got ${peer})`);
        options.peer = peer;
        break;
      }
      default:
        throw new Error(`unknown option ${flag}`);
    }
  }
  return options;
}

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) || 6379 });
    socket.setTimeout(1000);
    socket.once("connect", () => resolve(true));
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => resolve(false));
    socket.once("close", () => socket.destroy());
    socket.once("connect", () => socket.end());
  });
}

/** A build directory, or `name=value,name=value` settings on this build. */
function sideOf(spec: string): Side {
  let isDir: boolean;
  try {
    isDir = statSync(spec).isDirectory();
  } catch {
    isDir = false;
  }
  if (isDir) return { name: spec, buildDir: path.resolve(spec), settings: {} };
  if (!spec.includes("=")) throw new Error(`--compare: "${spec}" is neither a directory nor name=value settings`);
  const settings: Record<string, string> = {};
  for (const pair of spec.split(",")) {
    const [name = "", ...rest] = pair.split("=");
    settings[name.trim()] = rest.join("=");
  }
  return { name: spec, buildDir: thisBuild, settings };
}

function serverSettings(backend: BackendName, port: number, options: Options, side: Side): Record<string, string> {
  const collections = collectionsFor(options.sizes);
  const settings: Record<string, string> = {
    ...baseServerSettings(port),
    resources: collections.map((c) => `${c}:shareable`).join(" "),
    ...backendSettings(backend, databaseUrl(options.postgres, options.database), options.redis),
  };
  for (const c of collections) settings[`${c}_create_principals`] = "system.Authenticated";
  return { ...settings, ...options.settings, ...side.settings };
}

const migrated = new Set<string>();

async function migrate(backend: BackendName, options: Options, side: Side): Promise<void> {
  if (backend === "memory" || migrated.has(side.buildDir)) return;
  await ensureDatabase(options.postgres, options.database);
  await runNode([cliOf(side.buildDir), "migrate"], side.buildDir, settingsEnv(serverSettings("postgresql", 0, options, side)));
  migrated.add(side.buildDir);
}

/** `abc1234` or `abc1234+dirty`: what the figures were measured on. */
function revision(): string {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: THIS_BUILD, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no", "--", "src"], {
      cwd: THIS_BUILD,
      encoding: "utf8",
    }).trim();
    return dirty ? `${head}+uncommitted src changes` : head;
  } catch {
    return "unknown revision";
  }
}

function log(text: string): void {
  process.stderr.write(`# ${text}\n`);
}

/** One workload on one backend: a fresh server, the workload's set-up, then each of its figures. */
async function runWorkload(
  workload: FigureWorkload,
  backend: BackendName,
  options: Options,
  side: Side,
  report: (m: Measurement) => void,
): Promise<void> {
  await migrate(backend, options, side);
  const profileDir = options.profile ? mkdtempSync(path.join(tmpdir(), "tessera-profile-")) : undefined;
  const port = await freePort();
  const server: ServerProcess = await startProcess(
    {
      args: [cliOf(side.buildDir), "serve"],
      cwd: side.buildDir,
      env: settingsEnv(serverSettings(backend, port, options, side)),
      nodeFlags: profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
      readyPath: "/v1/__lbheartbeat__",
    },
    port,
  );
  try {
    const sqlUrl = backend === "memory" ? undefined : databaseUrl(options.postgres, options.database);
    const figures = await PREPARE[workload]({
      base: server.url,
      backend,
      connections: options.connections,
      sizes: options.sizes,
      sqlUrl,
      redisUrl: backend === "redis" ? options.redis : undefined,
      log,
    });
    for (const figure of figures) {
      for (let i = 1; i <= options.series; i++) {
        const load = i === 1 ? options.load : { ...options.load, warmup: 0 };
        const measured = await measure(server, backend, figure, load, sqlUrl);
        report(options.series > 1 ? { ...measured, label: `${measured.label} #${i}` } : measured);
      }
    }
  } finally {
    await server.stop();
  }
  if (profileDir) console.log(summarizeProfile(latestProfile(profileDir)));
}

async function runCeilings(options: Options, report: (m: Measurement) => void): Promise<void> {
  for (const kind of ["http", "koa"]) {
    const port = await freePort();
    const server = await startProcess(
      { args: [path.join(thisBuild, "dist", "bench", "hello-servers.js"), kind, String(port)], cwd: thisBuild, env: {}, readyPath: "/" },
      port,
    );
    try {
      report(
        await measure(
          server,
          "-",
          { label: `${kind} hello`, connections: options.connections, requests: [{ method: "GET", path: "/" }] },
          options.load,
        ),
      );
    } finally {
      await server.stop();
    }
  }
}

/** Where W8 prints: each result as it comes, and every result of the run for the medians. */
type ScaleReport = (result: ScaleResult) => void;

async function runAll(options: Options, side: Side, report: (m: Measurement) => void, scale: ScaleReport): Promise<void> {
  for (const backend of options.backends)
    for (const workload of options.workloads) {
      if (!isFeedScale(workload)) await runWorkload(workload, backend, options, side, report);
      else if (backend === "postgresql") await runFeedScale(workload, scaleContext(options, side, scale));
      else if (!options.backends.includes("postgresql")) log(`${workload}: PostgreSQL only, not run on ${backend}`);
    }
}

function scaleContext(options: Options, side: Side, report: ScaleReport): ScaleContext {
  return {
    buildDir: side.buildDir,
    benchBuild: thisBuild,
    settings: { ...options.settings, ...side.settings },
    postgres: options.postgres,
    database: options.database,
    duration: options.load.duration,
    warmup: options.load.warmup,
    subscribers: options.subscribers,
    idleSubscribers: options.idleSubscribers,
    connections: 10,
    profile: options.profile,
    log,
    report,
  };
}

/** Prints W8's results as they come (prefixed with the side of a comparison) and keeps them. */
function scalePrinter(kept: ScaleResult[], prefix = ""): ScaleReport {
  return (result) => {
    const labelled = { ...result, label: `${prefix}${result.label}` };
    kept.push(labelled);
    console.log(scaleLine(labelled));
    console.log(JSON.stringify(labelled));
  };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  thisBuild = snapshotBuild(THIS_BUILD);
  if (options.backends.length === 0) options.backends = (await reachable(options.redis)) ? [...BACKENDS] : ["memory", "postgresql"];
  log(
    `${revision()}, node ${process.version}, ${options.load.warmup} s warm-up + ${options.load.duration} s measured, c=${options.connections} (W4: 1 and 8), sizes ${options.sizes.join(",")}`,
  );
  const measurements: Measurement[] = [];
  const print = (m: Measurement) => {
    measurements.push(m);
    console.log(line(m));
  };
  console.log(header());
  try {
    await runMeasurements(options, print);
  } finally {
    removeSnapshot(thisBuild);
  }
  if (options.json) writeFileSync(options.json, JSON.stringify(measurements, null, 2));
}

async function runMeasurements(options: Options, print: (m: Measurement) => void): Promise<void> {
  if (options.peer) {
    const side: Side = { name: "this build", buildDir: thisBuild, settings: {} };
    const startTessera = async (database: string) => {
      const onDatabase = { ...options, database };
      await runNode([cliOf(thisBuild), "migrate"], thisBuild, settingsEnv(serverSettings("postgresql", 0, onDatabase, side)));
      const port = await freePort();
      const env = settingsEnv(serverSettings("postgresql", port, onDatabase, side));
      return startProcess({ args: [cliOf(thisBuild), "serve"], cwd: thisBuild, env, readyPath: "/v1/__lbheartbeat__" }, port);
    };
    const { workloads, connections, load, postgres } = options;
    // The ceilings first: the absolute targets were set on a faster machine, a share of Koa hello carries over.
    const ceilings: Measurement[] = [];
    if (options.ceilings)
      await runCeilings(options, (m) => {
        ceilings.push(m);
        print(m);
      });
    const koaHello = ceilings.find((m) => m.label === "koa hello")?.requestsPerSecond;
    await runParsePeer({ workloads, connections, load, postgres, buildDir: thisBuild, startTessera, log, koaHello }, print);
  } else if (options.compare) {
    const sides = options.compare.map(sideOf) as [Side, Side];
    const results: [Measurement[], Measurement[]] = [[], []];
    const scaleResults: ScaleResult[] = [];
    const rounds = options.rounds ?? 3;
    for (let round = 1; round <= rounds; round++) {
      for (const [i, side] of sides.entries()) {
        log(`round ${round}/${rounds}: ${i === 0 ? "A" : "B"} = ${side.name}`);
        const letter = i === 0 ? "A" : "B";
        const scale = scalePrinter(scaleResults, `${letter} `);
        await runAll(
          options,
          side,
          (m) => {
            results[i]?.push(m);
            print({ ...m, label: `${letter} ${m.label}` });
          },
          scale,
        );
      }
    }
    if (results[0].length + results[1].length > 0) console.log(comparison(results[0], results[1], [sides[0].name, sides[1].name]));
    if (scaleResults.length > 0) console.log(`W8 medians over ${rounds} rounds:\n${scaleMedians(scaleResults).map(scaleLine).join("\n")}`);
  } else {
    const rounds = options.rounds ?? 1;
    const results: Measurement[] = [];
    const scaleResults: ScaleResult[] = [];
    const keep = (m: Measurement) => {
      results.push(m);
      print(m);
    };
    for (let round = 1; round <= rounds; round++) {
      if (rounds > 1) log(`round ${round}/${rounds}`);
      if (options.ceilings && options.workloads.some((w) => !isFeedScale(w))) await runCeilings(options, keep);
      await runAll(options, { name: "this build", buildDir: thisBuild, settings: {} }, keep, scalePrinter(scaleResults));
    }
    if (rounds > 1 && results.length > 0)
      console.log(`medians over ${rounds} rounds:\n${header()}\n${medians(results).map(line).join("\n")}`);
    if (rounds > 1 && scaleResults.length > 0)
      console.log(`W8 medians over ${rounds} rounds:\n${scaleMedians(scaleResults).map(scaleLine).join("\n")}`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
