/**
 * One piece of work several requests wait for (one hash for every request with one credential):
 * it is abandoned only when every one of them has gone. A waiter without a signal keeps it
 * wanted for good.
 */
export class SharedInterest {
  private readonly controller = new AbortController();
  private waiting = 0;
  private pinned = false;

  /** Aborts once every joined signal has aborted (never while a waiter without one is joined). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  join(signal: AbortSignal | undefined): void {
    if (signal === undefined) {
      this.pinned = true;
      return;
    }
    if (!signal.aborted) {
      this.waiting += 1;
      signal.addEventListener("abort", () => this.leave(), { once: true });
    }
    if (this.waiting === 0 && !this.pinned) this.controller.abort();
  }

  private leave(): void {
    this.waiting -= 1;
    if (this.waiting === 0 && !this.pinned) this.controller.abort();
  }
}
