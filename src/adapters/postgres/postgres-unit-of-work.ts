/** A unit of work as one PostgreSQL transaction, shared by every store of the same database. */
import type { Scope } from "../../application/ports/record-store.js";
import type { UnitOfWork } from "../../application/ports/unit-of-work.js";
import { groupCommitOf } from "./group-commit.js";
import type { PostgresDatabase } from "./postgres-database.js";
import { writeModeOf } from "./write-mode.js";

export class PostgresUnitOfWork implements UnitOfWork {
  readonly atomic = true;

  constructor(private readonly database: PostgresDatabase) {}

  /**
   * Every store call inside `work` (same database) uses one transaction; a nested run joins it.
   * Scoped work that would run alone joins the scope's group commit (writeModeOf), keeping its own
   * outcome: only PostgresSharedRecords names a scope, where the ACEs are in this database too
   * (work with writes elsewhere, undone by onRollback rather than by a savepoint, names none and
   * keeps its own transaction). The callbacks `work` registers with afterCommit are handed with
   * the transaction and run once its own outcome is known to be committed: a group member's after
   * the group's commit, and never when only that member was rolled back.
   */
  async run<T>(work: () => Promise<T>, scope?: Scope): Promise<T> {
    if (this.database.transactionPart()?.afterCommit) return this.database.transaction("storage", work);
    let callbacks: (() => unknown)[] = [];
    // The list is handed inside `work`'s attempt: a group replays its members after another
    // member aborted its transaction (only the last attempt committed).
    const own = (): Promise<T> => {
      const attempt: (() => unknown)[] = [];
      callbacks = attempt;
      return this.database.within({ afterCommit: attempt }, work);
    };
    const grouped = scope !== undefined && writeModeOf(this.database, scope).runs === "alone";
    const result = grouped ? await groupCommitOf(this.database).unitOfWork(scope, own) : await this.database.transaction("storage", own);
    // Called in order, at once; what they return is waited for together (a failure is theirs to report).
    await Promise.allSettled(callbacks.map((callback) => Promise.resolve(callback())));
    return result;
  }

  afterCommit(callback: () => unknown): void {
    const callbacks = this.database.transactionPart()?.afterCommit;
    if (callbacks) callbacks.push(callback);
    else void callback();
  }

  onRollback(undo: () => Promise<void>): void {
    this.database.onRollback(undo);
  }
}
