/**
 * Where serving processes keep their leases and the fences they owe (LeasedPrincipalFence):
 * a database every process shares, whose clock decides when a lease ends.
 */

export interface OwedFence {
  readonly fenceId: string;
  readonly principal: string;
}

export interface FenceLedger {
  /** Takes or extends the lease of `processId` until the ledger's now plus `leaseMs`. */
  renewLease(processId: string, leaseMs: number): Promise<void>;
  /** Gives the lease up (clean shutdown); the fences it owed no longer wait for it. */
  releaseLease(processId: string): Promise<void>;
  /**
   * Records fence `fenceId` of `principal` as owed by every process but `except` whose lease
   * runs, and nudges them; returns how many owe it.
   */
  openFence(fenceId: string, principal: string, except: string): Promise<number>;
  /** The fences `processId` owes, oldest first. */
  owedBy(processId: string): Promise<OwedFence[]>;
  acknowledge(processId: string, fenceIds: readonly string[]): Promise<void>;
  /** How many processes whose lease still runs owe the fence. */
  outstanding(fenceId: string): Promise<number>;
  /** Forgets the fence (what processes whose lease ended still owed). */
  closeFence(fenceId: string): Promise<void>;
  /**
   * Calls `nudge` when a fence may have been opened for this process (a notification, or a
   * reconnection after which some may have been missed). Nudges may be lost: callers also poll.
   */
  listen(nudge: () => void): () => void;
  close(): Promise<void>;
}
