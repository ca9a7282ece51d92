/**
 * Who may send an unknown opaque token to the userinfo endpoint now. Each client address has a
 * budget of refused lookups per window (an invented token is refused by the provider, so an
 * address that invents tokens soon stops reaching it, at no cost to others) and a share of the
 * lookups that run at once (so that one address cannot hold every slot while the provider is
 * slow). A lookup the provider answers with a user gives its charge back: many real users behind
 * one address are not bounded. Counted in this process.
 */

/** Userinfo requests per provider running at once, all addresses together. */
export const MAX_CONCURRENT_LOOKUPS = 16;
/** Of those, the most one client address may hold. */
export const MAX_CONCURRENT_LOOKUPS_PER_ADDRESS = 4;
/** Addresses whose counts are kept; beyond it the oldest idle ones are forgotten. */
export const MAX_ADDRESSES = 10_000;

export interface LookupTicket {
  /** Frees the slot; a lookup that was not refused (a user, or the provider could not say) is not charged. */
  finish(refused: boolean): void;
}

/** A ticket, or why not: `spent` (the address's budget: no lookup), `busy` (no slot free now). */
export type Admission = LookupTicket | "spent" | "busy";

interface AddressCount {
  windowStart: number;
  /** Lookups refused or still running in this window. */
  charged: number;
  running: number;
}

export class UserinfoAdmission {
  private readonly addresses = new Map<string, AddressCount>();
  private running = 0;

  constructor(
    private readonly refusalsPerWindow: number,
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  /** Addresses whose counts are kept now (bounded by MAX_ADDRESSES). */
  get addressesKept(): number {
    return this.addresses.size;
  }

  admit(address: string): Admission {
    const count = this.countOf(address);
    if (count.charged >= this.refusalsPerWindow) return "spent";
    if (this.running >= MAX_CONCURRENT_LOOKUPS || count.running >= MAX_CONCURRENT_LOOKUPS_PER_ADDRESS) return "busy";
    count.charged += 1;
    count.running += 1;
    this.running += 1;
    let finished = false;
    return {
      finish: (refused) => {
        if (finished) return;
        finished = true;
        count.running -= 1;
        this.running -= 1;
        if (!refused) count.charged = Math.max(0, count.charged - 1);
      },
    };
  }

  private countOf(address: string): AddressCount {
    const now = this.now();
    const known = this.addresses.get(address);
    if (known && now - known.windowStart < this.windowMs) return known;
    if (known) {
      // A new window (lookups still running stay charged): moved to the end, so the map stays in window order.
      this.addresses.delete(address);
      Object.assign(known, { windowStart: now, charged: known.running });
      this.addresses.set(address, known);
      return known;
    }
    if (this.addresses.size >= MAX_ADDRESSES) this.forget(now);
    const fresh = { windowStart: now, charged: 0, running: 0 };
    this.addresses.set(address, fresh);
    return fresh;
  }

  /** Forgets the addresses whose window is over, oldest first; when none is, the oldest idle one. */
  private forget(now: number): void {
    for (const [address, count] of this.addresses) {
      if (now - count.windowStart < this.windowMs) break;
      if (count.running === 0) this.addresses.delete(address);
    }
    if (this.addresses.size < MAX_ADDRESSES) return;
    for (const [address, count] of this.addresses)
      if (count.running === 0) {
        this.addresses.delete(address);
        return;
      }
  }
}
