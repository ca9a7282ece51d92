/**
 * Checks an account's credentials. The password's hash is paid once per `cacheTtlSeconds`: a
 * verified credential is remembered in the cache backend (shared by every process) under a key
 * derived from the account id by HMAC, holding an HMAC of the credential (never the password).
 * Changing or deleting the account deletes that entry, so the old password is refused at once
 * everywhere. Failed sign-ins are counted per account and per client address in the cache backend;
 * past the bound, sign-ins are refused (429) until the window ends, correct or not.
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
}

/** Remembered credentials whose refresh time this process keeps (oldest forgotten first). */
const REFRESHES_KEPT = 10_000;

export class AccountSignIn {
  /** Verified key → when this process last extended its life (ms). */
  private readonly refreshed = new Map<string, number>();
  /** Hashes under way, by credential: concurrent requests with one credential share one hash. */
  private readonly checking = new Map<string, Promise<string | undefined>>();

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
    const keys = this.keysOf(id, clientAddress);
    const [remembered, accountFailures, addressFailures] = await Promise.all([
      this.cache.get(keys.verified),
      this.cache.get(keys.accountFailures),
      keys.addressFailures === undefined ? Promise.resolve(undefined) : this.cache.get(keys.addressFailures),
    ]);
    // Before any comparison: a throttled guesser learns nothing, not even from a remembered credential.
    await this.refuseWhenThrottled([
      [keys.accountFailures, accountFailures],
      [keys.addressFailures, addressFailures],
    ]);
    const credential = this.mac(`credential\u0000${id}\u0000${password}`);
    if (typeof remembered === "string" && sameText(remembered, credential)) {
      await this.keepAlive(keys.verified);
      return id;
    }
    // On expiry, every request of a busy client misses at once: one hash for them all, per process.
    let pending = this.checking.get(credential);
    if (!pending) {
      pending = this.check(id, password, credential, keys, accountFailures, addressFailures).finally(() =>
        this.checking.delete(credential),
      );
      this.checking.set(credential, pending);
    }
    return pending;
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
      await this.countFailure(keys.accountFailures, accountFailures);
      if (keys.addressFailures !== undefined) await this.countFailure(keys.addressFailures, addressFailures);
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
    await this.cache.delete(this.keysOf(id, undefined).verified);
  }

  private keysOf(id: string, clientAddress: string | undefined) {
    const account = this.mac(`account\u0000${id}`);
    return {
      verified: `accounts:verified:${account}`,
      accountFailures: `accounts:failures:account:${account}`,
      addressFailures: clientAddress ? `accounts:failures:address:${this.mac(`address\u0000${clientAddress}`)}` : undefined,
    };
  }

  private mac(text: string): string {
    return createHmac("sha256", this.options.secret).update(text, "utf8").digest("hex");
  }

  private async refuseWhenThrottled(counters: readonly [string | undefined, JsonValue | undefined][]): Promise<void> {
    let wait = 0;
    for (const [key, count] of counters) {
      if (key === undefined || typeof count !== "number" || count < this.options.maxFailedSignIns) continue;
      wait = Math.max(wait, await this.cache.ttl(key));
    }
    if (wait > 0) throw new SignInThrottledError(Math.max(1, Math.ceil(wait)));
  }

  /**
   * One more failure in the window that the first failure opened. Read then written, not atomic:
   * failures that race may count once, so a burst of concurrent guesses may exceed the bound by
   * its width, never for longer than one window.
   */
  private async countFailure(key: string, previous: JsonValue | undefined): Promise<void> {
    const count = typeof previous === "number" ? previous : 0;
    const left = count === 0 ? this.options.failedSignInWindowSeconds : await this.cache.ttl(key);
    await this.cache.set(key, count + 1, left > 0 ? left : this.options.failedSignInWindowSeconds);
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  return left.length === right.length && timingSafeEqual(left, right);
}
