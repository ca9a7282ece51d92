/** A unit of work as one PostgreSQL transaction, shared by every store of the same database. */
import { AsyncLocalStorage } from "node:async_hooks";
import type { UnitOfWork } from "../../application/ports/unit-of-work.js";
import type { PostgresDatabase } from "./postgres-database.js";

export class PostgresUnitOfWork implements UnitOfWork {
  readonly atomic = true;
  /** Callbacks waiting for the commit of the outermost `run` of the current async context. */
  private readonly pending = new AsyncLocalStorage<(() => void)[]>();

  constructor(private readonly database: PostgresDatabase) {}

  /** Every store call inside `work` (same database) uses one transaction; a nested run joins it. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.pending.getStore()) return this.database.transaction("storage", work);
    const callbacks: (() => void)[] = [];
    const result = await this.pending.run(callbacks, () => this.database.transaction("storage", work));
    for (const callback of callbacks) callback();
    return result;
  }

  afterCommit(callback: () => void): void {
    const callbacks = this.pending.getStore();
    if (callbacks) callbacks.push(callback);
    else callback();
  }

  onRollback(undo: () => Promise<void>): void {
    this.database.onRollback(undo);
  }
}
