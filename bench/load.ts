/**
 * One figure: autocannon in this process against a server child, fixed connections, keep-alive,
 * no pipelining; a warm-up run whose results are discarded, then the measured run, during which
 * the server's resident memory is sampled.
 */
import autocannon from "autocannon";
import { cpuProbe } from "./cpu-time.js";
import type { ServerProcess } from "./server-process.js";
import type { Figure } from "./workloads.js";

export interface LoadSettings {
  readonly duration: number;
  readonly warmup: number;
  /**
   * A fixed number of requests in the measured run instead of `duration` seconds (the warm-up
   * stays in seconds): for requests that can each be sent once, e.g. sign-ins of distinct accounts.
   */
  readonly amount?: number;
}

export interface Measurement {
  readonly label: string;
  readonly backend: string;
  readonly connections: number;
  readonly requestsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  /** Socket errors and timeouts. */
  readonly errors: number;
  readonly non2xx: number;
  /** Non-2xx answers by status, e.g. { "409": 3 }. */
  readonly statuses: Readonly<Record<string, number>>;
  /** Failed sub-requests inside 2xx answers (batches). */
  readonly rejectedInside: number;
  readonly total: number;
  /** Highest VmRSS of the server during the measured run, MB. */
  readonly rssMb: number;
  /** CPU per answered request during the measured run, µs: the server process, the PostgreSQL backends (cpu-time.ts). */
  readonly serverCpuUs: number;
  readonly sqlCpuUs: number;
}

/** `sqlUrl`: the database whose backends' CPU counts (none: only the server's). */
export async function measure(
  server: ServerProcess,
  backend: string,
  figure: Figure,
  settings: LoadSettings,
  sqlUrl?: string,
): Promise<Measurement> {
  const options = { url: server.url, connections: figure.connections, pipelining: 1, timeout: 30, requests: figure.requests };
  if (settings.warmup > 0) {
    await figure.beforeRun?.();
    await autocannon({ ...options, duration: settings.warmup });
  }
  await figure.beforeRun?.();
  const rejectedBefore = figure.rejectedInside?.() ?? 0;
  const cpu = cpuProbe(server.pid, sqlUrl);
  await cpu.start();
  const stopSampling = server.sampleRss();
  const result = await autocannon(
    settings.amount === undefined ? { ...options, duration: settings.duration } : { ...options, duration: 0, amount: settings.amount },
  );
  const rssMb = stopSampling();
  const [serverCpuUs, sqlCpuUs] = cpu.stop(result["2xx"] + result.non2xx);
  const statuses: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {}))
    if (!code.startsWith("2") && count > 0) statuses[code] = count;
  return {
    label: figure.label,
    backend,
    connections: figure.connections,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    statuses,
    rejectedInside: (figure.rejectedInside?.() ?? 0) - rejectedBefore,
    total: result["2xx"] + result.non2xx,
    rssMb,
    serverCpuUs,
    sqlCpuUs,
  };
}
