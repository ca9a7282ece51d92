/**
 * The clock of one group commit (docs/adr/0010): strictly increasing timestamps for the writes of
 * one scope while its counter row is locked. A value handed to the writes of the group: to a
 * batch statement and a single write as an argument, to a unit of work with its transaction.
 */
import type { Scope } from "../../application/ports/record-store.js";

/**
 * The timestamps of one group. The counter row is locked for the whole group, so no other
 * writer of the scope (this process or another) can interleave: stamps handed out here are
 * strictly above every committed one. A rolled-back write's stamps are simply never used.
 */
export class GroupClock {
  private last: number;
  private kept: number;
  private pending: number;
  private readonly start: number;

  /** `counter` undefined: the group created the scope's row, so any requested stamp is honoured. */
  constructor(
    readonly scope: Scope,
    counter: number | undefined,
    private readonly now: number,
  ) {
    this.start = counter ?? -Infinity;
    this.last = this.start;
    this.kept = this.start;
    this.pending = this.start;
  }

  /** The next timestamp: a requested one above everything so far is honoured (as the bump does). */
  next(requested?: number): number {
    this.last = requested !== undefined && requested > this.last ? requested : Math.max(this.now, this.last + 1);
    return this.last;
  }

  /** Records that `stamp` was written by the current member (kept only if the member succeeds). */
  wrote(stamp: number): void {
    this.pending = Math.max(this.pending, stamp);
  }

  /** The current member succeeded: its writes count for the counter. */
  keep(): void {
    this.kept = Math.max(this.kept, this.pending);
  }

  /** The current member was rolled back: its writes never happened. */
  discard(): void {
    this.pending = this.kept;
  }

  /** The counter's value at commit, or undefined when nothing was written. */
  finalCounter(): number | undefined {
    return this.kept > this.start ? this.kept : undefined;
  }
}
