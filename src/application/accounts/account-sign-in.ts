/**
 * Checks an account's credentials (docs/authentication.md, "Accounts").
 *
 * Remembered credentials: a verified credential is kept in the cache backend for
 * `cacheTtlSeconds` from its hash, never longer (using it does not extend it), under a key derived
 * from the account id by HMAC, holding HMACs of the credential and of the password's hash (never
 * either). One in use is hashed again in the background in the last third of its life, so that
 * its user never waits for that hash, and a password changed meanwhile ends it. A password change or deletion deletes it; each process's memo trusts a credential for
 * at most `localCacheSeconds` more. When the cache backend is the process's own while the accounts
 * are shared (`cacheShared: false`), a remembered credential is checked against the store before it
 * is trusted, so a change on one process is refused on the others as fast as with a shared cache.
 *
 * Throttling: every check that needs a hash is counted first, atomically, per client address and
 * per account, and refunded when the password was right. An address past the bound is refused
 * without a hash and costs the accounts it tries nothing. An account past the bound (under attack)
 * is checked only for addresses that tried nothing else in the window, so its owner still gets in.
 * Hashes take turns by address (HashTurns), unknown ids cost a hash too (a dummy one), and a check
 * whose clients have all gone is dropped before its hash.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { JsonValue } from "../../domain/json.js";
import type { Cache } from "../ports/cache.js";
import type { AccountStore } from "./account-store.js";
import { isValidAccountId, MAX_PASSWORD_LENGTH } from "./account-rules.js";
import { HashTurns } from "./hash-turns.js";
import type { PasswordHasher } from "./password-hasher.js";
import { SharedInterest } from "./shared-interest.js";
import { SignInThrottledError } from "./sign-in-throttled-error.js";

export interface SignInOptions {
  /** `userid_hmac_secret`: keys the cache keys and the remembered credentials. */
  readonly secret: string;
  readonly cacheTtlSeconds: number;
  readonly maxFailedSignIns: number;
  readonly failedSignInWindowSeconds: number;
  /** `account_local_cache_seconds`: how long this process trusts a credential without the cache read. */
  readonly localCacheSeconds?: number;
  /** Whether every process reading the accounts reads this cache backend too (default true). */
  readonly cacheShared?: boolean;
  /** Password checks running at once in this process (the hasher's concurrency; default 2). */
  readonly hashesAtOnce?: number;
}

/**
 * Who asks for a hash (a request): its address takes turns (HashTurns) and is counted; its signal,
 * asked for only when the hash must wait, drops it once the client has gone.
 */
export interface HashClient {
  readonly clientAddress?: string;
  clientGone?(): AbortSignal | undefined;
}

/** Who signed in, and the tag of the password hash they signed in with (to tell later whether it still holds). */
export interface SignedIn {
  readonly id: string;
  readonly passwordTag: string;
}

/** Credentials (and client addresses) whose HMACs this process keeps (oldest forgotten first). */
const MACS_KEPT = 1000;
/** Accounts whose credential this process memoises (oldest forgotten first). */
const MEMOS_KEPT = 10_000;
/** Throttled addresses this process remembers (oldest forgotten first). */
const THROTTLED_KEPT = 10_000;
/** Checks one address may have waiting for a hash, and all addresses together. */
const WAITING_PER_ADDRESS = 4;
const WAITING_IN_ALL = 64;

interface Keys {
  readonly verified: string;
  readonly accountFailures: string;
  readonly addressFailures: string | undefined;
}

interface Remembered {
  /** HMAC of the credential. */
  readonly c: string;
  /** HMAC of the password hash it was verified against. */
  readonly h: string;
  /** When it was verified (ms). */
  readonly v: number;
}

export class AccountSignIn {
  private readonly macs = new Map<string, { credential: string; account: string }>();
  private readonly addressMacs = new Map<string, string>();
  /** Checks under way, by credential: concurrent requests with one credential share one hash. */
  private readonly checking = new Map<string, { result: Promise<SignedIn | undefined>; interest: SharedInterest }>();
  /** Account HMAC → its correct credential's HMAC and password tag, trusted without the cache read until `until` (ms). */
  private readonly memos = new Map<string, { credential: string; tag: string; until: number }>();
  /** Client address → until when (ms) this process knows it is throttled: it is refused before any read. */
  private readonly throttledAddresses = new Map<string, number>();
  private readonly turns: HashTurns;
  /** Credentials being hashed again in the background (one renewal at a time each). */
  private readonly renewing = new Set<string>();
  private dummyHash: Promise<string> | undefined;
  /** Counts `forget` calls: a check that one overlapped memoises nothing (its answer may be stale). */
  private forgets = 0;

