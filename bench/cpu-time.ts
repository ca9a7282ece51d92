/**
 * CPU time spent per request, by the server process and by the PostgreSQL backends serving the
 * bench database: a figure that other processes on a shared machine move much less than req/s
 * (they take CPU away from the run, they do not add to what it spends). Read from
 * /proc/<pid>/stat (Linux; 10 ms ticks, so a figure needs some thousands of requests).
 */
import { readFileSync } from "node:fs";
import { withClient } from "./seed.js";

/** Milliseconds of user + system CPU a process has used; 0 when it is gone or /proc is absent. */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces): state is the first, utime the 12th, stime the 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** Reads the CPU of a server and of the backends connected to its database between two calls. */
export interface CpuProbe {
  start(): Promise<void>;
  /** Microseconds per request since start: [server, PostgreSQL backends]. */
  stop(requests: number): [number, number];
}

/**
 * `sqlUrl`: the bench database (undefined: the server alone). The backends are those connected
 * when the run starts (the pools are full after the warm-up); any other client of that database
 * counts too, so a comparison runs on a database of its own (`--database`).
 */
export function cpuProbe(serverPid: number, sqlUrl: string | undefined): CpuProbe {
  let backends: number[] = [];
  let server = 0;
  let sql = 0;
  const sqlMs = () => backends.reduce((total, pid) => total + cpuMs(pid), 0);
  return {
    async start() {
      backends = sqlUrl
        ? await withClient(sqlUrl, async (client) => {
            const rows = await client.query<{ pid: number }>(
              "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
            );
            return rows.rows.map((row) => row.pid);
          })
        : [];
      server = cpuMs(serverPid);
      sql = sqlMs();
    },
    stop(requests) {
      const per = (ms: number) => (requests > 0 ? (ms * 1000) / requests : NaN);
      return [per(cpuMs(serverPid) - server), per(sqlMs() - sql)];
    },
  };
}
