import type { Scope } from "./record-store.js";

/**
 * Runs a function so that every store write inside it commits or rolls back together (one
 * database transaction where the backends share one). A nested `run` joins the outer one.
 * Backends that cannot share a transaction run the function as is.
 */
export interface UnitOfWork {
  /** True when the writes inside `run` really commit or roll back together. */
  readonly atomic: boolean;
  /**
   * `scope`: the one collection scope whose records `work` writes, when the caller knows it; the
   * backend may then commit it together with other writes of that scope (each keeping its own
   * outcome).
   */
  run<T>(work: () => Promise<T>, scope?: Scope): Promise<T>;
  /**
   * Inside `run`: `undo` runs if the unit of work (the outermost one, when joined) rolls back, to
   * take back a write made outside its transaction (an ACL in another backend). Best effort.
   * Absent where nothing ever rolls back.
   */
  onRollback?(undo: () => Promise<void>): void;
}
