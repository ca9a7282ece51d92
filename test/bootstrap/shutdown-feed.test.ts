/**
 * A graceful stop (what SIGTERM runs) on PostgreSQL while live-feed reads are in flight: the
 * streams are ended, then the pools closed; a read that was under way then fails against the
 * closed pool, and that failure concerns nobody (its stream is closed): no error is logged. The
 * reads are held deterministically at the point where the stop overtakes them: at the start of a
 * replay's read (after the listing that authorized it), and at the start of a scope's shared read.
 */
import { Writable } from "node:stream";
import { expect } from "chai";
import { pino } from "pino";
import type { RecordStore } from "../../src/application/ports/record-store.js";
import { startServer, type RunningServer } from "../../src/bootstrap/server.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { settingsFrom } from "../support/http.js";
import { migratedDatabase } from "../support/shared-postgres.js";
import { requireService } from "../support/services.js";
import { SseClient } from "../sync/sse-client.js";

const DATABASE = "tessera_shutdown_feed_test";
const ALICE = `Basic ${Buffer.from("alice:pw").toString("base64")}`;

/** Holds the first call of `method` that `matches` before it runs, until released. */
function holdCall(store: RecordStore, method: "list" | "collectionTimestamp", matches: (args: unknown[]) => boolean) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const arrived = new Promise<void>((resolve) => (reached = resolve));
  let held: Promise<unknown> | undefined;
  const original = (store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[method]!;
  (store as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
    if (held !== undefined || !matches(args)) return original.apply(store, args);
    held = gate.then(() => original.apply(store, args));
    reached();
    return held;
  };
  return { arrived, release, settled: () => (held ?? Promise.resolve()).then(undefined, () => undefined) };
}

describe("graceful stop with live feed reads in flight [postgresql]", function () {
  requireService("postgresql");
  this.timeout(20_000);
  let running: RunningServer;
  let lines: Record<string, unknown>[];
  const clients: SseClient[] = [];

  beforeEach(async () => {
    lines = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const text of chunk.toString().split("\n")) if (text.trim()) lines.push(JSON.parse(text));
        done();
      },
    });
    // Migrated before the server starts: it takes its live-feed lease as it starts.
    const url = await migratedDatabase(DATABASE, true);
    const settings = settingsFrom({
      storage_backend: "postgresql",
      storage_url: url,
      permission_backend: "postgresql",
      permission_url: url,
    });
    running = await startServer(settings, { logger: pino({ level: "info" }, sink) });
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
    await running.stop();
  });

  const put = async (id: string) => {
    const res = await fetch(`${running.url}/v1/articles/${id}`, {
      method: "PUT",
      headers: { Authorization: ALICE, "Content-Type": "application/json" },
      body: JSON.stringify({ data: {} }),
    });
    expect(res.status).to.equal(201);
  };
  const subscribe = async (query: string) => {
    const client = await SseClient.open(`${running.url}/v1/articles${query}`, { headers: { Authorization: ALICE } });
    clients.push(client);
    expect(client.status).to.equal(200);
    return client;
  };
  const errors = () => lines.filter((line) => (line.level as number) >= 50);

  it("logs no error for a replay whose page was half read when the pools closed", async () => {
    await put("a1");
    const store = await running.container.getAsync(TOKENS.RecordStore);
    // The replay's first read (the scope's timestamp), after the listing that authorized it read one.
    let reads = 0;
    const hold = holdCall(store, "collectionTimestamp", (args) => JSON.stringify(args[0]).includes('"articles"') && reads++ === 1);
    await subscribe("?_since=0");
    await hold.arrived;
    await running.stop();
    hold.release();
    await hold.settled();
    await new Promise((resolve) => setImmediate(resolve)); // the replay's catch runs after the failed read
    expect(errors()).to.deep.equal([]);
  });

  it("logs no error for a scope's shared read under way when the pools closed", async () => {
    const live = await subscribe("");
    await live.waitUntil(() => live.comments.includes("live"));
    const store = await running.container.getAsync(TOKENS.RecordStore);
    const hold = holdCall(store, "collectionTimestamp", (args) => JSON.stringify(args[0]).includes('"articles"'));
    await put("a2");
    await hold.arrived;
    await running.stop();
    hold.release();
    await hold.settled();
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors()).to.deep.equal([]);
  });
});
