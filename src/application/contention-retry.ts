/**
 * A write without a client precondition must never fail one. PATCH reads, merges and writes
 * conditionally on what it read; when another write got in between, it reads again. Every lost
 * round means another write to the same record committed, so the whole system always makes
 * progress, and a randomised, growing pause spreads the contenders so that no one keeps losing.
 * Only a deadline bounds the rounds, never a count (a count is what mere contention exhausted:
 * two processes patching the same records got 412s). Past the deadline, which contention alone
 * does not reach, the request is answered as an overload (503 + Retry-After), never as a 412.
 */
import { BackendError } from "../domain/errors.js";

/** How long one request keeps retrying before it gives up as overloaded (the default). */
export const CONTENTION_DEADLINE_MS = 10_000;
const FIRST_PAUSE_CEILING_MS = 2;
const MAX_PAUSE_CEILING_MS = 50;

export class ContentionRetry {
  private readonly deadline: number;
  private round = 0;

  constructor(deadlineMs: number = CONTENTION_DEADLINE_MS) {
    this.deadline = Date.now() + deadlineMs;
  }

  /** Waits before the next round; past the deadline throws a BackendError (503) instead. */
  async pause(cause: unknown): Promise<void> {
    if (Date.now() >= this.deadline) throw new BackendError("storage", cause, "Too many concurrent writes to this record: try again later");
    const ceiling = Math.min(MAX_PAUSE_CEILING_MS, FIRST_PAUSE_CEILING_MS * 2 ** this.round);
    this.round++;
    await new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
  }
}
