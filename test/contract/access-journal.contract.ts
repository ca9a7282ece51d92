/**
 * The AccessJournal contract: every adapter (memory, PostgreSQL) runs these cases unchanged,
 * each with the record store its composition gives it (the listings of that store ask the
 * journal). They use the real clock and only the ports, never adapter internals.
 */
import type { Harness } from "../support/harness.js";
import { accessStampCases } from "./access-journal/access-stamps.js";
import type { JournalledStorage, JournalRef } from "./access-journal/fixture.js";
import { lossesAfterCases } from "./access-journal/losses-after.js";
import { lostAccessCases } from "./access-journal/lost-access.js";
import { stampOrderCases } from "./access-journal/stamp-order.js";

export function accessJournalContract(name: string, open: () => Promise<Harness<JournalledStorage>>): void {
  describe(`AccessJournal contract [${name}]`, function () {
    let harness: Harness<JournalledStorage> | undefined;
    const opened = (): JournalledStorage => {
      if (!harness) throw new Error("the AccessJournal harness is not open");
      return harness.port;
    };
    const ref: JournalRef = { store: () => opened().records, journal: () => opened().journal };

    before(async () => {
      harness = await open();
    });
    beforeEach(async () => {
      await harness?.reset();
    });
    after(async () => {
      await harness?.close();
    });

    lostAccessCases(ref);
    lossesAfterCases(ref);
    accessStampCases(ref);
    stampOrderCases(ref);
  });
}
