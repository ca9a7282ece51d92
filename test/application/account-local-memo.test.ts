/**
 * The per-process memo in front of the verification cache (`account_local_cache_seconds`): two
 * AccountSignIn instances over one cache stand for two processes.
 */
import { expect } from "chai";
import { MemoryAccountStore } from "../../src/adapters/memory/account-memory-store.js";
import { MemoryCache } from "../../src/adapters/memory/memory-cache.js";
import { ScryptPasswordHasher } from "../../src/adapters/auth/scrypt-password-hasher.js";
import { AccountSignIn } from "../../src/application/accounts/account-sign-in.js";
import { SignInThrottledError } from "../../src/application/accounts/sign-in-throttled-error.js";
import type { JsonValue } from "../../src/domain/json.js";

class CountingCache extends MemoryCache {
  reads = 0;
  /** When set, the next read answers what it read only once the gate opens (a slow backend). */
  gate: Promise<void> | undefined;
  override async get(key: string): Promise<JsonValue | undefined> {
    this.reads += 1;
    const slow = this.gate;
    this.gate = undefined;
    const value = await super.get(key);
    if (slow) await slow;
    return value;
  }
}

/** A gate and the function that opens it. */
function gate(): { closed: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const closed = new Promise<void>((resolve) => (open = resolve));
  return { closed, open };
}

describe("account sign-in: the per-process memo", () => {
  let time = 5_000_000;
  const clock = { now: () => time };
  const hasher = new ScryptPasswordHasher({ cost: 4 });
  let store: MemoryAccountStore;
  let cache: CountingCache;

  const signInProcess = (localCacheSeconds: number) =>
    new AccountSignIn(
      store,
      cache,
      hasher,
      { secret: "s", cacheTtlSeconds: 30, maxFailedSignIns: 3, failedSignInWindowSeconds: 60, localCacheSeconds },
      clock.now,
    );

  /** What AccountService.changePassword does on `here`. */
  async function changePassword(here: AccountSignIn, password: string): Promise<void> {
    await store.updatePassword("alice", await hasher.hash(password), time);
    await here.forget("alice");
  }

  beforeEach(async () => {
    store = new MemoryAccountStore();
    cache = new CountingCache("t:", clock);
    await store.create({ id: "alice", passwordHash: await hasher.hash("old"), lastModified: 1 });
  });

  it("accepts a credential verified less than the bound ago without reading the cache", async () => {
    const here = signInProcess(2);
    await here.verify("alice", "old", undefined);
    const reads = cache.reads;
    time += 1_999;
    expect(await here.verify("alice", "old", undefined)).to.equal("alice");
    expect(cache.reads).to.equal(reads);
    time += 1; // the bound: read again
    expect(await here.verify("alice", "old", undefined)).to.equal("alice");
    expect(cache.reads).to.be.greaterThan(reads);
  });

  it("on another process, accepts the old password at most until the bound after a change, then refuses it", async () => {
    const here = signInProcess(2);
    const there = signInProcess(2);
    await there.verify("alice", "old", undefined);
    time += 500;
    await changePassword(here, "new");
    const changed = time;
    time = changed + 1_499; // 2 s after `there` verified it: still within the memo
    expect(await there.verify("alice", "old", undefined)).to.equal("alice");
    time = changed + 2_000; // the bound after the change, at the latest
    expect(await there.verify("alice", "old", undefined)).to.equal(undefined);
    expect(await there.verify("alice", "new", undefined)).to.equal("alice");
  });

  it("refuses the old password at once in the process that changed it", async () => {
    const here = signInProcess(2);
    await here.verify("alice", "old", undefined);
    await changePassword(here, "new");
    expect(await here.verify("alice", "old", undefined)).to.equal(undefined);
  });

  it("memoises nothing from a cache read that a change in this process overlapped", async () => {
    const here = signInProcess(2);
    await signInProcess(2).verify("alice", "old", undefined); // remembered in the shared cache
    const slow = gate();
    cache.gate = slow.closed;
    const reading = here.verify("alice", "old", undefined); // reads the entry; the answer comes late
    await changePassword(here, "new");
    slow.open();
    await reading;
    expect(await here.verify("alice", "old", undefined)).to.equal(undefined);
  });

  it("counts the bound from before a slow cache read, so a stale answer is trusted no longer", async () => {
    const here = signInProcess(2);
    const there = signInProcess(2);
    await here.verify("alice", "old", undefined); // remembered in the shared cache
    const slow = gate();
    cache.gate = slow.closed;
    const reading = there.verify("alice", "old", undefined); // reads the old entry at `time`
    time += 500;
    await changePassword(here, "new");
    const changed = time;
    time += 500;
    slow.open(); // the stale answer arrives after the change
    expect(await reading).to.equal("alice");
    time = changed + 2_000;
    expect(await there.verify("alice", "old", undefined)).to.equal(undefined);
  });

  it("with 0, refuses the old password on another process at once (no memo)", async () => {
    const here = signInProcess(0);
    const there = signInProcess(0);
    await there.verify("alice", "old", undefined);
    await changePassword(here, "new");
    expect(await there.verify("alice", "old", undefined)).to.equal(undefined);
  });

  it("lets no guess through a memo, and keeps the owner's memo while guesses are refused", async () => {
    const here = signInProcess(60);
    expect(await here.verify("alice", "old", undefined)).to.equal("alice");
    for (let i = 0; i < 3; i += 1) expect(await here.verify("alice", `guess-${i}`, undefined)).to.equal(undefined);
    let refused: unknown;
    await here.verify("alice", "guess-3", undefined).catch((error: unknown) => (refused = error));
    expect(refused).to.be.instanceOf(SignInThrottledError);
    expect(await here.verify("alice", "old", undefined)).to.equal("alice");
  });
});
