/** Shared helpers of the AccessJournal contract: the journal with the record store of its storage. */
import type { AccessJournal } from "../../../src/application/ports/access-journal.js";
import type { RecordStore } from "../../../src/application/ports/record-store.js";

/** A storage as the compositions bind it: a record store whose listings ask this journal. */
export interface JournalledStorage {
  readonly records: RecordStore;
  readonly journal: AccessJournal;
}

/** Gives each contract file the ports opened by the suite. */
export interface JournalRef {
  readonly store: () => RecordStore;
  readonly journal: () => AccessJournal;
}
