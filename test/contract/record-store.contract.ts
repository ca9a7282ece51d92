/**
 * The RecordStore contract: every adapter (memory, PostgreSQL) runs these cases unchanged.
 * They use the real clock and only the port, never adapter internals. What the access journal
 * adds to listings (lost tombstones, gained records) is in access-journal.contract.ts.
 */
import type { RecordStore } from "../../src/application/ports/record-store.js";
import type { Harness } from "../support/harness.js";
import { changesSinceCases } from "./record-store/changes-since.js";
import { filterCases } from "./record-store/filters.js";
import { inTransactionCases, type UnitOfWorkRunner } from "./record-store/in-transaction.js";
import { listingCases } from "./record-store/listing.js";
import { timestampCases } from "./record-store/timestamps.js";
import { tombstoneCases } from "./record-store/tombstones.js";
import { writeCases } from "./record-store/writes.js";

/**
 * `units`: the ways the adapter's compositions run store calls inside a unit of work (each its
 * own code path on PostgreSQL); the timestamp rules are checked again inside each.
 */
export function recordStoreContract(
  name: string,
  open: () => Promise<Harness<RecordStore>>,
  units: readonly UnitOfWorkRunner[] = [],
): void {
  describe(`RecordStore contract [${name}]`, function () {
    let harness: Harness<RecordStore> | undefined;
    const store = (): RecordStore => {
      if (!harness) throw new Error("the RecordStore harness is not open");
      return harness.port;
    };

    before(async () => {
      harness = await open();
    });
    beforeEach(async () => {
      await harness?.reset();
    });
    after(async () => {
      await harness?.close();
    });

    writeCases(store);
    timestampCases(store);
    tombstoneCases(store);
    filterCases(store);
    listingCases(store);
    changesSinceCases(store);
    inTransactionCases(store, units);
  });
}
