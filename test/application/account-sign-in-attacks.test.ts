/**
 * The sign-in check as an attacker tries it: bursts of concurrent guesses, lock-outs of other
 * people's accounts, invented ids, remembered credentials that outlive a change, clients that go.
 * Each AccountSignIn stands for a process; the hasher counts what it was made to do.
 */
import { expect } from "chai";
import { MemoryAccountStore } from "../../src/adapters/memory/account-memory-store.js";
import { MemoryCache } from "../../src/adapters/memory/memory-cache.js";
import { ScryptPasswordHasher } from "../../src/adapters/auth/scrypt-password-hasher.js";
import { AccountSignIn, type SignInOptions } from "../../src/application/accounts/account-sign-in.js";
import { SignInThrottledError } from "../../src/application/accounts/sign-in-throttled-error.js";
import { BackendError } from "../../src/domain/errors.js";
import { expectRejection } from "../support/rejection.js";

class CountingHasher extends ScryptPasswordHasher {
  verified = 0;
  inFlight = 0;
  mostInFlight = 0;
  /** When set, every verification waits for it (a slow hash). */
  hold: Promise<void> | undefined;
  override async verify(password: string, encoded: string): Promise<boolean> {
    this.verified += 1;
    this.inFlight += 1;
    this.mostInFlight = Math.max(this.mostInFlight, this.inFlight);
    try {
      if (this.hold) await this.hold;
      return await super.verify(password, encoded);
    } finally {
      this.inFlight -= 1;
    }
  }
}

const MAX = 10;

