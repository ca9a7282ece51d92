import type { UnitOfWork } from "../../application/ports/unit-of-work.js";

/** For backends with no shared transaction (memory, Redis): the work simply runs. */
export class DirectUnitOfWork implements UnitOfWork {
  readonly atomic = false;

  run<T>(work: () => Promise<T>): Promise<T> {
    return work();
  }

  /** Every write has committed when it returned. */
  afterCommit(callback: () => unknown): void {
    void callback();
  }
}
