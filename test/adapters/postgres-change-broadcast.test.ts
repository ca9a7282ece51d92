/**
 * LISTEN/NOTIFY signals: a burst of publications goes out in few statements (those published
 * while one is being sent share the next), and a listener on another connection receives every
 * signal of the burst, in the order published.
 */
import { expect } from "chai";
import { PostgresChangeBroadcast } from "../../src/adapters/postgres/postgres-change-broadcast.js";
import type { ChangeSignal } from "../../src/application/ports/change-broadcast.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { RecordingDatabase } from "../support/recording-database.js";
import { requireService } from "../support/services.js";
import { settlesWithin } from "../support/settling.js";

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
});
