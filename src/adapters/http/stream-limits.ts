/**
 * Open live-feed streams per client address and per user, in this process. A stream holds a
 * connection for as long as it lasts: without these bounds one client (any number of invented
 * Basic credentials from one address) could hold every connection the server has.
 */
import type { RefusalReason } from "./metrics.js";

export interface StreamBounds {
  readonly maxPerAddress: number;
  readonly maxPerUser: number;
}

export class StreamCounts {
  private readonly byAddress = new Map<string, number>();
  private readonly byUser = new Map<string, number>();

  constructor(private readonly bounds: StreamBounds) {}

  /**
   * Takes a place for one stream of `address` (its addressKey) and `user` (undefined:
   * anonymous, bounded by its address only), or names the bound it would pass. The returned
   * release may be called any number of times; it gives the place back once.
   */
  acquire(address: string, user: string | undefined): { release(): void } | RefusalReason {
    if ((this.byAddress.get(address) ?? 0) >= this.bounds.maxPerAddress) return "streams_per_address";
    if (user !== undefined && (this.byUser.get(user) ?? 0) >= this.bounds.maxPerUser) return "streams_per_user";
    add(this.byAddress, address, 1);
    if (user !== undefined) add(this.byUser, user, 1);
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        add(this.byAddress, address, -1);
        if (user !== undefined) add(this.byUser, user, -1);
      },
    };
  }
}

function add(counts: Map<string, number>, key: string, delta: number): void {
  const next = (counts.get(key) ?? 0) + delta;
  if (next > 0) counts.set(key, next);
  else counts.delete(key);
}
