/**
 * The `workers` setting: N processes of `tessera serve` share the listening port through
 * node:cluster (the primary accepts and hands connections round-robin to the workers). The
 * primary only supervises: it forks the workers, replaces one that dies, and on SIGTERM/SIGINT
 * asks every worker to drain and exits once all are gone. Memory backends keep their data per
 * process, so several workers need shared ones (PostgreSQL, Redis).
 */
import cluster, { type Worker } from "node:cluster";
import { SettingsError, type Settings } from "./settings.js";
import { MAX_WORKERS } from "./settings-table.js";
/** A worker dying more often than this (per minute) is a crash loop: stop instead. */
const MAX_RESTARTS_PER_MINUTE = 10;

/** The validated `workers` setting; refuses memory backends when there are several. */
function workerCount(settings: Settings): number {
  const raw = settings.all.workers ?? 1;
  const count = typeof raw === "string" && /^\d+$/.test(raw.trim()) ? Number(raw) : raw;
  if (typeof count !== "number" || !Number.isSafeInteger(count) || count < 1 || count > MAX_WORKERS) {
    throw new SettingsError([`workers must be an integer >= 1 and <= ${MAX_WORKERS} (got ${JSON.stringify(raw)})`]);
  }
  if (count === 1) return 1;
  const local = [
    ["storage_backend", settings.storage.backend],
    ["permission_backend", settings.permission?.backend],
    ["cache_backend", settings.cache.backend],
  ].filter(([, backend]) => backend === "memory");
  const problems = local.map(([name]) => `workers = ${count} needs shared backends: ${name} "memory" keeps its data in each process`);
  // Each worker counts its own requests, and a scrape reaches one worker at random.
  if (settings.metricsEnabled)
    problems.push(`workers = ${count} needs metrics_enabled = false: each worker would answer a scrape with its own counters`);
  if (problems.length > 0) throw new SettingsError(problems);
  return count;
}

/**
 * In the primary of a multi-worker `serve`: supervises the workers until they are all gone, and
 * resolves true. Resolves false when this process should serve itself (one worker, or a worker).
 */
export function superviseWorkers(settings: Settings): Promise<boolean> {
  const count = workerCount(settings);
  if (count === 1 || !cluster.isPrimary) return Promise.resolve(false);
  return new Promise((resolve) => {
    let stopping = false;
    let failed = false;
    const restarts: number[] = [];
    const live = new Set<Worker>();
    const listening = new Set<Worker>();

    const stopAll = (reason: string) => {
      if (stopping) return;
      stopping = true;
      process.stderr.write(`${reason}, stopping ${live.size} worker(s)\n`);
      for (const worker of live) worker.process.kill("SIGTERM");
      if (live.size === 0) finish();
    };
    const finish = () => {
      process.exitCode = failed ? 1 : 0;
      resolve(true);
    };
    const fork = () => {
      const worker = cluster.fork();
      live.add(worker);
      // A failed signal or IPC send to a worker must not bring the supervisor down.
      worker.on("error", (error) => process.stderr.write(`worker ${worker.process.pid ?? "?"}: ${String(error)}\n`));
      worker.once("listening", () => {
        listening.add(worker);
        process.stderr.write(`worker ${worker.process.pid ?? "?"} listening\n`);
      });
      worker.once("exit", (code, signal) => {
        live.delete(worker);
        const wasListening = listening.delete(worker);
        if (stopping) {
          if (code !== 0) failed = true;
          if (live.size === 0) finish();
          return;
        }
        const now = Date.now();
        restarts.push(now);
        while (restarts.length > 0 && (restarts[0] ?? now) < now - 60_000) restarts.shift();
        if (!wasListening || restarts.length > MAX_RESTARTS_PER_MINUTE) {
          failed = true;
          stopAll(
            `worker ${worker.process.pid ?? "?"} exited (${signal ?? code ?? "?"}) ${wasListening ? "too often" : "before listening"}`,
          );
          return;
        }
        process.stderr.write(`worker ${worker.process.pid ?? "?"} exited (${signal ?? code ?? "?"}), starting another\n`);
        fork();
      });
    };

    for (let i = 0; i < count; i++) fork();
    process.on("SIGTERM", () => stopAll("received SIGTERM"));
    process.on("SIGINT", () => stopAll("received SIGINT"));
  });
}