describe("account sign-in under attack", () => {
  let time = 9_000_000;
  const clock = { now: () => time };
  let hasher: CountingHasher;
  let store: MemoryAccountStore;
  let cache: MemoryCache;

  const process = (options: Partial<SignInOptions> = {}, ownCache = cache) =>
    new AccountSignIn(
      store,
      ownCache,
      hasher,
      { secret: "s", cacheTtlSeconds: 30, maxFailedSignIns: MAX, failedSignInWindowSeconds: 300, ...options },
      clock.now,
    );

  const outcome = (attempt: Promise<string | undefined>) =>
    attempt.then(
      (id) => id ?? "refused",
      (error: unknown) => (error instanceof SignInThrottledError ? "429" : `error: ${String(error)}`),
    );

  beforeEach(async () => {
    hasher = new CountingHasher({ cost: 4 });
    store = new MemoryAccountStore();
    cache = new MemoryCache("t:", clock);
    for (const id of ["dave", "erin", "frank"]) await store.create({ id, passwordHash: await hasher.hash(`pw-${id}`), lastModified: 1 });
    hasher.verified = 0;
  });

  it("hashes at most the bound of 30 concurrent guesses from one address, one at a time, and refuses the rest", async () => {
    const signIn = process();
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) => outcome(signIn.verify(i % 2 === 0 ? "dave" : "erin", `guess-${i}`, "10.6.6.6"))),
    );
    expect(outcomes.filter((o) => o === "refused").length + outcomes.filter((o) => o === "429").length).to.equal(30);
    expect(hasher.verified).to.be.at.most(MAX);
    expect(hasher.mostInFlight).to.equal(1); // the other slot is kept for everyone else
  });

  it("counts every guess before its hash: waves of concurrent guesses from one address get exactly the bound's hashes", async () => {
    const signIn = process();
    const outcomes: string[] = [];
    for (let wave = 0; wave < 4; wave += 1)
      outcomes.push(
        ...(await Promise.all(Array.from({ length: 4 }, (_, i) => outcome(signIn.verify("dave", `guess-${wave}-${i}`, "10.6.6.6"))))),
      );
    expect(hasher.verified).to.equal(MAX);
    expect(outcomes.filter((o) => o === "refused")).to.have.length(MAX);
    expect(outcomes.filter((o) => o === "429")).to.have.length(16 - MAX);
  });

  it("lets the owner in from a clean address after ten wrong passwords from anywhere, and keeps the guesser out", async () => {
    const signIn = process();
    for (let i = 0; i < MAX; i += 1) expect(await signIn.verify("dave", `guess-${i}`, "10.6.6.6")).to.equal(undefined);
    expect(await outcome(signIn.verify("dave", "pw-dave", "10.6.6.6"))).to.equal("429");
    expect(await signIn.verify("dave", "pw-dave", "192.0.2.7")).to.equal("dave");
    // Under attack, an address that already failed in the window is refused for that account, before any hash.
    expect(await signIn.verify("erin", "typo", "198.51.100.9")).to.equal(undefined);
    const hashed = hasher.verified;
    expect(await outcome(signIn.verify("dave", "another-guess", "198.51.100.9"))).to.equal("429");
    expect(hasher.verified).to.equal(hashed);
  });

  it("charges a throttled address's tries to no account: each victim signs in as before", async () => {
    const signIn = process();
    for (let i = 0; i < MAX; i += 1) await signIn.verify("frank", `guess-${i}`, "10.6.6.6");
    const hashed = hasher.verified;
    for (const victim of ["dave", "erin"])
      for (let i = 0; i < 20; i += 1) expect(await outcome(signIn.verify(victim, `guess-${i}`, "10.6.6.6"))).to.equal("429");
    expect(hasher.verified).to.equal(hashed);
    // Not under attack: an address with an earlier failure of its own still gets checked (and in).
    expect(await signIn.verify("dave", "typo", "203.0.113.5")).to.equal(undefined);
    expect(await signIn.verify("dave", "pw-dave", "203.0.113.5")).to.equal("dave");
    expect(await signIn.verify("erin", "pw-erin", "203.0.113.5")).to.equal("erin");
  });

  it("refuses a throttled address even a remembered credential, so that it never tells a right guess from a wrong one", async () => {
    const signIn = process({ localCacheSeconds: 1 });
    expect(await signIn.verify("dave", "pw-dave", "10.6.6.6")).to.equal("dave");
    for (let i = 0; i <= MAX; i += 1) await outcome(signIn.verify("erin", `guess-${i}`, "10.6.6.6"));
    expect(await outcome(signIn.verify("dave", "pw-dave", "10.6.6.6"))).to.equal("429");
    expect(await signIn.verify("dave", "pw-dave", "192.0.2.7")).to.equal("dave");
  });

  it("keeps a signed-in owner signed in while the account is under attack", async () => {
    const signIn = process({ localCacheSeconds: 1 });
    expect(await signIn.verify("dave", "pw-dave", "192.0.2.7")).to.equal("dave");
    for (let i = 0; i < MAX + 5; i += 1) await outcome(signIn.verify("dave", `guess-${i}`, `10.6.6.${i}`));
    time += 5_000; // past the memo: read from the remembered credential
    const hashed = hasher.verified;
    expect(await signIn.verify("dave", "pw-dave", "192.0.2.7")).to.equal("dave");
    expect(hasher.verified).to.equal(hashed);
  });

  it("hashes a password for an unknown id as for a known one, and counts it against the address", async () => {
    const signIn = process();
    expect(await signIn.verify("nobody", "pw", "10.6.6.6")).to.equal(undefined);
    expect(hasher.verified).to.equal(1);
    for (let i = 1; i < MAX; i += 1) await signIn.verify(`nobody${i}`, "pw", "10.6.6.6");
    expect(await outcome(signIn.verify("nobody-else", "pw", "10.6.6.6"))).to.equal("429");
    expect(await outcome(signIn.verify("dave", "pw-dave", "10.6.6.6"))).to.equal("429");
  });

  it("refunds a right password's try: a user who signs in often is never throttled for it", async () => {
    const signIn = process({ cacheTtlSeconds: 1 });
    for (let i = 0; i < 3 * MAX; i += 1) {
      time += 2_000; // each sign-in past the remembered credential's life: hashed again
      expect(await signIn.verify("dave", "pw-dave", "192.0.2.7")).to.equal("dave");
    }
    expect(hasher.verified).to.equal(3 * MAX);
  });

  it("hashes a remembered credential in use again in the background, so that no request waits and no entry outlives its life", async () => {
    const signIn = process();
    await signIn.verify("dave", "pw-dave", undefined);
    time += 19_000; // within the first two thirds of its life: used as it is
    await signIn.verify("dave", "pw-dave", undefined);
    expect(hasher.verified).to.equal(1);
    let release!: () => void;
    hasher.hold = new Promise((resolve) => (release = resolve));
    time += 2_000; // in its last third: answered at once, hashed again beside
    expect(await signIn.verify("dave", "pw-dave", undefined)).to.equal("dave");
    expect(await signIn.verify("dave", "pw-dave", undefined)).to.equal("dave");
    expect(hasher.verified).to.equal(2);
    hasher.hold = undefined;
    release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    time += 15_000; // 36 s after the first hash, 15 s after the renewal
    expect(await signIn.verify("dave", "pw-dave", undefined)).to.equal("dave");
    expect(hasher.verified).to.equal(2);
  });

  it("forgets in the background a remembered credential whose password changed without it being told", async () => {
    const signIn = process();
    await signIn.verify("dave", "pw-dave", undefined);
    await store.updatePassword("dave", await hasher.hash("new"), time); // as if the change's deletion of the entry were lost
    time += 21_000;
    expect(await signIn.verify("dave", "pw-dave", undefined)).to.equal("dave"); // still within its life, once
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await signIn.verify("dave", "pw-dave", undefined)).to.equal(undefined);
    expect(await signIn.verify("dave", "new", undefined)).to.equal("dave");
  });

  it("never keeps a remembered credential past its life, used or not", async () => {
    const signIn = process();
    await signIn.verify("dave", "pw-dave", undefined);
    await store.updatePassword("dave", await hasher.hash("new"), time);
    time += 30_001;
    expect(await signIn.verify("dave", "pw-dave", undefined)).to.equal(undefined);
  });

  it("with a cache of its own beside shared accounts, refuses the old password within the memo's bound of a change elsewhere", async () => {
    const here = process({ localCacheSeconds: 1, cacheShared: false });
    const there = process({ localCacheSeconds: 1, cacheShared: false }, new MemoryCache("there:", clock));
    expect(await there.verify("dave", "pw-dave", undefined)).to.equal("dave");
    await store.updatePassword("dave", await hasher.hash("new"), time);
    await here.forget("dave");
    time += 1_000;
    expect(await there.verify("dave", "pw-dave", undefined)).to.equal(undefined);
    expect(await there.verify("dave", "new", undefined)).to.equal("dave");
    await store.delete("dave");
    await here.forget("dave");
    time += 1_000;
    expect(await there.verify("dave", "new", undefined)).to.equal(undefined);
  });

  it("tells a credential whose password was changed or whose account was deleted from one that still holds", async () => {
    const signIn = process();
    const dave = await signIn.signIn("dave", "pw-dave", {});
    const erin = await signIn.signIn("erin", "pw-erin", {});
    expect(await signIn.stillCurrent("dave", dave!.passwordTag)).to.equal(true);
    await store.updatePassword("dave", await hasher.hash("new"), time);
    expect(await signIn.stillCurrent("dave", dave!.passwordTag)).to.equal(false);
    await store.delete("erin");
    expect(await signIn.stillCurrent("erin", erin!.passwordTag)).to.equal(false);
  });

  it("takes back the tries it refused unanswered: 30 concurrent right passwords from one address throttle nobody", async () => {
    const signIn = process({ hashesAtOnce: 1 });
    const accounts = Array.from({ length: 3 * MAX }, (_, i) => `user${i}`);
    for (const id of accounts) await store.create({ id, passwordHash: await hasher.hash(`pw-${id}`), lastModified: 1 });
    const outcomes = await Promise.all(accounts.map((id) => outcome(signIn.verify(id, `pw-${id}`, "192.0.2.80"))));
    const refused = accounts.filter((_, i) => outcomes[i] === "429");
    expect(refused.length).to.be.within(1, 3 * MAX - 1);
    for (const id of refused) expect(await signIn.verify(id, `pw-${id}`, "192.0.2.80")).to.equal(id);
  });

  it("drops a check waiting for its hash once its client has gone, and keeps one that another client still waits for", async () => {
    const signIn = process({ hashesAtOnce: 1 });
    let release!: () => void;
    hasher.hold = new Promise((resolve) => (release = resolve));
    const first = signIn.verify("dave", "guess-1", "10.1.1.1");
    const gone = new AbortController();
    const dropped = signIn.verify("erin", "guess-2", "10.2.2.2", () => gone.signal);
    const stays = new AbortController();
    const shared = [
      signIn.verify("frank", "pw-frank", "10.3.3.3", () => stays.signal),
      signIn.verify("frank", "pw-frank", "10.3.3.3", () => new AbortController().signal),
    ];
    await new Promise((resolve) => setImmediate(resolve));
    gone.abort();
    stays.abort();
    await expectRejection(dropped, BackendError);
    hasher.hold = undefined;
    release();
    expect(await first).to.equal(undefined);
    expect(await Promise.all(shared)).to.deep.equal(["frank", "frank"]);
    expect(hasher.verified).to.equal(2);
  });
});
