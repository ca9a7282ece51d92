/** The AccountStore contract (application/accounts/account-store.ts), run unchanged on every adapter. */
import { expect } from "chai";
import type { AccountStore } from "../../src/application/accounts/account-store.js";
import type { Harness } from "../support/harness.js";

export function accountStoreContract(name: string, open: () => Promise<Harness<AccountStore>>): void {
  describe(`AccountStore contract [${name}]`, function () {
    let h: Harness<AccountStore>;
    let store: AccountStore;
    before(async () => {
      h = await open();
      store = h.port;
    });
    beforeEach(() => h.reset());
    after(() => h?.close());

    it("creates an account once: a taken id is refused and left unchanged", async () => {
      expect(await store.create({ id: "alice", passwordHash: "h1", lastModified: 10 })).to.deep.equal({
        status: "created",
        account: { id: "alice", passwordHash: "h1", lastModified: 10 },
      });
      expect(await store.create({ id: "alice", passwordHash: "h2", lastModified: 11 })).to.deep.equal({ status: "taken" });
      expect((await store.get("alice"))?.passwordHash).to.equal("h1");
    });

    it("tells ids apart by case and by every character", async () => {
      await store.create({ id: "alice", passwordHash: "lower", lastModified: 1 });
      await store.create({ id: "Alice", passwordHash: "upper", lastModified: 1 });
      await store.create({ id: "a.l@i_c-e", passwordHash: "odd", lastModified: 1 });
      expect((await store.get("Alice"))?.passwordHash).to.equal("upper");
      expect((await store.get("alice"))?.passwordHash).to.equal("lower");
      expect((await store.get("a.l@i_c-e"))?.passwordHash).to.equal("odd");
      expect(await store.get("ALICE")).to.equal(undefined);
    });

    it("replaces a hash with a strictly later time, and answers undefined for an unknown id", async () => {
      await store.create({ id: "bob", passwordHash: "old", lastModified: 100 });
      const updated = await store.updatePassword("bob", "new", 100);
      expect(updated?.passwordHash).to.equal("new");
      expect(updated?.lastModified).to.be.greaterThan(100);
      expect((await store.get("bob"))?.passwordHash).to.equal("new");
      expect(await store.updatePassword("ghost", "x", 1)).to.equal(undefined);
      expect(await store.get("ghost")).to.equal(undefined);
    });

    it("deletes, returning what was there, then nothing", async () => {
      await store.create({ id: "carol", passwordHash: "h", lastModified: 5 });
      expect((await store.delete("carol"))?.id).to.equal("carol");
      expect(await store.delete("carol")).to.equal(undefined);
      expect(await store.get("carol")).to.equal(undefined);
      expect((await store.create({ id: "carol", passwordHash: "again", lastModified: 6 })).status).to.equal("created");
    });

    it("lists in id order (code units), by pages after an id", async () => {
      for (const id of ["b", "a", "B", "c", "a.b"]) await store.create({ id, passwordHash: `h-${id}`, lastModified: 1 });
      const all = (await store.list(10)).map((a) => a.id);
      expect(all).to.deep.equal(["B", "a", "a.b", "b", "c"]);
      expect((await store.list(2)).map((a) => a.id)).to.deep.equal(["B", "a"]);
      expect((await store.list(2, "a")).map((a) => a.id)).to.deep.equal(["a.b", "b"]);
      expect(await store.list(5, "c")).to.deep.equal([]);
    });

    it("creates each id once under concurrent sign-ups", async () => {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.create({ id: "race", passwordHash: `h${i}`, lastModified: i })),
      );
      expect(results.map((r) => r.status).sort()).to.deep.equal(["created", ...Array<string>(7).fill("taken")]);
    });

    it("frees every id on flush (tests and resets)", async () => {
      await store.create({ id: "erin", passwordHash: "h", lastModified: 1 });
      await store.flush();
      expect(await store.list(10)).to.deep.equal([]);
      expect((await store.create({ id: "erin", passwordHash: "h2", lastModified: 2 })).status).to.equal("created");
    });
  });
}
