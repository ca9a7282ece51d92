/**
 * Tokens recently accepted, with what they proved and until when: a request with a token seen
 * before pays neither a signature check nor a cache read. Bounded in size (oldest forgotten
 * first) and in time (never past the token's own expiry).
 */
import type { TokenIdentity } from "./token-claims.js";

export class RememberedTokens {
  private readonly entries = new Map<string, { identity: TokenIdentity; until: number }>();

  constructor(
    private readonly capacity: number,
    private readonly now: () => number,
  ) {}

  get(token: string): TokenIdentity | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.until <= this.now()) {
      this.entries.delete(token);
      return undefined;
    }
    return entry.identity;
  }

  remember(token: string, identity: TokenIdentity, until: number): void {
    if (until <= this.now() || this.capacity <= 0) return;
    this.entries.delete(token);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(token, { identity, until });
  }
}
