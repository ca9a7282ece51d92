/**
 * Writes at a fixed offered rate (open loop: the i-th write leaves at start + i/rate whatever the
 * answers to the earlier ones), so that two servers are compared at the same offered load and a
 * slow server shows as late deliveries and pending writes, not as a lower offered rate. Each body
 * carries `sentAt`, the time it left, from which subscribers time their events.
 */
import http from "node:http";
import { authorization } from "./seed.js";

export interface WriteTarget {
  /** `http://127.0.0.1:port/v1/feed` */
  readonly url: string;
  readonly credentials: string;
  /** The body of the n-th write (n from 1 over the whole life of the writer), given its `sentAt`. */
  body(n: number, sentAt: number): string;
}

export interface WriteRun {
  readonly offered: number;
  readonly answered2xx: number;
  readonly failed: number;
  /** The first failure's message, if any. */
  readonly firstError: string | undefined;
  /** Writes still unanswered when the run's time was up (they are waited for before this resolves). */
  readonly lateAtEnd: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** A record id a write answered, and when (ms). */
export interface Written {
  readonly id: string;
  readonly answeredAt: number;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

export class OpenLoopWriter {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  private n = 0;
  /** Every record written by this writer, in answer order. */
  readonly written: Written[] = [];

  constructor(private readonly target: WriteTarget) {}

  /** `rate` writes per second for `seconds`; `at(elapsedMs)` hooks run once each when their time comes. */
  async run(rate: number, seconds: number, hooks: readonly { at: number; run: () => Promise<void> }[] = []): Promise<WriteRun> {
    const total = Math.max(1, Math.round(rate * seconds));
    const started = Date.now();
    const latencies: number[] = [];
    const inFlight = new Set<Promise<void>>();
    const hookRuns: Promise<void>[] = [];
    const due = [...hooks].sort((a, b) => a.at - b.at);
    let answered = 0;
    let failed = 0;
    let firstError: string | undefined;
    for (let i = 0; i < total; i += 1) {
      const wait = started + (i * 1000) / rate - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      while (due.length > 0 && (due[0]?.at ?? Infinity) <= Date.now() - started)
        hookRuns.push((due.shift() as { run: () => Promise<void> }).run());
      const write = this.post().then(
        (latency) => {
          answered += 1;
          latencies.push(latency);
        },
        (error: unknown) => {
          failed += 1;
          firstError ??= error instanceof Error ? error.message : String(error);
        },
      );
      inFlight.add(write);
      void write.finally(() => inFlight.delete(write));
    }
    const end = started + seconds * 1000;
    if (end > Date.now()) await new Promise((resolve) => setTimeout(resolve, end - Date.now()));
    const lateAtEnd = inFlight.size;
    await Promise.all([...inFlight, ...hookRuns]);
    latencies.sort((a, b) => a - b);
    return {
      offered: total,
      answered2xx: answered,
      failed,
      firstError,
      lateAtEnd,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
    };
  }

  close(): void {
    this.agent.destroy();
  }

  /** One write; resolves with its latency (ms) on a 2xx, rejects otherwise. */
  private post(): Promise<number> {
    this.n += 1;
    const sentAt = Date.now();
    const body = this.target.body(this.n, sentAt);
    return new Promise((resolve, reject) => {
      const request = http.request(
        this.target.url,
        {
          method: "POST",
          agent: this.agent,
          headers: {
            Authorization: authorization(this.target.credentials),
            "Content-Type": "application/json",
            "Content-Length": Buffer.byteLength(body),
          },
        },
        (response) => {
          let text = "";
          response.setEncoding("utf8");
          response.on("data", (chunk: string) => (text += chunk));
          response.on("end", () => {
            const status = response.statusCode ?? 0;
            if (status < 200 || status >= 300) {
              reject(new Error(`write answered ${status}: ${text.slice(0, 300)}`));
              return;
            }
            const answeredAt = Date.now();
            const id = (JSON.parse(text) as { data?: { id?: string } }).data?.id;
            if (id !== undefined) this.written.push({ id, answeredAt });
            resolve(answeredAt - sentAt);
          });
        },
      );
      request.on("error", reject);
      request.end(body);
    });
  }
}
