/** A unit of work as one PostgreSQL transaction, shared by every store of the same database. */
import type { UnitOfWork } from "../../application/ports/unit-of-work.js";
import type { PostgresDatabase } from "./postgres-database.js";

export class PostgresUnitOfWork implements UnitOfWork {
  readonly atomic = true;

  constructor(private readonly database: PostgresDatabase) {}

  /** Every store call inside `work` (same database) uses one transaction; a nested run joins it. */
  run<T>(work: () => Promise<T>): Promise<T> {
    return this.database.transaction("storage", work);
  }

  onRollback(undo: () => Promise<void>): void {
    this.database.onRollback(undo);
  }
}
