/**
 * The live feed while its serving processes restart (a crash, a graceful stop, a rolling restart),
 * followed by real EventSource clients: npm `eventsource` in Node and Chromium's own. EventSource
 * treats any answer but 200 as final, and a subscriber that stopped reconnecting misses every
 * later write; so a restart must never answer a stream request that way, and the clients must
 * resume from their `Last-Event-ID` without gap or duplicate. Three writers create and update
 * records on both processes throughout; at the end every subscriber's newest event of each record
 * equals what a `_since=0` listing (tombstones included) shows that subscriber.
 */
import { expect } from "chai";
import type { Browser } from "playwright-core";
import { launchChromium, requireChromium } from "../support/chromium.js";
import { openChromiumSubscriber, startAppOrigin, type AppOrigin } from "../support/chromium-event-source.js";
import { SubscriberLog, type FeedSubscriber } from "../support/feed-subscriber-log.js";
import { FeedWriters } from "../support/feed-writers.js";
import { userId } from "../support/http.js";
import { openNodeSubscriber } from "../support/node-event-source.js";
import { processBackends } from "../support/process-backends.js";
import { RoundRobinFront } from "../support/round-robin-front.js";
import { deleteKeysWithPrefix } from "../support/redis-keys.js";
import { startServerProcess, type ServerProcess } from "../support/server-process.js";
import { SyncPollers } from "../support/sync-pollers.js";
import { REDIS_URL, requireService } from "../support/services.js";
import { migratedDatabase } from "../support/shared-postgres.js";

const SECRET = "restart-secret";
const COLLECTIONS = ["killed", "stopped", "rolled"] as const;
type Collection = (typeof COLLECTIONS)[number];
const WRITERS = ["ann:pw", "ben:pw", "cid:pw"];
/** Restricted readers (records shared with them by ACL), and one reader of whole collections. */
const BOB = "bob:pw";
const CAROL = "carol:pw";
const ERIN = "erin:pw";
const DAVE = "dave:pw";
/** In the order `subscribe` opens them. */
const SUBSCRIBERS = [BOB, CAROL, DAVE, ERIN];

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls (every 50 ms, bounded) until `condition` holds; false if it never did. */
async function eventually(condition: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() > deadline) return false;
    await pause(50);
  }
}

/** A process's log line, shortened, if it is a warning, an error, or its start or stop. */
function logged(name: string, line: string): { time: number; text: string }[] {
  let entry: { level: number; time: number; msg?: string; path?: string; err?: { message?: string } };
  try {
    entry = JSON.parse(line) as typeof entry;
  } catch {
    return [{ time: 0, text: `${name}: ${line}` }];
  }
  if (entry.level < 40 && entry.msg !== "tessera listening" && entry.msg !== "tessera stopping") return [];
  const error = entry.err?.message && entry.err.message !== entry.msg ? ` (${entry.err.message})` : "";
  return [{ time: entry.time, text: `${name} at ${entry.time}: ${entry.msg ?? ""}${error}${entry.path ? ` on ${entry.path}` : ""}` }];
}

function authorization(credentials: string): string {
  return `Basic ${Buffer.from(credentials).toString("base64")}`;
}

