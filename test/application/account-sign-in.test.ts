/** The sign-in check's use of the hash: once per credential in use, not once per request or per expiry. */
import { expect } from "chai";
import { MemoryAccountStore } from "../../src/adapters/memory/account-memory-store.js";
import { MemoryCache } from "../../src/adapters/memory/memory-cache.js";
import { ScryptPasswordHasher } from "../../src/adapters/auth/scrypt-password-hasher.js";
import { AccountSignIn } from "../../src/application/accounts/account-sign-in.js";

class CountingHasher extends ScryptPasswordHasher {
  verified = 0;
  override verify(password: string, encoded: string): Promise<boolean> {
    this.verified += 1;
    return super.verify(password, encoded);
  }
}

describe("account sign-in check", () => {
  const time = 1_000_000;
  const clock = { now: () => time };
  let hasher: CountingHasher;
  let signIn: AccountSignIn;

  beforeEach(async () => {
    const store = new MemoryAccountStore();
    hasher = new CountingHasher({ cost: 4 });
    await store.create({ id: "alice", passwordHash: await hasher.hash("pw"), lastModified: 1 });
    const options = { secret: "s", cacheTtlSeconds: 30, maxFailedSignIns: 100, failedSignInWindowSeconds: 60 };
    signIn = new AccountSignIn(store, new MemoryCache("t:", clock), hasher, options, clock.now);
  });

  it("hashes once for many concurrent requests with one credential", async () => {
    const ids = await Promise.all(Array.from({ length: 12 }, () => signIn.verify("alice", "pw", "10.0.0.1")));
    expect(ids).to.deep.equal(Array(12).fill("alice"));
    expect(hasher.verified).to.equal(1);
  });
});
