/**
 * Checks an account's credentials. The password's hash is paid once per `cacheTtlSeconds`: a
 * verified credential is remembered in the cache backend (shared by every process) under a key
 * derived from the account id by HMAC, holding an HMAC of the credential (never the password).
 * Changing or deleting the account deletes that entry, so the old password is refused once each
 * process's memo (below) has lapsed. Failed sign-ins are counted per account and per client address in the cache backend;
 * past the bound, sign-ins are refused (429) until the window ends, correct or not: a throttled
 * account's remembered credential is deleted, and only a request that misses it reads the counters.
 *
 * In front of that read, each process memoises for `localCacheSeconds` the credentials it verified
 * or found remembered: a change or deletion is refused at once by the process that made it, and by
 * the others at the latest `localCacheSeconds` after it completed (0: no memo, today's behaviour).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { JsonValue } from "../../domain/json.js";
import type { Cache } from "../ports/cache.js";
import type { AccountStore } from "./account-store.js";
import { isValidAccountId, MAX_PASSWORD_LENGTH } from "./account-rules.js";
import type { PasswordHasher } from "./password-hasher.js";
import { SignInThrottledError } from "./sign-in-throttled-error.js";

export interface SignInOptions {
  /** `userid_hmac_secret`: keys the cache keys and the remembered credentials. */
  readonly secret: string;
  readonly cacheTtlSeconds: number;
  readonly maxFailedSignIns: number;
  readonly failedSignInWindowSeconds: number;
  /** `account_local_cache_seconds`: how long this process trusts a credential without the cache read. */
  readonly localCacheSeconds?: number;
}

/** Credentials whose HMACs this process keeps (oldest forgotten first). */
const MACS_KEPT = 1000;

/** Remembered credentials whose refresh time this process keeps (oldest forgotten first). */
const REFRESHES_KEPT = 10_000;

/** Accounts whose credential this process memoises (oldest forgotten first). */
const MEMOS_KEPT = 10_000;

export class AccountSignIn {
  private readonly macs = new Map<string, { credential: string; account: string }>();
  /** Verified key → when this process last extended its life (ms). */
  private readonly refreshed = new Map<string, number>();
  /** Hashes under way, by credential: concurrent requests with one credential share one hash. */
  private readonly checking = new Map<string, Promise<string | undefined>>();
  /** Account HMAC → its correct credential's HMAC, trusted without the cache read until `until` (ms). */
  private readonly memos = new Map<string, { credential: string; until: number }>();
  /** Counts `forget` calls: a check that one overlapped memoises nothing (its answer may be stale). */
  private forgets = 0;