  constructor(
    private readonly store: AccountStore,
    private readonly cache: Cache,
    private readonly hasher: PasswordHasher,
    private readonly options: SignInOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.turns = new HashTurns({ atOnce: options.hashesAtOnce ?? 2, waitingPerAddress: WAITING_PER_ADDRESS, waitingInAll: WAITING_IN_ALL });
  }

  /** The account id when `password` is this account's, else undefined. Throws SignInThrottledError when refused. */
  async verify(
    id: string,
    password: string,
    clientAddress: string | undefined,
    clientGone?: () => AbortSignal | undefined,
  ): Promise<string | undefined> {
    return (await this.signIn(id, password, { clientAddress, clientGone }))?.id;
  }

  /**
   * Who `id` and `password` sign in as, or undefined when they are no account's credential
   * (unknown id, wrong password). Throws SignInThrottledError past the bounds.
   */
  async signIn(id: string, password: string, client: HashClient): Promise<SignedIn | undefined> {
    const { clientAddress } = client;
    if (!isValidAccountId(id) || password.length === 0 || password.length > MAX_PASSWORD_LENGTH) return undefined;
    this.refuseKnownThrottled(clientAddress);
    const { credential, account } = this.macsOf(id, password);
    // Timed and counted before any read, so that a memo never outlives a change by more than the bound.
    const started = this.now();
    const generation = this.forgets;
    const memo = this.memos.get(account);
    if (memo !== undefined && memo.until > started && sameText(memo.credential, credential)) return { id, passwordTag: memo.tag };
    const keys = this.keysOf(account, clientAddress);
    // The address's count is read beside the remembered credential: a throttled address is refused
    // even a right password here, on every process, so that it cannot tell a right guess from a wrong one.
    const [stored, fromAddress] = await Promise.all([
      this.cache.get(keys.verified),
      keys.addressFailures === undefined ? undefined : this.cache.get(keys.addressFailures),
    ]);
    if (keys.addressFailures !== undefined && typeof fromAddress === "number" && fromAddress >= this.options.maxFailedSignIns)
      throw await this.refuseAddress(keys.addressFailures, clientAddress);
    const remembered = rememberedOf(stored);
    if (remembered !== undefined && sameText(remembered.c, credential)) {
      if (this.options.cacheShared !== false || (await this.stillCurrent(id, remembered.h))) {
        this.memoise(account, credential, remembered.h, started, generation);
        if (started - remembered.v > (this.options.cacheTtlSeconds * 1000 * 2) / 3)
          this.renew(id, password, credential, keys, clientAddress);
        return { id, passwordTag: remembered.h };
      }
    }
    // On expiry, every request of a busy client misses at once: one check for them all, per process.
    let pending = this.checking.get(credential);
    if (!pending) {
      const interest = new SharedInterest();
      const result = this.check(id, password, credential, keys, clientAddress, interest.signal).finally(() =>
        this.checking.delete(credential),
      );
      pending = { result, interest };
      this.checking.set(credential, pending);
    }
    pending.interest.join(client.clientGone?.());
    const result = await pending.result;
    if (result !== undefined) this.memoise(account, credential, result.passwordTag, started, generation);
    return result;
  }

  /**
   * Hashes a new password (sign-up, change, reset) in the client's turn with the sign-ins' checks,
   * so that a flood of sign-ups from one address holds no one else's sign-in back. Not counted:
   * it tells nothing about any password.
   */
  hashPassword(password: string, client?: HashClient): Promise<string> {
    return this.turns.run(client?.clientAddress ?? "", () => this.hasher.hash(password), client?.clientGone?.());
  }

  /** Whether the account still has the password hash `passwordTag` was made of (read from the store, never a cache). */
  async stillCurrent(id: string, passwordTag: string): Promise<boolean> {
    const account = await this.store.get(id);
    return account !== undefined && sameText(this.tagOf(account.passwordHash), passwordTag);
  }

  /** Forgets the remembered credential of the account (after a password change or deletion). */
  async forget(id: string): Promise<void> {
    const account = this.mac(`account\u0000${id}`);
    this.forgets += 1;
    this.memos.delete(account);
    await this.cache.delete(this.keysOf(account, undefined).verified);
  }

