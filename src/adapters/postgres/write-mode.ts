/**
 * The one place a write's mode is decided (docs/adr/0010). A write of a scope runs:
 * - "in its group": inside a unit of work that joined the scope's group commit, stamped by the
 *   group's clock (handed with the transaction), which writes the scope's counter once;
 * - "in a transaction": inside another transaction (a batch request's), the statement bumping the
 *   scope's counter itself;
 * - "alone": outside any transaction, it joins the scope's next group (a unit of work naming the
 *   scope too).
 */
import type { Scope } from "../../application/ports/record-store.js";
import type { GroupClock } from "./group-clock.js";
import type { PostgresDatabase } from "./postgres-database.js";

export type WriteMode =
  { readonly runs: "in its group"; readonly clock: GroupClock } | { readonly runs: "in a transaction" } | { readonly runs: "alone" };

const IN_A_TRANSACTION: WriteMode = { runs: "in a transaction" };
const ALONE: WriteMode = { runs: "alone" };

export function writeModeOf(database: Pick<PostgresDatabase, "transactionPart">, scope: Scope): WriteMode {
  const transaction = database.transactionPart();
  if (transaction === undefined) return ALONE;
  const clock = transaction.clock;
  if (clock && clock.scope.collection === scope.collection && clock.scope.parentId === scope.parentId)
    return { runs: "in its group", clock };
  return IN_A_TRANSACTION;
}