  constructor(
    private readonly store: AccountStore,
    private readonly cache: Cache,
    private readonly hasher: PasswordHasher,
    private readonly options: SignInOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The account id when `password` is this account's, undefined when it is not an account's
   * credential (unknown id, wrong password). Throws SignInThrottledError past the bound.
   */
  async verify(id: string, password: string, clientAddress: string | undefined): Promise<string | undefined> {
    if (!isValidAccountId(id) || password.length === 0 || password.length > MAX_PASSWORD_LENGTH) return undefined;
    const { credential, account } = this.macsOf(id, password);
    // Timed and counted before any read, so that a memo never outlives a change by more than the bound.
    const started = this.now();
    const generation = this.forgets;
    const memo = this.memos.get(account);
    if (memo !== undefined && memo.until > started && sameText(memo.credential, credential)) return id;
    const verified = `accounts:verified:${account}`;
    // One cache read for a credential in use. A throttled account has no remembered credential
    // (reaching the bound deletes it), so a hit never lets a throttled guesser through.
    const remembered = await this.cache.get(verified);
    if (typeof remembered === "string" && sameText(remembered, credential)) {
      this.memoise(account, credential, started, generation);
      await this.keepAlive(verified);
      return id;
    }
    const keys = this.keysOf(account, clientAddress);
    const [accountFailures, addressFailures] = await Promise.all([
      this.cache.get(keys.accountFailures),
      keys.addressFailures === undefined ? Promise.resolve(undefined) : this.cache.get(keys.addressFailures),
    ]);
    if (this.reached(accountFailures)) throw await this.throttled(keys.accountFailures);
    if (keys.addressFailures !== undefined && this.reached(addressFailures)) {
      // Each refused try counts against the account too: a throttled address cannot go on
      // guessing one account and tell a remembered (right) password from a wrong one.
      await this.countFailure(id, keys.accountFailures, accountFailures);
      throw await this.throttled(keys.addressFailures);
    }
    // On expiry, every request of a busy client misses at once: one hash for them all, per process.
    let pending = this.checking.get(credential);
    if (!pending) {
      pending = this.check(id, password, credential, keys, accountFailures, addressFailures).finally(() =>
        this.checking.delete(credential),
      );
      this.checking.set(credential, pending);
    }
    const result = await pending;
    if (result !== undefined) this.memoise(account, credential, started, generation);
    return result;
  }

  /**
   * Trusts a correct credential in this process until `localCacheSeconds` after `started`, unless
   * a `forget` ran since (only correct credentials get here: a guess never hits the memo).
   */
  private memoise(account: string, credential: string, started: number, generation: number): void {
    const seconds = this.options.localCacheSeconds ?? 0;
    if (seconds <= 0 || generation !== this.forgets) return;
    this.memos.delete(account);
    if (this.memos.size >= MEMOS_KEPT) this.memos.delete(this.memos.keys().next().value as string);
    this.memos.set(account, { credential, until: started + seconds * 1000 });
  }

  private async check(
    id: string,
    password: string,
    credential: string,
    keys: ReturnType<AccountSignIn["keysOf"]>,
    accountFailures: JsonValue | undefined,
    addressFailures: JsonValue | undefined,
  ): Promise<string | undefined> {
    const account = await this.store.get(id);
    if (!account) return undefined; // ids are public (sign-up tells them): nothing to hide, nothing to count
    if (!(await this.hasher.verify(password, account.passwordHash))) {
      await this.countFailure(id, keys.accountFailures, accountFailures);
      if (keys.addressFailures !== undefined) await this.countFailure(undefined, keys.addressFailures, addressFailures);
      return undefined;
    }
    await this.cache.set(keys.verified, credential, this.options.cacheTtlSeconds);
    // A password change or deletion that ran meanwhile may have deleted the entry before it was written: it wins.
    const now = await this.store.get(id);
    if (now?.passwordHash !== account.passwordHash) {
      await this.cache.delete(keys.verified);
      return undefined;
    }
    if (accountFailures !== undefined) await this.cache.delete(keys.accountFailures);
    return id;
  }

  /**
   * A credential in use stays remembered: its life is extended (at most every third of the TTL
   * per process). `expire` never recreates a deleted entry, so a password change or a deletion
   * racing with it still wins.
   */
  private async keepAlive(key: string): Promise<void> {
    const now = this.now();
    const last = this.refreshed.get(key);
    if (last !== undefined && now - last < (this.options.cacheTtlSeconds * 1000) / 3) return;
    this.refreshed.delete(key);
    if (this.refreshed.size >= REFRESHES_KEPT) this.refreshed.delete(this.refreshed.keys().next().value as string);
    this.refreshed.set(key, now);
    await this.cache.expire(key, this.options.cacheTtlSeconds);
  }

  /** Forgets the remembered credential of the account (after a password change or deletion). */
  async forget(id: string): Promise<void> {
    const account = this.mac(`account\u0000${id}`);
    this.forgets += 1;
    this.memos.delete(account);
    await this.cache.delete(this.keysOf(account, undefined).verified);
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
  private keysOf(account: string, clientAddress: string | undefined) {
    return {
      verified: `accounts:verified:${account}`,
      accountFailures: `accounts:failures:account:${account}`,
      addressFailures: clientAddress ? `accounts:failures:address:${this.mac(`address\u0000${clientAddress}`)}` : undefined,
    };
  }

  private mac(text: string): string {
    return createHmac("sha256", this.options.secret).update(text, "utf8").digest("hex");
  }

  private reached(count: JsonValue | undefined): boolean {
    return typeof count === "number" && count >= this.options.maxFailedSignIns;
  }

  private async throttled(key: string): Promise<SignInThrottledError> {
    const left = await this.cache.ttl(key);
    return new SignInThrottledError(Math.max(1, Math.ceil(left > 0 ? left : this.options.failedSignInWindowSeconds)));
  }

  /**
   * One more failure in the window that the first failure opened; an account reaching the bound
   * loses its remembered credential. Read then written, not atomic: failures that race may count
   * once, so a burst of concurrent guesses may exceed the bound by its width, within one window.
   */
  private async countFailure(accountId: string | undefined, key: string, previous: JsonValue | undefined): Promise<void> {
    const count = typeof previous === "number" ? previous : 0;
    const left = count === 0 ? this.options.failedSignInWindowSeconds : await this.cache.ttl(key);
    await this.cache.set(key, count + 1, left > 0 ? left : this.options.failedSignInWindowSeconds);
    if (accountId !== undefined && count + 1 >= this.options.maxFailedSignIns) await this.forget(accountId);
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  return left.length === right.length && timingSafeEqual(left, right);
}