  /** Counted, then hashed in the address's turn; the count is refunded when the password was right. */
  private async check(
    id: string,
    password: string,
    credential: string,
    keys: Keys,
    clientAddress: string | undefined,
    signal: AbortSignal,
  ): Promise<SignedIn | undefined> {
    await this.admit(keys, clientAddress);
    const account = await this.store.get(id);
    // An unknown id costs the same hash as a known one: timing tells no id apart.
    const encoded = account?.passwordHash ?? (await this.dummy());
    const matches = await this.turns
      .run(clientAddress ?? "", () => this.hasher.verify(password, encoded), signal)
      .catch(async (error: unknown) => {
        // Refused a turn, or its client gone: no answer was given, so the try is no failure.
        await this.refund(keys);
        throw error;
      });
    if (account === undefined || !matches) return undefined;
    const passwordTag = await this.remember(id, account.passwordHash, credential, keys);
    if (passwordTag === undefined) return undefined;
    await this.refund(keys);
    // Admitted and right: whatever refusal this process remembers of the address was a passing crowd's.
    if (clientAddress !== undefined) this.throttledAddresses.delete(clientAddress);
    return { id, passwordTag };
  }

  /** Writes the remembered credential; undefined (and nothing kept) when the password changed meanwhile. */
  private async remember(id: string, passwordHash: string, credential: string, keys: Keys): Promise<string | undefined> {
    const passwordTag = this.tagOf(passwordHash);
    const remembered: Remembered = { c: credential, h: passwordTag, v: this.now() };
    await this.cache.set(keys.verified, { ...remembered }, this.options.cacheTtlSeconds);
    // A password change or deletion that ran meanwhile may have deleted the entry before it was written: it wins.
    const now = await this.store.get(id);
    if (now?.passwordHash === passwordHash) return passwordTag;
    await this.cache.delete(keys.verified);
    return undefined;
  }

  /**
   * Hashes a remembered credential in use again, in the background (in its address's turn, not
   * counted: it was right): a right one is remembered anew, a wrong one (the password changed
   * elsewhere) is forgotten. A failure leaves the entry to expire; the next use then hashes.
   */
  private renew(id: string, password: string, credential: string, keys: Keys, clientAddress: string | undefined): void {
    if (this.renewing.has(credential)) return;
    this.renewing.add(credential);
    const renewal = async () => {
      const account = await this.store.get(id);
      const matches =
        account !== undefined && (await this.turns.run(clientAddress ?? "", () => this.hasher.verify(password, account.passwordHash)));
      if (account !== undefined && matches) await this.remember(id, account.passwordHash, credential, keys);
      else await this.cache.delete(keys.verified);
    };
    void renewal()
      .catch(() => undefined)
      .finally(() => this.renewing.delete(credential));
  }

  /**
   * Counts the try before its hash, atomically, so that concurrent guesses cannot pass the bound.
   * A count is a reservation until the answer: a try refused here, or refused a turn, gets no
   * answer and is taken back, as a right password is, so that only wrong passwords stay counted.
   * A throttled address is refused before the account is counted: its tries cost the victim
   * nothing. An account past its bound is checked only for an address with no other try in the window.
   */
  private async admit(keys: Keys, clientAddress: string | undefined): Promise<void> {
    const { maxFailedSignIns: max, failedSignInWindowSeconds: window } = this.options;
    const fromAddress = keys.addressFailures === undefined ? undefined : await this.cache.increment(keys.addressFailures, 1, window);
    if (keys.addressFailures !== undefined && fromAddress !== undefined && fromAddress > max) {
      await this.cache.increment(keys.addressFailures, -1, window);
      throw await this.refuseAddress(keys.addressFailures, clientAddress);
    }
    const onAccount = await this.cache.increment(keys.accountFailures, 1, window);
    if (onAccount > max && (fromAddress === undefined || fromAddress > 1)) {
      await this.refund(keys);
      throw await this.throttled(keys.accountFailures);
    }
  }

  /** A try that was no failure (a right password, or one never answered) is taken back from both counts. */
  private async refund(keys: Keys): Promise<void> {
    const window = this.options.failedSignInWindowSeconds;
    await Promise.all([
      this.cache.increment(keys.accountFailures, -1, window),
      keys.addressFailures === undefined ? undefined : this.cache.increment(keys.addressFailures, -1, window),
    ]);
  }

