/**
 * LISTEN/NOTIFY signals: a burst of publications goes out in few statements (those published
 * while one is being sent share the next), and a listener on another connection receives every
 * signal of the burst, in the order published.
 */
import { expect } from "chai";
import { PostgresChangeBroadcast } from "../../src/adapters/postgres/postgres-change-broadcast.js";
import { PostgresDatabase } from "../../src/adapters/postgres/postgres-database.js";
import { PostgresRecordStore } from "../../src/adapters/postgres/postgres-record-store.js";
import { EVERY_SCOPE, type ChangeSignal } from "../../src/application/ports/change-broadcast.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { RecordingDatabase } from "../support/recording-database.js";
import { POSTGRES_URL, requireService } from "../support/services.js";
import { migratedDatabase } from "../support/shared-postgres.js";
import { settlesWithin } from "../support/settling.js";
import { TcpProxy } from "../support/tcp-proxy.js";

/** Resolves with the first signal `broadcast` delivers that satisfies `wanted`. */
function nextSignal(broadcast: PostgresChangeBroadcast, wanted: (signal: ChangeSignal) => boolean): Promise<ChangeSignal> {
  return new Promise((resolve) => {
    const stop = broadcast.subscribe((signal) => {
      if (!wanted(signal)) return;
      stop();
      resolve(signal);
    });
  });
}

const DATABASE = "tessera_test";
const BURST = 60;

describe("PostgreSQL change broadcast", function () {
  requireService("postgresql");
  this.timeout(30_000);

  it("sends a burst of signals in a few statements, and a listener elsewhere gets each of them in order", async () => {
    await ensureDatabase(DATABASE);
    const url = databaseUrl(DATABASE);
    const sending = new RecordingDatabase({ url });
    const listening = new RecordingDatabase({ url });
    const publisher = new PostgresChangeBroadcast(sending, url);
    const subscriber = new PostgresChangeBroadcast(listening, url);
    try {
      const received: ChangeSignal[] = [];
      let all!: () => void;
      const done = new Promise<void>((resolve) => (all = resolve));
      subscriber.subscribe((signal) => {
        if (signal.collection !== "broadcast_burst") return;
        received.push(signal);
        if (received.length === BURST) all();
      });
      await subscriber.ready();

      const burst = Array.from({ length: BURST }, (_, i) => ({
        collection: "broadcast_burst",
        parentId: "",
        timestamp: 1000 + i,
        ...(i % 2 === 0 ? { id: `r${i}`, action: "update" as const } : {}),
      }));
      await Promise.all(burst.map((signal) => publisher.publish(signal)));
      await settlesWithin(done, 10_000, `${BURST} signals`);

      expect(received).to.deep.equal(burst);
      const statements = sending.sent.filter((s) => /pg_notify/.test(s.text)).length;
      expect(statements).to.be.within(1, 2);
    } finally {
      await publisher.close();
      await subscriber.close();
      await sending.close();
      await listening.close();
    }
  });

  it("signals a watched scope's write whose NOTIFY never came, from its counter", async () => {
    const url = await migratedDatabase(DATABASE);
    const database = new PostgresDatabase({ url });
    const subscriber = new PostgresChangeBroadcast(database, { connectionString: url, catchUpMs: 100 });
    // The store writes and commits; nobody publishes: as when the NOTIFY after COMMIT was lost.
    const store = new PostgresRecordStore(database);
    const scope = { collection: "catch_up", parentId: `p${process.pid}` };
    try {
      await subscriber.ready();
      const unwatch = subscriber.watch(scope);
      const created = await store.create(scope, "r1", {});
      const heard = await settlesWithin(
        nextSignal(subscriber, (signal) => signal.collection === scope.collection && signal.timestamp === created.lastModified),
        10_000,
        "the signal of a write without NOTIFY",
      );
      expect(heard).to.deep.equal({ ...scope, timestamp: created.lastModified });
      unwatch();
    } finally {
      await subscriber.close();
      await database.close();
    }
  });

  it("reopens a listening connection that stopped answering without closing, and hears signals again", async () => {
    await ensureDatabase(DATABASE);
    const url = databaseUrl(DATABASE);
    const proxy = await TcpProxy.start(POSTGRES_URL, 5432);
    const sending = new PostgresDatabase({ url });
    const listening = new PostgresDatabase({ url });
    const publisher = new PostgresChangeBroadcast(sending, url);
    const subscriber = new PostgresChangeBroadcast(listening, {
      connectionString: proxy.rewrite(url),
      catchUpMs: 100,
      statementTimeoutMs: 300,
      connectTimeoutMs: 2000,
    });
    const signal = (timestamp: number) => ({ collection: "stalled_listen", parentId: "", timestamp });
    try {
      await subscriber.ready();
      const first = nextSignal(subscriber, (s) => s.collection === "stalled_listen");
      await publisher.publish(signal(1));
      await settlesWithin(first, 10_000, "a signal before the stall");
      // The listening connection goes silent for good; new connections get through.
      const reopened = nextSignal(subscriber, (s) => s.collection === EVERY_SCOPE);
      proxy.stall();
      proxy.unstall();
      await settlesWithin(reopened, 10_000, "the wake-up of a reopened listener");
      const after = nextSignal(subscriber, (s) => s.collection === "stalled_listen");
      await publisher.publish(signal(2));
      expect(await settlesWithin(after, 10_000, "a signal after the stall")).to.deep.equal(signal(2));
    } finally {
      await publisher.close();
      await subscriber.close();
      await sending.close();
      await listening.close();
      await proxy.close();
    }
  });
});
