/**
 * Runs a function so that every store write inside it commits or rolls back together (one
 * database transaction where the backends share one). A nested `run` joins the outer one.
 * Backends that cannot share a transaction run the function as is.
 */
export interface UnitOfWork {
  /** True when the writes inside `run` really commit or roll back together. */
  readonly atomic: boolean;
  run<T>(work: () => Promise<T>): Promise<T>;
}
