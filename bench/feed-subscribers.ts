/**
 * The W7 subscribers, in a worker thread of bench/feed.ts: reading 1,000 event streams on the
 * thread that drives the writers (autocannon) would slow the writers by the bench's own work.
 * Opens one stream per user, counts events and samples, per event, the time from the write's
 * `sentAt` (set by the writer when it built the request) to its arrival here: an upper bound of
 * commit → delivery (it adds the write's own latency). Messages: {users, url} in; "opened",
 * "count" (events so far), "reset" (start counting again), then on "stop" the counts and the
 * sorted sample out.
 */
import http from "node:http";
import { parentPort, workerData } from "node:worker_threads";
import { authorization } from "./seed.js";

interface Start {
  readonly url: string;
  readonly users: readonly string[];
}

const { url, users } = workerData as Start;
// node:http, not fetch: web streams and a TextDecoder per chunk cost this thread several times more CPU,
// which the server, sharing the box, would pay for in the with/without ratio.
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const requests: http.ClientRequest[] = [];
const latencies: number[] = [];
let events = 0;

/** Counts the events of a stream's text up to its last complete one; returns the incomplete rest. */
function consume(text: string, now: number): string {
  let start = 0;
  let end = text.indexOf("\n\n");
  while (end >= 0) {
    if (text.startsWith("id: ", start)) {
      events += 1;
      const at = text.indexOf('"sentAt":', start);
      if (at >= 0 && at < end && latencies.length < 2_000_000) latencies.push(now - parseInt(text.slice(at + 9, at + 24), 10));
    }
    start = end + 2;
    end = text.indexOf("\n\n", start);
  }
  return text.slice(start);
}

function subscribe(user: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      `${url}/v1/writes`,
      { agent, headers: { Accept: "text/event-stream", Authorization: authorization(user) } },
      (response) => {
        if (response.statusCode !== 200) {
          reject(new Error(`subscriber ${user}: ${response.statusCode}`));
          return;
        }
        // The events are ASCII but for record data; latin1 decodes any byte and keeps the markers intact.
        response.setEncoding("latin1");
        let rest = "";
        response.on("data", (chunk: string) => {
          rest = consume(rest + chunk, Date.now());
        });
        response.on("error", () => undefined); // destroyed at the end of the run
        resolve();
      },
    );
    request.on("error", reject);
    requests.push(request);
  });
}

for (const user of users) await subscribe(user);
parentPort?.postMessage("opened");
parentPort?.on("message", (message) => {
  if (message === "count") parentPort?.postMessage({ events });
  if (message === "reset") {
    events = 0;
    latencies.length = 0;
    parentPort?.postMessage("reset");
  }
  if (message !== "stop") return;
  for (const request of requests) request.destroy();
  parentPort?.postMessage({ events, latencies: latencies.sort((a, b) => a - b) });
});
