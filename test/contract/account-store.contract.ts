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

    it("deletes, returning what was there, then nothing: deleting twice deletes once", async () => {
      await store.create({ id: "carol", passwordHash: "h", lastModified: 5 });
      expect(await store.delete("carol")).to.deep.equal({ id: "carol", passwordHash: "h", lastModified: 5 });
      expect(await store.delete("carol")).to.equal(undefined);
      expect(await store.get("carol")).to.equal(undefined);
      expect(await store.delete("never-was")).to.equal(undefined);
    });

    it("retires a deleted id for good: signing it up again is refused as retired, and creates nothing", async () => {
      await store.create({ id: "carol", passwordHash: "h", lastModified: 5 });
      await store.delete("carol");
      for (let attempt = 0; attempt < 2; attempt += 1)
        expect(await store.create({ id: "carol", passwordHash: "again", lastModified: 6 })).to.deep.equal({ status: "retired" });
      expect(await store.get("carol")).to.equal(undefined);
      expect(await store.delete("carol")).to.equal(undefined);
      // Only that id: its neighbours (case, prefix) are free.
      expect((await store.create({ id: "Carol", passwordHash: "h2", lastModified: 7 })).status).to.equal("created");
      expect((await store.create({ id: "caro", passwordHash: "h3", lastModified: 7 })).status).to.equal("created");
    });

    it("changes no retired account's password", async () => {
      await store.create({ id: "dave", passwordHash: "old", lastModified: 5 });
      await store.delete("dave");
      expect(await store.updatePassword("dave", "new", 9)).to.equal(undefined);
      expect(await store.get("dave")).to.equal(undefined);
      expect((await store.create({ id: "dave", passwordHash: "new", lastModified: 10 })).status).to.equal("retired");
    });

    it("lists live accounts only, skipping retired ids within and across pages", async () => {
      for (const id of ["a", "b", "c", "d", "e"]) await store.create({ id, passwordHash: `h-${id}`, lastModified: 1 });
      for (const id of ["b", "c"]) await store.delete(id);
      expect((await store.list(10)).map((a) => a.id)).to.deep.equal(["a", "d", "e"]);
      expect((await store.list(2)).map((a) => a.id)).to.deep.equal(["a", "d"]);
      expect((await store.list(2, "a")).map((a) => a.id)).to.deep.equal(["d", "e"]);
      expect((await store.list(1, "b")).map((a) => a.id)).to.deep.equal(["d"]);
    });

    it("frees every id, retired ones included, only on flush (tests and resets)", async () => {
      await store.create({ id: "erin", passwordHash: "h", lastModified: 1 });
      await store.create({ id: "frank", passwordHash: "h", lastModified: 1 });
      await store.delete("erin");
      await store.flush();
      expect(await store.list(10)).to.deep.equal([]);
      expect((await store.create({ id: "erin", passwordHash: "h2", lastModified: 2 })).status).to.equal("created");
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

    it("lets no sign-up racing a deletion take the id: each either came first or is refused as retired", async () => {
      for (let round = 0; round < 5; round += 1) {
        const id = `race-${round}`;
        await store.create({ id, passwordHash: "first", lastModified: 1 });
        const [deleted, ...creations] = await Promise.all([
          store.delete(id),
          ...Array.from({ length: 4 }, (_, i) => store.create({ id, passwordHash: `late${i}`, lastModified: 2 })),
        ]);
        expect(deleted?.passwordHash).to.equal("first");
        for (const creation of creations) expect(creation.status).to.be.oneOf(["taken", "retired"]);
        expect(await store.get(id)).to.equal(undefined);
      }
    });
  });
}
