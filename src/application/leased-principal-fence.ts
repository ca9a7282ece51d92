/**
 * The principal fence across serving processes (docs/feed-fence.md), over a shared ledger whose
 * clock decides the leases.
 *
 * Serving: the process takes its lease as it starts serving, before it accepts a connection (a
 * stream request reaching a process that is still asking for its lease would find none), and
 * renews it every third of it; each renewal, each nudge and each reconnection of the ledger's
 * listener read the fences this process owes, end the affected streams (synchronously) and
 * acknowledge them. The lease is taken as running until the renewal's
 * send time plus the lease minus a fifth of it (the ledger counts from later, by its own clock):
 * past that without a renewal, the process ends every stream itself and refuses new ones until
 * it holds a lease again. So a process cut off from the database stops sending before any fencer
 * stops waiting for it.
 *
 * Fencing: the fence is recorded as owed by every other process whose lease runs, then its
 * acknowledgements are polled until none is outstanding; a process whose lease ends meanwhile no
 * longer counts, so a crashed process delays the change by at most one lease.
 */
import type { FenceLedger, OwedFence } from "./ports/fence-ledger.js";
import type { FenceHandlers, PrincipalFence } from "./ports/principal-fence.js";

export interface LeasedFenceOptions {
  readonly ledger: FenceLedger;
  /** This process's name in the ledger (unique among the processes sharing it). */
  readonly processId: string;
  readonly leaseMs: number;
  /** Period of the fencer's look at the acknowledgements (default 50 ms). */
  readonly pollMs?: number;
  readonly log: (error: unknown, message: string) => void;
  /** Monotonic milliseconds (default performance.now). */
  readonly now?: () => number;
}

/** A fence still waiting after this many leases is given up (something is broken, not slow). */
const GIVE_UP_LEASES = 3;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class LeasedPrincipalFence implements PrincipalFence {
  private handlers: FenceHandlers | undefined;
  /** Local monotonic time until which the lease surely runs; -Infinity while none is held. */
  private leaseUntil = Number.NEGATIVE_INFINITY;
  private renewTimer: ReturnType<typeof setInterval> | undefined;
  private lapseTimer: ReturnType<typeof setTimeout> | undefined;
  private renewing: Promise<void> | undefined;
  private settling: Promise<void> | undefined;
  private settleAgain = false;
  private fences = 0;
  private stopListening: (() => void) | undefined;
  private readonly now: () => number;
  private readonly pollMs: number;

  constructor(private readonly options: LeasedFenceOptions) {
    this.now = options.now ?? (() => performance.now());
    this.pollMs = options.pollMs ?? 50;
  }

  async fence(principal: string): Promise<void> {
    const { ledger, processId, leaseMs } = this.options;
    const fenceId = `${processId}/${++this.fences}`;
    const giveUpAt = this.now() + GIVE_UP_LEASES * leaseMs;
    let owing = await ledger.openFence(fenceId, principal, processId);
    if (owing === 0) return; // no other process streams: nothing was recorded
    try {
      while (owing > 0) {
        if (this.now() > giveUpAt) throw new Error(`principal fence ${fenceId} still unacknowledged after ${GIVE_UP_LEASES} leases`);
        await sleep(this.pollMs);
        owing = await ledger.outstanding(fenceId);
      }
    } finally {
      await ledger.closeFence(fenceId).catch((error: unknown) => this.options.log(error, "a settled principal fence could not be removed"));
    }
  }

  /** Resolves once the first lease was asked for (held, or logged as not held: renewals keep trying). */
  async serve(handlers: FenceHandlers): Promise<() => Promise<void>> {
    this.handlers = handlers;
    this.begin();
    await this.renew();
    return () => this.leave();
  }

  async admit(): Promise<boolean> {
    if (!this.handlers) return false;
    if (!this.admits()) await this.renew();
    return this.admits();
  }

  private begin(): void {
    this.stopListening = this.options.ledger.listen(() => void this.settle());
    this.renewTimer = setInterval(() => void this.renew(), Math.max(1, Math.floor(this.options.leaseMs / 3)));
    this.renewTimer.unref();
  }

  private admits(): boolean {
    return this.now() < this.leaseUntil;
  }

  private async leave(): Promise<void> {
    this.handlers = undefined;
    this.stopListening?.();
    if (this.renewTimer) clearInterval(this.renewTimer);
    if (this.lapseTimer) clearTimeout(this.lapseTimer);
    this.leaseUntil = Number.NEGATIVE_INFINITY;
    await this.options.ledger.releaseLease(this.options.processId).catch((error: unknown) => {
      this.options.log(error, "the live feed lease could not be given up; it ends on its own");
    });
  }

  private renew(): Promise<void> {
    this.renewing ??= this.renewOnce().finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  private async renewOnce(): Promise<void> {
    if (!this.handlers) return;
    const { ledger, processId, leaseMs } = this.options;
    const sentAt = this.now();
    try {
      await ledger.renewLease(processId, leaseMs);
      if (!this.handlers) return;
      this.leaseUntil = Math.max(this.leaseUntil, sentAt + leaseMs - leaseMs / 5);
      this.armLapse();
      await this.settle();
    } catch (error) {
      this.options.log(error, "the live feed lease could not be renewed; the streams end when it lapses");
    }
  }

  private armLapse(): void {
    if (this.lapseTimer) clearTimeout(this.lapseTimer);
    this.lapseTimer = setTimeout(() => this.lapsed(), Math.max(0, this.leaseUntil - this.now()));
    this.lapseTimer.unref();
  }

  /** The lease may have ended in the ledger: fences may go unheard, so every stream ends now. */
  private lapsed(): void {
    this.lapseTimer = undefined;
    if (!this.handlers) return;
    if (this.admits()) {
      this.armLapse();
      return;
    }
    this.options.log(new Error("live feed lease lapsed"), "the live feed lease could not be renewed in time; every stream was ended");
    this.handlers.endEveryStream();
  }

  /** Reads the fences owed, ends their streams, acknowledges them; one pass at a time, again if nudged meanwhile. */
  private settle(): Promise<void> {
    if (this.settling) {
      this.settleAgain = true;
      return this.settling;
    }
    this.settling = (async () => {
      do {
        this.settleAgain = false;
        const handlers = this.handlers;
        if (!handlers) return;
        const owed: OwedFence[] = await this.options.ledger.owedBy(this.options.processId);
        if (owed.length === 0) continue;
        for (const fence of owed) handlers.endStreamsOf(fence.principal);
        await this.options.ledger.acknowledge(
          this.options.processId,
          owed.map((fence) => fence.fenceId),
        );
      } while (this.settleAgain);
    })()
      .catch((error: unknown) => this.options.log(error, "the principal fences owed could not be read or acknowledged"))
      .finally(() => {
        this.settling = undefined;
      });
    return this.settling;
  }
}
