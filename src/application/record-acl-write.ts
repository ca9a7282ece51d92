/**
 * Writes a record and its ACL together. When the permission backend shares the record's
 * transaction, the ACL goes first: the record write takes the collection's timestamp lock, held
 * until commit, so it should come last. Otherwise the record goes first (inside the unit of work's
 * transaction, when there is one): a refused or failed record write (conflict, precondition,
 * storage down) then leaves the other backend untouched; a failed ACL write rolls the record
 * back; and if the transaction still rolls back after the ACL was written (its commit failed, or
 * a later sub-request aborted the batch), the ACL is put back as it was (compensation).
 */
import type { Scope } from "./ports/record-store.js";
import type { UnitOfWork } from "./ports/unit-of-work.js";

/** An ACL write and how to take it back (restore what was there before). */
export interface AclWrite {
  /** Resolves to the principals who lost read access to the record by this write (if any). */
  readonly write: () => Promise<readonly string[] | void>;
  readonly undo: () => Promise<void>;
}

/**
 * `scope`: the record's, so that the unit of work may join that scope's group commit.
 * `recordLoss`: called once both are written, in the same unit of work, with the record write's
 * result and who lost read access: the loss is recorded at the record write's own timestamp.
 */
export function writeRecordWithAcl<R>(
  unitOfWork: UnitOfWork,
  aclSharesTransaction: boolean,
  writeRecord: () => Promise<R>,
  acl: AclWrite | undefined,
  scope?: Scope,
  recordLoss?: (written: R, lost: readonly string[]) => Promise<void>,
): Promise<R> {
  if (!acl) return writeRecord();
  return unitOfWork.run(async () => {
    let result: R;
    let lost: readonly string[] | void;
    if (unitOfWork.atomic && aclSharesTransaction) {
      lost = await acl.write();
      result = await writeRecord();
    } else {
      result = await writeRecord();
      // Registered before writing: a write whose reply was lost may still have happened.
      unitOfWork.onRollback?.(acl.undo);
      lost = await acl.write();
    }
    if (lost && lost.length > 0) await recordLoss?.(result, lost);
    return result;
  }, scope);
}
