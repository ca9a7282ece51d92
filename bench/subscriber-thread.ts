/**
 * The parent's side of fan-out-subscribers.ts: the streams split among a few worker threads
 * (each holding every `threads`-th user), asked by message; their answers merged.
 */
import { Worker } from "node:worker_threads";
import type { Samples, StreamRecord, SubscribersRequest, SubscribersStart } from "./fan-out-subscribers.js";

type Op = SubscribersRequest["op"];

export interface Latencies {
  readonly events: number;
  readonly samples: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly sampleEvent: string | undefined;
}

export interface SubscriberThread {
  /** Seconds to open every stream (each counted once its replay is over). */
  readonly openSeconds: number;
  /** Events received since the last reset, and streams the server ended. */
  count(): Promise<{ events: number; closed: number }>;
  /** Counts, samples and per-stream records start again from here. */
  reset(): Promise<void>;
  latencies(): Promise<Latencies>;
  /** Per stream, in the order of the users. */
  streams(): Promise<StreamRecord[]>;
  /** Waits until `expected` events arrived (true) or `timeoutMs` passed (false). */
  drain(expected: number, timeoutMs: number): Promise<boolean>;
  stop(): Promise<void>;
}

/** One worker thread and its pending requests. */
function startThread(start: SubscribersStart): { ask<T>(op: Op): Promise<T>; worker: Worker } {
  const worker = new Worker(new URL("./fan-out-subscribers.js", import.meta.url), { workerData: start });
  const pending = new Map<number, { resolve: (value: Record<string, unknown>) => void; reject: (error: Error) => void }>();
  let next = 0;
  worker.on("message", (message: { id: number; error?: string } & Record<string, unknown>) => {
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    if (message.error !== undefined) waiting?.reject(new Error(message.error));
    else waiting?.resolve(message);
  });
  worker.on("error", (error) => {
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
  });
  return {
    worker,
    ask: <T>(op: Op) =>
      new Promise<T>((resolve, reject) => {
        next += 1;
        pending.set(next, { resolve: (value) => resolve(value as T), reject });
        worker.postMessage({ id: next, op } satisfies SubscribersRequest);
      }),
  };
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

export async function openSubscribers(start: SubscribersStart & { readonly threads?: number }): Promise<SubscriberThread> {
  const count = Math.max(1, Math.min(start.threads ?? 2, start.users.length));
  const shares = Array.from({ length: count }, (_, t) => start.users.filter((_, i) => i % count === t));
  const threads = shares.map((users) => startThread({ url: start.url, users, concurrency: Math.ceil(start.concurrency / count) }));
  const all = <T>(op: Op) => Promise.all(threads.map((thread) => thread.ask<T>(op)));
  const stop = async () => {
    await all("stop").catch(() => undefined);
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  };
  const started = Date.now();
  try {
    await all("open");
  } catch (error) {
    await stop();
    throw error;
  }
  const openSeconds = (Date.now() - started) / 1000;
  const counts = async () => {
    const each = await all<{ events: number; closed: number }>("count");
    return { events: each.reduce((sum, c) => sum + c.events, 0), closed: each.reduce((sum, c) => sum + c.closed, 0) };
  };
  return {
    openSeconds,
    count: counts,
    reset: async () => {
      await all("reset");
    },
    async latencies() {
      const each = await all<Samples>("samples");
      const merged = new Float64Array(each.reduce((sum, s) => sum + s.samples.length, 0));
      let at = 0;
      for (const part of each) {
        merged.set(part.samples, at);
        at += part.samples.length;
      }
      merged.sort();
      return {
        events: each.reduce((sum, s) => sum + s.events, 0),
        samples: merged.length,
        p50: percentile(merged, 50),
        p99: percentile(merged, 99),
        max: merged.length > 0 ? (merged[merged.length - 1] ?? NaN) : NaN,
        sampleEvent: each.find((s) => s.sampleEvent !== undefined)?.sampleEvent,
      };
    },
    async streams() {
      const each = await all<{ streams: StreamRecord[] }>("streams");
      // Back in the users' order: user i is the (i / count)-th of thread i % count.
      return start.users.map((_, i) => each[i % count]?.streams[Math.floor(i / count)] as StreamRecord);
    },
    async drain(expected, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if ((await counts()).events >= expected) return true;
        if (Date.now() > deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    stop,
  };
}
