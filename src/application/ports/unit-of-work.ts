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

  /**
   * Calls `callback` once the current unit of work (the outermost `run` this call is inside)
   * has committed, and never if it rolls back; at once outside any unit of work, or where
   * writes commit one by one. Events about writes go out this way, never before their commit.
   * The outermost `run` returns only once a promise the callback returned has settled (an
   * announcement that must be made before the answer, e.g. inside a batch); its failure is the
   * callback's to report. Called at once, the promise is the caller's.
   */
  afterCommit(callback: () => unknown): void;
}
