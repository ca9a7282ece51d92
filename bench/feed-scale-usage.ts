/**
 * Where the 2 cores went over one measured window of W8: CPU seconds of the server, of the
 * PostgreSQL backends serving its database (those connected when the window starts) and of this process (its subscriber thread
 * included), the server's highest resident memory, and the machine's load average (other
 * people's work shares the box).
 */
import { readFileSync } from "node:fs";
import { cpuMs } from "./cpu-time.js";
import type { ScaleServer } from "./feed-scale-servers.js";
import { withClient } from "./seed.js";

export interface Usage {
  readonly serverCpuS: number;
  readonly sqlCpuS: number;
  readonly benchCpuS: number;
  readonly rssMb: number;
  /** The 1-minute load average at the end of the window. */
  readonly load1: number;
}

export function loadAverage(): number {
  try {
    return Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
  } catch {
    return NaN;
  }
}

async function backendPids(sqlUrl: string | undefined): Promise<number[]> {
  if (!sqlUrl) return [];
  return withClient(sqlUrl, async (client) => {
    const { rows } = await client.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    return rows.map((row) => row.pid);
  });
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

/** Starts counting; the returned function ends the window. */
export async function startUsage(server: ScaleServer): Promise<() => Usage> {
  const pids = await backendPids(server.sqlUrl);
  const sqlBefore = new Map(pids.map((pid) => [pid, cpuMs(pid)]));
  // A backend gone meanwhile (a recycled connection) reads 0: its share is lost rather than counted negative.
  const sqlMs = () => pids.reduce((total, pid) => total + Math.max(0, cpuMs(pid) - (sqlBefore.get(pid) ?? 0)), 0);
  const serverBefore = cpuMs(server.pid);
  const benchBefore = process.cpuUsage();
  const stopRss = server.sampleRss();
  return () => {
    const bench = process.cpuUsage(benchBefore);
    return {
      serverCpuS: seconds(cpuMs(server.pid) - serverBefore),
      sqlCpuS: seconds(sqlMs()),
      benchCpuS: seconds((bench.user + bench.system) / 1000),
      rssMb: stopRss(),
      load1: loadAverage(),
    };
  };
}
