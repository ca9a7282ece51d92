/**
 * The W7 subscribers, in a worker thread of bench/feed.ts: reading 1,000 event streams on the
 * thread that drives the writers (autocannon) would slow the writers by the bench's own work.
 * Opens one stream per user, counts events and samples, per event, the time from the write's
 * `sentAt` (set by the writer when it built the request) to its arrival here: an upper bound of
 * commit → delivery (it adds the write's own latency). Messages: {users, url} in; "opened",
 * then on "stop" the counts and the sorted sample out.
 */
import { parentPort, workerData } from "node:worker_threads";
import { authorization } from "./seed.js";

interface Start {
  readonly url: string;
  readonly users: readonly string[];
}

const { url, users } = workerData as Start;
const controller = new AbortController();
const latencies: number[] = [];
let events = 0;

async function subscribe(user: string): Promise<void> {
  const response = await fetch(`${url}/v1/writes`, {
    headers: { Accept: "text/event-stream", Authorization: authorization(user) },
    signal: controller.signal,
  });
  if (response.status !== 200 || !response.body) throw new Error(`subscriber ${user}: ${response.status}`);
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        const now = Date.now();
        buffer += decoder.decode(value, { stream: true });
        let end = buffer.indexOf("\n\n");
        while (end >= 0) {
          const event = buffer.slice(0, end);
          if (event.startsWith("id: ")) {
            events += 1;
            const sentAt = /"sentAt":(\d+)/.exec(event)?.[1];
            if (sentAt !== undefined && latencies.length < 2_000_000) latencies.push(now - Number(sentAt));
          }
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf("\n\n");
        }
      }
    } catch {
      // aborted at the end of the run
    }
  })();
}

for (const user of users) await subscribe(user);
parentPort?.postMessage("opened");
parentPort?.on("message", (message) => {
  if (message === "count") parentPort?.postMessage({ events });
  if (message !== "stop") return;
  controller.abort();
  parentPort?.postMessage({ events, latencies: latencies.sort((a, b) => a - b) });
});
