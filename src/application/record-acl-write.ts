/**
 * Writes a record and its ACL together. When the permission backend shares the record's
 * transaction, the ACL goes first: the record write takes the collection's timestamp lock, held
 * until commit, so it should come last. Otherwise the record goes first (inside the unit of work's
 * transaction, when there is one): a refused or failed record write (conflict, precondition,
 * storage down) then leaves the other backend untouched; a failed ACL write rolls the record
 * back; and if the transaction still rolls back after the ACL was written (its commit failed, or
 * a later sub-request aborted the batch), the ACL is put back as it was (compensation). Where the
 * ACL is stored apart, it is stamped with the record's version (kinds/shareable-kind.ts `target`).
 */
import type { Scope } from "./ports/record-store.js";
import type { UnitOfWork } from "./ports/unit-of-work.js";

/**
 * An ACL write and how to take it back (restore what was there before). `version`: the
 * `last_modified` the record write gave, when the ACL is written after it.
 */
export interface AclWrite {
  /** Resolves to the principals who lost read access to the record by this write (if any). */
  readonly write: (version?: number) => Promise<readonly string[] | void>;
  readonly undo: () => Promise<void>;
  /** Marks the ACL as being rewritten while a record write, visible at once, goes first. */
  readonly pending?: PendingAcl;
}

/** Marks an ACL in flight (readers then wait), and takes the mark back when the record write fails. */
export interface PendingAcl {
  readonly mark: () => Promise<void>;
  readonly clear: () => Promise<void>;
}

/**
 * `scope`: the record's, so that the unit of work may join that scope's group commit.
 * `recordLoss`: called once both are written, in the same unit of work, with the record write's
 * result and who lost read access: the loss is recorded at the record write's own timestamp.
 */
export function writeRecordWithAcl<R extends { readonly lastModified: number }>(
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
      // Without a transaction the record is visible at once: its ACL is marked in flight first.
      const pending = unitOfWork.atomic ? undefined : acl.pending;
      await pending?.mark();
      result = await writeRecord().catch(async (error: unknown) => {
        await pending?.clear();
        throw error;
      });
      // Registered before writing: a write whose reply was lost may still have happened.
      unitOfWork.onRollback?.(acl.undo);
      lost = await acl.write(result.lastModified);
    }
    if (lost && lost.length > 0) await recordLoss?.(result, lost);
    return result;
  }, scope);
}
