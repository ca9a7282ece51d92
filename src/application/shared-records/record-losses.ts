/** Lost read access, recorded at the timestamps of the writes that caused it (docs/adr/0011). */
import type { RecordedLoss, RecordStore, Scope } from "../ports/record-store.js";

export async function recordLosses(records: RecordStore, scope: Scope, losses: readonly RecordedLoss[]): Promise<void> {
  const real = losses.filter((loss) => loss.principals.length > 0);
  if (real.length > 0) await records.recordLostAccessAt(scope, real);
}