  /** The refusal of a throttled address, remembered by this process until the address's window ends. */
  private async refuseAddress(key: string, clientAddress: string | undefined): Promise<SignInThrottledError> {
    const refusal = await this.throttled(key);
    if (clientAddress !== undefined) this.rememberThrottled(clientAddress, refusal.retryAfterSeconds);
    return refusal;
  }

  /** An address this process saw refused is refused again at once, remembered credential or not, until its window ends. */
  private refuseKnownThrottled(clientAddress: string | undefined): void {
    if (clientAddress === undefined || this.throttledAddresses.size === 0) return;
    const until = this.throttledAddresses.get(clientAddress);
    if (until === undefined) return;
    const left = until - this.now();
    if (left > 0) throw new SignInThrottledError(Math.ceil(left / 1000));
    this.throttledAddresses.delete(clientAddress);
  }

  private rememberThrottled(clientAddress: string, seconds: number): void {
    this.throttledAddresses.delete(clientAddress);
    if (this.throttledAddresses.size >= THROTTLED_KEPT)
      this.throttledAddresses.delete(this.throttledAddresses.keys().next().value as string);
    this.throttledAddresses.set(clientAddress, this.now() + seconds * 1000);
  }

  /**
   * Trusts a correct credential in this process until `localCacheSeconds` after `started`, unless
   * a `forget` ran since (only correct credentials get here: a guess never hits the memo).
   */
  private memoise(account: string, credential: string, tag: string, started: number, generation: number): void {
    const seconds = this.options.localCacheSeconds ?? 0;
    if (seconds <= 0 || generation !== this.forgets) return;
    this.memos.delete(account);
    if (this.memos.size >= MEMOS_KEPT) this.memos.delete(this.memos.keys().next().value as string);
    this.memos.set(account, { credential, tag, until: started + seconds * 1000 });
  }

  /** A hash of a random password at the hasher's cost, made once: what an unknown id is checked against. */
  private dummy(): Promise<string> {
    this.dummyHash ??= this.hasher.hash(randomBytes(18).toString("base64"));
    return this.dummyHash;
  }

  /**
   * The credential's and the account's HMACs, remembered per credential seen (as Basic Auth ids
   * are): a request with a remembered credential computes none.
   */
  private macsOf(id: string, password: string): { credential: string; account: string } {
    const text = `${id}\u0000${password}`;
    let macs = this.macs.get(text);
    if (!macs) {
      macs = { credential: this.mac(`credential\u0000${text}`), account: this.mac(`account\u0000${id}`) };
      if (this.macs.size >= MACS_KEPT) this.macs.delete(this.macs.keys().next().value as string);
      this.macs.set(text, macs);
    }
    return macs;
  }

  /** `account`: the HMAC of the account id. */
  private keysOf(account: string, clientAddress: string | undefined): Keys {
    return {
      verified: `accounts:verified:${account}`,
      accountFailures: `accounts:failures:account:${account}`,
      addressFailures: clientAddress ? `accounts:failures:address:${this.addressMac(clientAddress)}` : undefined,
    };
  }

  /** The HMAC of a client address, remembered as credentials' are: a signed-in client's requests compute none. */
  private addressMac(clientAddress: string): string {
    let mac = this.addressMacs.get(clientAddress);
    if (mac === undefined) {
      mac = this.mac(`address\u0000${clientAddress}`);
      if (this.addressMacs.size >= MACS_KEPT) this.addressMacs.delete(this.addressMacs.keys().next().value as string);
      this.addressMacs.set(clientAddress, mac);
    }
    return mac;
  }

  private tagOf(passwordHash: string): string {
    return this.mac(`password-hash\u0000${passwordHash}`);
  }

  private mac(text: string): string {
    return createHmac("sha256", this.options.secret).update(text, "utf8").digest("hex");
  }

  private async throttled(key: string): Promise<SignInThrottledError> {
    const left = await this.cache.ttl(key);
    return new SignInThrottledError(Math.max(1, Math.ceil(left > 0 ? left : this.options.failedSignInWindowSeconds)));
  }
}

/** A remembered entry as written by `check` (anything else, such as an older format, is no entry). */
function rememberedOf(value: JsonValue | undefined): Remembered | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const { c, h, v } = value;
  return typeof c === "string" && typeof h === "string" && typeof v === "number" ? { c, h, v } : undefined;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  return left.length === right.length && timingSafeEqual(left, right);
}
