/**
 * Reads from a streaming replica: W1 (a record by id) and W3 (a page of 100 shared records of
 * 10k) on a primary alone, then on the same primary with one streaming replica
 * (`storage_replica_urls`), alternated, a fresh server process each. Per run: req/s, p50/p99,
 * the CPU per read of the primary's PostgreSQL backends and of the replica's, and the share of
 * reads the replica answered (the server's `tessera_db_reads_total`). The pair (a primary and a
 * hot standby of its own, fed over the streaming protocol) runs on this machine, started by the
 * test support (test/support/streaming-standby.ts): everything shares the same cores.
 *
 *   npm run build && node dist/bench/replica-reads.js [--rounds 3] [--duration 10] [--warmup 3]
 *     [--connections 32] [--workload W1,W3]
 */
import path from "node:path";
import { startStreamingPair } from "../test/support/streaming-standby.js";
import { argument } from "./argument.js";
import { cpuProbe } from "./cpu-time.js";
import { measure, type Measurement } from "./load.js";
import { baseServerSettings, backendSettings } from "./seed.js";
import { cliOf, freePort, runNode, settingsEnv, startProcess, type ServerProcess } from "./server-process.js";
import { collectionsFor, PREPARE, type Figure } from "./workloads.js";

const BUILD = path.resolve(import.meta.dirname, "..", "..");
function count(name: string, fallback: number): number {
  const value = Number(argument(name, String(fallback)));
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
}
const rounds = count("rounds", 3);
const duration = count("duration", 10);
const warmup = count("warmup", 3);
const connections = count("connections", 32);
const workloads = argument("workload", "W1,W3").split(",");
for (const w of workloads) if (w !== "W1" && w !== "W3") throw new Error("--workload takes W1, W3 or both");
const log = (line: string) => process.stderr.write(`# ${line}\n`);

const pair = await startStreamingPair({ database: "tessera_bench_replica", name: "bench-replica" });

function settings(port: number, replica: boolean): Record<string, string> {
  const collections = collectionsFor([]);
  const all: Record<string, string> = {
    ...baseServerSettings(port),
    resources: collections.map((c) => `${c}:shareable`).join(" "),
    ...backendSettings("postgresql", pair.primaryUrl),
    metrics_enabled: "true",
    ...(replica ? { storage_replica_urls: pair.standbyUrl } : {}),
  };
  for (const c of collections) all[`${c}_create_principals`] = "system.Authenticated";
  return all;
}

/** Reads answered so far by the primary and by replicas. */
async function reads(server: ServerProcess): Promise<{ primary: number; replica: number }> {
  const text = await (await fetch(`${server.url}/v1/__metrics__`)).text();
  let primary = 0;
  let replica = 0;
  for (const match of text.matchAll(/^tessera_db_reads_total\{pool="[^"]*",server="([^"]+)"\} (\d+)/gm)) {
    if (match[1] === "primary") primary += Number(match[2]);
    else replica += Number(match[2]);
  }
  return { primary, replica };
}

interface Run extends Measurement {
  readonly mode: "alone" | "replica";
  readonly replicaCpuUs: number;
  /** Share of the run's reads the replica answered (NaN without replica). */
  readonly replicaShare: number;
}

async function run(mode: "alone" | "replica", figure: Figure, server: ServerProcess): Promise<Run> {
  await measure(server, "postgresql", figure, { duration: warmup, warmup: 0 });
  const before = await reads(server);
  const replicaCpu = cpuProbe(server.pid, mode === "replica" ? pair.standbyUrl : undefined);
  await replicaCpu.start();
  const measured = await measure(server, "postgresql", figure, { duration, warmup: 0 }, pair.primaryUrl);
  const [, replicaCpuUs] = replicaCpu.stop(measured.total);
  const after = await reads(server);
  const replicaReads = after.replica - before.replica;
  const total = replicaReads + after.primary - before.primary;
  return { ...measured, mode, replicaCpuUs: mode === "replica" ? replicaCpuUs : NaN, replicaShare: total > 0 ? replicaReads / total : NaN };
}

await runNode([cliOf(BUILD), "migrate"], BUILD, settingsEnv(settings(0, false)));
const results: Run[] = [];
console.log(
  "| round | workload | mode | req/s | p50 ms | p99 ms | primary SQL CPU µs/req | replica SQL CPU µs/req | replica share | non-2xx |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|");
try {
  for (let round = 1; round <= rounds; round += 1) {
    const modes: ("alone" | "replica")[] = round % 2 === 1 ? ["alone", "replica"] : ["replica", "alone"];
    for (const mode of modes) {
      const port = await freePort();
      const server = await startProcess(
        {
          args: [cliOf(BUILD), "serve"],
          cwd: BUILD,
          env: settingsEnv(settings(port, mode === "replica")),
          readyPath: "/v1/__lbheartbeat__",
        },
        port,
      );
      try {
        for (const workload of workloads) {
          const context = {
            base: server.url,
            backend: "postgresql" as const,
            connections,
            sizes: [],
            sqlUrl: pair.primaryUrl,
            redisUrl: undefined,
            log,
          };
          for (const figure of await PREPARE[workload as "W1" | "W3"](context)) {
            await pair.caughtUp(60_000);
            const result = await run(mode, figure, server);
            results.push(result);
            const share = Number.isNaN(result.replicaShare) ? "-" : `${(result.replicaShare * 100).toFixed(1)} %`;
            const replicaCpu = Number.isNaN(result.replicaCpuUs) ? "-" : result.replicaCpuUs.toFixed(0);
            console.log(
              `| ${round} | ${figure.label} | ${mode} | ${result.requestsPerSecond.toFixed(0)} | ${result.p50} | ${result.p99} | ${result.sqlCpuUs.toFixed(0)} | ${replicaCpu} | ${share} | ${result.non2xx} |`,
            );
          }
        }
      } finally {
        await server.stop();
      }
    }
  }
} finally {
  await pair.close();
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};
console.log(
  "\n| workload | primary SQL CPU per read, replica / alone | replica share | p50 added, ms | p99 added, ms | req/s, replica / alone |",
);
console.log("|---|---|---|---|---|---|");
for (const label of [...new Set(results.map((r) => r.label))]) {
  const of = (mode: Run["mode"], pick: (r: Run) => number) => median(results.filter((r) => r.label === label && r.mode === mode).map(pick));
  console.log(
    `| ${label} | ${(of("replica", (r) => r.sqlCpuUs) / of("alone", (r) => r.sqlCpuUs)).toFixed(2)} | ${(of("replica", (r) => r.replicaShare) * 100).toFixed(1)} % | ${(of("replica", (r) => r.p50) - of("alone", (r) => r.p50)).toFixed(1)} | ${(of("replica", (r) => r.p99) - of("alone", (r) => r.p99)).toFixed(1)} | ${(of("replica", (r) => r.requestsPerSecond) / of("alone", (r) => r.requestsPerSecond)).toFixed(2)} |`,
  );
}
