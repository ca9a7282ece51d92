/** scrypt hashes: parameters as documented, kept in each hash, checked against node:crypto directly. */
import { scryptSync } from "node:crypto";
import { expect } from "chai";
import { ScryptPasswordHasher } from "../../src/adapters/auth/scrypt-password-hasher.js";
import { BackendError } from "../../src/domain/errors.js";

describe("scrypt password hasher", () => {
  it("hashes by default with N = 2^17, r = 8, p = 1, a 16-byte salt and a 32-byte key", async function () {
    this.timeout(20_000);
    const encoded = await new ScryptPasswordHasher({ cost: 17 }).hash("correct horse");
    const [name, log2n, r, p, salt, key] = encoded.split("$");
    expect([name, log2n, r, p]).to.deep.equal(["scrypt", "17", "8", "1"]);
    const saltBytes = Buffer.from(salt ?? "", "base64");
    expect(saltBytes).to.have.length(16);
    const expected = scryptSync("correct horse", saltBytes, 32, { N: 2 ** 17, r: 8, p: 1, maxmem: 256 * 1024 * 1024 });
    expect(key).to.equal(expected.toString("base64"));
  });

  it("verifies the password and nothing else; two hashes of one password differ", async () => {
    const hasher = new ScryptPasswordHasher({ cost: 4 });
    const first = await hasher.hash("pw");
    expect(first).to.not.equal(await hasher.hash("pw"));
    expect(await hasher.verify("pw", first)).to.equal(true);
    expect(await hasher.verify("pW", first)).to.equal(false);
    expect(await hasher.verify("pw ", first)).to.equal(false);
  });

  it("keeps old hashes valid after the cost changes (each hash carries its parameters)", async () => {
    const old = await new ScryptPasswordHasher({ cost: 4 }).hash("pw");
    expect(await new ScryptPasswordHasher({ cost: 6 }).verify("pw", old)).to.equal(true);
  });

  it("answers false to an unreadable hash, never throws", async () => {
    const hasher = new ScryptPasswordHasher({ cost: 4 });
    for (const encoded of ["", "bcrypt$x", "scrypt$x$8$1$AA==$AA==", "scrypt$4$0$1$AA==$AA==", "scrypt$4$8$1"])
      expect(await hasher.verify("pw", encoded), encoded).to.equal(false);
  });

  it("runs a bounded number of hashes, queues a bounded number, refuses the rest with a 503", async () => {
    const hasher = new ScryptPasswordHasher({ cost: 12, concurrency: 1, queue: 1 });
    const results = await Promise.allSettled([hasher.hash("a"), hasher.hash("b"), hasher.hash("c")]);
    expect(results.map((r) => r.status)).to.deep.equal(["fulfilled", "fulfilled", "rejected"]);
    expect((results[2] as PromiseRejectedResult).reason).to.be.instanceOf(BackendError);
    expect(await hasher.verify("a", (results[0] as PromiseFulfilledResult<string>).value)).to.equal(true); // the pool recovers
  });
});