describe("live feed across process restarts, with real EventSource clients", function () {
  requireService("postgresql");
  this.timeout(60_000);
  let browser: Browser | undefined;
  let app: AppOrigin;

  before(async function () {
    requireChromium(this);
    app = await startAppOrigin();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  for (const backend of processBackends("tessera-restart")) {
    describe(`on ${backend.name}`, function () {
      if (backend.services.includes("redis")) requireService("redis");
      let settings: Record<string, string>;
      /** The two serving processes; each restart replaces one, on the same port. */
      const processes: ServerProcess[] = [];
      /** Every process started, replaced ones included (A1, B1, A2...): their logs tell why a request failed. */
      const started: { name: string; process: ServerProcess }[] = [];
      const track = (index: 0 | 1, process: ServerProcess) => {
        const letter = index === 0 ? "A" : "B";
        started.push({ name: `${letter}${started.filter((s) => s.name.startsWith(letter)).length + 1}`, process });
        processes[index] = process;
      };
      const subscribers: FeedSubscriber[] = [];
      let writers: FeedWriters | undefined;
      let pollers: SyncPollers | undefined;

      const serving = (index: 0 | 1): ServerProcess => {
        const found = processes[index];
        if (!found) throw new Error(`process ${index} did not start`);
        return found;
      };
      const restart = async (index: 0 | 1, how: "SIGKILL" | "SIGTERM") => {
        const old = serving(index);
        const begun = Date.now();
        if (how === "SIGKILL") await old.kill();
        else expect(await old.stop()).to.equal(0);
        const stopped = Date.now();
        track(index, await startServerProcess({ ...settings, listen_port: String(old.port) }));
        restarts.push(`${how} ${stopped - begun} ms, start ${Date.now() - stopped} ms`);
      };
      /** How long each restart's stop and start took, for the report. */
      const restarts: string[] = [];
      /** What the processes logged of note (starts, stops, warnings, errors), for failure messages. */
      const serverTrouble = () =>
        started
          .flatMap(({ name, process }) => process.output.flatMap((line) => logged(name, line)))
          .sort((x, y) => x.time - y.time)
          .map((entry) => entry.text)
          .join("\n");

      before(async () => {
        const database = `tessera_restart_${backend.services.join("_")}`;
        const url = await migratedDatabase(database, true);
        settings = {
          ...backend.settings(url),
          resources: COLLECTIONS.map((collection) => `${collection}:shareable`).join(" "),
          userid_hmac_secret: SECRET,
          cors_origins: app.origin,
        };
        for (const collection of COLLECTIONS) {
          settings[`${collection}_create_principals`] = "system.Authenticated";
          settings[`${collection}_read_principals`] = userId(DAVE, SECRET);
        }
        const [a, b] = await Promise.all([startServerProcess(settings), startServerProcess(settings)]);
        track(0, a);
        track(1, b);
      });
      afterEach(async () => {
        await writers?.stop().catch(() => undefined);
        await pollers?.stop();
        writers = undefined;
        pollers = undefined;
        restarts.length = 0;
        for (const subscriber of subscribers.splice(0)) await subscriber.close();
      });
      after(async () => {
        await Promise.all(processes.map((p) => p.stop()));
        if (settings?.permission_prefix) await deleteKeysWithPrefix(REDIS_URL, settings.permission_prefix);
      });

      /** Bob, Carol and Dave on npm eventsource, Erin in Chromium; each on `base`'s stream of the collection. */
      async function subscribe(base: string, collection: Collection): Promise<FeedSubscriber[]> {
        if (!browser) throw new Error("no browser");
        const url = `${base}/v1/${collection}?_since=0`;
        const opened = [
          openNodeSubscriber(url, BOB, new SubscriberLog("bob (eventsource, restricted)")),
          openNodeSubscriber(url, CAROL, new SubscriberLog("carol (eventsource, restricted)")),
          openNodeSubscriber(url, DAVE, new SubscriberLog("dave (eventsource, collection reader)")),
          await openChromiumSubscriber(browser, app, url, ERIN, new SubscriberLog("erin (chromium, restricted)")),
        ];
        subscribers.push(...opened);
        await allOpen(opened, "the first connections");
        return opened;
      }

      /** Waits until every subscriber holds an open stream; fails at once if one closed for good. */
      async function allOpen(opened: readonly FeedSubscriber[], what: string): Promise<void> {
        const done = await eventually(async () => {
          const states = await Promise.all(opened.map((s) => s.readyState()));
          return states.every((state) => state === 1) || states.includes(2);
        }, 20_000);
        const stuck = opened.filter((s) => s.log.gaveUp !== undefined || !done);
        expect(
          stuck.map((s) => s.log.summary()),
          `every subscriber open after ${what}; the processes logged:\n${serverTrouble()}\n`,
        ).to.deep.equal([]);
      }

      /**
       * The writers (on both processes in turn), and three sync clients polling Bob's `_since`
       * where the subscribers connect (`base`: the first process, or the front).
       */
      function startTraffic(collection: Collection, base: () => string): void {
        pollers = new SyncPollers(() => [base(), base(), base()], collection, BOB);
        writers = new FeedWriters({
          urls: () => processes.map((p) => p.url),
          collection,
          writers: WRITERS,
          readers: [BOB, CAROL, ERIN].map((reader) => userId(reader, SECRET)),
          recordsPerWriter: 12,
          pauseMs: 40,
        });
      }

      /** What a `_since=0` listing (records and tombstones) shows this subscriber, by id. */
      async function listing(collection: Collection, credentials: string): Promise<Map<string, Record<string, unknown>>> {
        const response = await fetch(`${serving(1).url}/v1/${collection}?_since=0`, {
          headers: { Authorization: authorization(credentials) },
        });
        expect(response.status).to.equal(200);
        const body = (await response.json()) as { data: Record<string, unknown>[] };
        return new Map(body.data.map((entry) => [String(entry.id), entry]));
      }

      /**
       * The checks of a restart scenario, once the writers stopped: nobody gave up, nobody was
       * sent an event again after resuming, and, once delivery settles (bounded), each one's
       * newest event of each record is what the listing shows it.
       */
      async function expectEverySubscriberComplete(opened: readonly FeedSubscriber[], collection: Collection): Promise<void> {
        const outcome = await writers?.stop();
        const polled = await pollers?.stop();
        writers = undefined;
        pollers = undefined;
        expect(
          opened.filter((s) => s.log.gaveUp !== undefined).map((s) => s.log.summary()),
          `subscribers that stopped reconnecting; the processes logged:\n${serverTrouble()}\n`,
        ).to.deep.equal([]);
        const listed = await Promise.all(SUBSCRIBERS.map((credentials) => listing(collection, credentials)));
        const differences = () => opened.flatMap((s, i) => s.log.differencesFrom(listed[i] ?? new Map()));
        await eventually(() => Promise.resolve(differences().length === 0), 15_000);
        for (const subscriber of opened)
          expect(subscriber.log.duplicates(), `${subscriber.log.name}: events delivered again`).to.deep.equal([]);
        const summaries = opened.map((s) => s.log.summary()).join("\n");
        expect(differences(), `newest event of each record against the listing:\n${summaries}\n`).to.deep.equal([]);
        // The scenario did what it says: every subscriber resumed at least once, and the restricted
        // ones were shown records and lost some (tombstones), past the resumption too.
        for (const subscriber of opened) expect(subscriber.log.opens, subscriber.log.summary()).to.be.at.least(2);
        expect(outcome?.acknowledged).to.be.above(0);
        for (const entries of [listed[0], listed[1], listed[3]]) {
          const tombstones = [...(entries?.values() ?? [])].filter((entry) => entry.deleted === true).length;
          expect(
            [tombstones, (entries?.size ?? 0) - tombstones].every((count) => count > 0),
            "records and tombstones listed",
          ).to.equal(true);
        }
        if (process.env.TESSERA_FEED_RESTARTS_REPORT)
          console.log(
            `      ${collection}: ${outcome?.acknowledged} writes (${outcome?.retried} retried: ${JSON.stringify(outcome?.failures)}), ` +
              `${polled?.polls} polls (failed: ${JSON.stringify(polled?.failures)}); ` +
              `restarts: ${restarts.splice(0).join("; ")}\n${summaries}`,
          );
      }

      it("a crash (SIGKILL) and a restart on the same port: every subscriber resumes, no gap, no duplicate", async () => {
        const opened = await subscribe(serving(0).url, "killed");
        startTraffic("killed", () => serving(0).url);
        await pause(800);
        await restart(0, "SIGKILL");
        await allOpen(opened, "the restart");
        await pause(1000);
        await expectEverySubscriberComplete(opened, "killed");
      });

      it("a graceful stop (SIGTERM) and a restart on the same port: every subscriber resumes, no gap, no duplicate", async () => {
        const opened = await subscribe(serving(0).url, "stopped");
        startTraffic("stopped", () => serving(0).url);
        await pause(800);
        await restart(0, "SIGTERM");
        await allOpen(opened, "the restart");
        await pause(1000);
        await expectEverySubscriberComplete(opened, "stopped");
      });

      it("a rolling restart behind a round-robin front: subscribers move to the other process and back, no gap, no duplicate", async () => {
        const front = await RoundRobinFront.start(processes.map((p) => p.port));
        try {
          const opened = await subscribe(front.url, "rolled");
          startTraffic("rolled", () => front.url);
          await pause(800);
          await restart(0, "SIGTERM");
          await allOpen(opened, "the first process's restart");
          await pause(500);
          await restart(1, "SIGTERM");
          await allOpen(opened, "the second process's restart");
          await pause(1000);
          await expectEverySubscriberComplete(opened, "rolled");
        } finally {
          await front.close();
        }
      });
    });
  }
});
