/**
 * Accounts over a storage backend and a cache backend, as two processes sharing them see them:
 * `open` gives two independent instances (own connections) over the same backends. A password
 * change or a deletion on one is felt at once on the other; failed sign-ins count across both.
 */
import { expect } from "chai";
import { AccountService } from "../../src/application/accounts/account-service.js";
import { AccountSignIn } from "../../src/application/accounts/account-sign-in.js";
import type { AccountStore } from "../../src/application/accounts/account-store.js";
import { SignInThrottledError } from "../../src/application/accounts/sign-in-throttled-error.js";
import type { Cache } from "../../src/application/ports/cache.js";
import { ScryptPasswordHasher } from "../../src/adapters/auth/scrypt-password-hasher.js";
import { callerPrincipals } from "../../src/domain/principals.js";

export interface AccountBackends {
  readonly store: AccountStore;
  readonly cache: Cache;
}

export interface SharedAccountBackends {
  /** Two processes' views of the same backends. */
  readonly first: AccountBackends;
  readonly second: AccountBackends;
  reset(): Promise<void>;
  close(): Promise<void>;
}

const OPTIONS = { secret: "contract-secret", cacheTtlSeconds: 60, maxFailedSignIns: 3, failedSignInWindowSeconds: 30 };
const clock = { now: () => Date.now() };
const SETTINGS = { createPrincipals: ["system.Everyone"], writePrincipals: [], readPrincipals: [] };

