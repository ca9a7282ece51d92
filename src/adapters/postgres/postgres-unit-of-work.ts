/** A unit of work as one PostgreSQL transaction, shared by every store of the same database. */
import type { Scope } from "../../application/ports/record-store.js";
import type { UnitOfWork } from "../../application/ports/unit-of-work.js";
import { groupCommitOf } from "./group-commit.js";
import type { PostgresDatabase } from "./postgres-database.js";

export class PostgresUnitOfWork implements UnitOfWork {
  readonly atomic = true;

  /**
   * `groupCommit`: the record store and the permission store live in this database, so scoped
   * work (a record and its ACL) can join the scope's group commit. With permissions elsewhere
   * (their writes undone by onRollback, never by a savepoint) each unit keeps its own transaction.
   */
  constructor(
    private readonly database: PostgresDatabase,
    private readonly groupCommit = false,
  ) {}

  /**
   * Every store call inside `work` (same database) uses one transaction; a nested run joins it.
   * Scoped work joins the scope's group commit, keeping its own outcome.
   */
  run<T>(work: () => Promise<T>, scope?: Scope): Promise<T> {
    if (scope && this.groupCommit && !this.database.inTransaction()) return groupCommitOf(this.database).unitOfWork(scope, work);
    return this.database.transaction("storage", work);
  }

  onRollback(undo: () => Promise<void>): void {
    this.database.onRollback(undo);
  }
}