function process(backends: AccountBackends) {
  const hasher = new ScryptPasswordHasher({ cost: 4 });
  const signIn = new AccountSignIn(backends.store, backends.cache, hasher, OPTIONS);
  return { signIn, service: new AccountService({ store: backends.store, signIn, clock, settings: SETTINGS }) };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

export function accountsContract(name: string, open: () => Promise<SharedAccountBackends>): void {
  describe(`accounts over shared backends [${name}]`, function () {
    let shared: SharedAccountBackends;
    let a: ReturnType<typeof process>;
    let b: ReturnType<typeof process>;
    const anonymous = { userId: undefined, principals: ["system.Everyone"] };
    const owner = (id: string) => callerPrincipals(`account:${id}`, []);

    before(async () => {
      shared = await open();
      a = process(shared.first);
      b = process(shared.second);
    });
    beforeEach(() => shared.reset());
    after(() => shared?.close());

    it("signs in on both processes with the password, and with nothing else", async () => {
      await a.service.put(anonymous, "alice", () => "pw-alice");
      expect(await a.signIn.verify("alice", "pw-alice", "10.0.0.1")).to.equal("alice");
      expect(await b.signIn.verify("alice", "pw-alice", "10.0.0.1")).to.equal("alice");
      expect(await b.signIn.verify("alice", "pw-alicE", "10.0.0.1")).to.equal(undefined);
      expect(await b.signIn.verify("nobody", "pw-alice", "10.0.0.1")).to.equal(undefined);
    });

    it("keeps neither the password nor its hash in the cache", async () => {
      await a.service.put(anonymous, "alice", () => "pw-in-cache?");
      await a.signIn.verify("alice", "pw-in-cache?", undefined);
      const hash = (await shared.first.store.get("alice"))?.passwordHash ?? "";
      expect(hash).to.match(/^scrypt\$/);
      for (const key of ["pw-in-cache?", hash])
        expect(JSON.stringify(await dump(shared.first.cache, a.signIn, "alice"))).to.not.contain(key);
    });

    it("refuses the old password at once on the other process after a change, keeping the identity", async () => {
      await a.service.put(anonymous, "alice", () => "old");
      expect(await b.signIn.verify("alice", "old", undefined)).to.equal("alice"); // remembered by b now
      await a.service.changePassword(owner("alice"), "alice", () => "new");
      expect(await b.signIn.verify("alice", "old", undefined)).to.equal(undefined);
      expect(await b.signIn.verify("alice", "new", undefined)).to.equal("alice");
    });

    it("refuses a deleted account's password at once on the other process", async () => {
      await a.service.put(anonymous, "alice", () => "pw");
      expect(await b.signIn.verify("alice", "pw", undefined)).to.equal("alice");
      await a.service.delete(owner("alice"), "alice");
      expect(await b.signIn.verify("alice", "pw", undefined)).to.equal(undefined);
    });

    it("counts an account's failures on both processes: past the bound its guesses are refused, its remembered owner is not", async () => {
      await a.service.put(anonymous, "alice", () => "pw");
      expect(await a.signIn.verify("alice", "pw", undefined)).to.equal("alice"); // remembered
      for (const [i, process] of [a, b, a].entries())
        expect(await process.signIn.verify("alice", `wrong${i}`, undefined)).to.equal(undefined);
      const error = await rejection(b.signIn.verify("alice", "wrong3", undefined));
      expect(error).to.be.instanceOf(SignInThrottledError);
      const wait = (error as SignInThrottledError).retryAfterSeconds;
      expect(wait).to.be.within(1, OPTIONS.failedSignInWindowSeconds);
      expect(await b.signIn.verify("alice", "pw", undefined)).to.equal("alice");
    });

    it("throttles a client address across accounts, not other addresses", async () => {
      for (const id of ["u1", "u2", "u3", "u4"]) await a.service.put(anonymous, id, () => `pw-${id}`);
      for (const id of ["u1", "u2", "u3"]) expect(await a.signIn.verify(id, "guess", "192.0.2.7")).to.equal(undefined);
      expect(await rejection(b.signIn.verify("u4", "pw-u4", "192.0.2.7"))).to.be.instanceOf(SignInThrottledError);
      expect(await b.signIn.verify("u4", "pw-u4", "192.0.2.8")).to.equal("u4");
    });

    it("refuses a throttled address on both processes, a remembered right password too, and charges its tries to no account", async () => {
      for (const id of ["v1", "v2", "v3", "target"]) await a.service.put(anonymous, id, () => `pw-${id}`);
      expect(await a.signIn.verify("target", "pw-target", "10.9.9.9")).to.equal("target"); // remembered, from its owner
      for (const id of ["v1", "v2", "v3"]) await a.signIn.verify(id, "guess", "192.0.2.66"); // the guesser's address is throttled
      for (let i = 0; i < 5; i += 1)
        expect(await rejection(b.signIn.verify("target", `guess${i}`, "192.0.2.66"))).to.be.instanceOf(SignInThrottledError);
      expect(await rejection(b.signIn.verify("target", "pw-target", "192.0.2.66"))).to.be.instanceOf(SignInThrottledError);
      // Not under attack: an address with a try of its own in the window is still checked for it.
      expect(await b.signIn.verify("v1", "typo", "10.9.9.11")).to.equal(undefined);
      expect(await b.signIn.verify("target", "typo", "10.9.9.11")).to.equal(undefined);
      expect(await a.signIn.verify("target", "pw-target", "10.9.9.9")).to.equal("target");
    });

    it("refuses a remembered right password from an address another process throttled, before this one saw it refused", async () => {
      for (const id of ["v1", "v2", "v3", "target"]) await a.service.put(anonymous, id, () => `pw-${id}`);
      expect(await b.signIn.verify("target", "pw-target", "192.0.2.67")).to.equal("target"); // remembered
      for (const id of ["v1", "v2", "v3"]) await a.signIn.verify(id, "guess", "192.0.2.67"); // at the bound, counted by a
      expect(await rejection(b.signIn.verify("target", "pw-target", "192.0.2.67"))).to.be.instanceOf(SignInThrottledError);
    });

    it("takes a right password's try back from the counts", async () => {
      await a.service.put(anonymous, "alice", () => "pw");
      for (let i = 0; i < 2; i += 1) expect(await a.signIn.verify("alice", "wrong", "192.0.2.9")).to.equal(undefined);
      expect(await b.signIn.verify("alice", "pw", "192.0.2.9")).to.equal("alice");
      expect(await a.signIn.verify("alice", "wrong-again", "192.0.2.9")).to.equal(undefined);
      expect(await rejection(b.signIn.verify("alice", "wrong-more", "192.0.2.9"))).to.be.instanceOf(SignInThrottledError);
    });
  });
}

/** What the cache holds for an account (its remembered credential and counters), read through the port. */
async function dump(cache: Cache, signIn: AccountSignIn, id: string): Promise<unknown> {
  const keys = (signIn as unknown as { keysOf(id: string, address: string | undefined): Record<string, string | undefined> }).keysOf(
    id,
    undefined,
  );
  return Promise.all(Object.values(keys).map((key) => (key === undefined ? Promise.resolve(undefined) : cache.get(key))));
}
