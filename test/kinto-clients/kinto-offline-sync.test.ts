/**
 * kinto.js 17.1.1, the offline-first npm client, syncing with Tessera's tree: records made
 * offline pushed and pulled between two devices (in the user's `default` bucket and in a named
 * one), a concurrent change reported as a conflict and resolved, and a remote deletion
 * reaching the other device's local copy.
 */
import { expect } from "chai";
import { onEveryBackend } from "./client-world.js";

const ALICE = "alice:pw";

interface Task {
  [field: string]: unknown;
  id: string;
  last_modified: number;
  title?: string;
}

const titles = (records: Task[]) => records.map((r) => r.title).sort();

onEveryBackend("kinto.js sync", (world) => {
  it("pushes records made offline to the default bucket and pulls them on another device", async () => {
    const laptop = world.offline(ALICE, "default").collection<Task>("tasks");
    await laptop.create({ title: "buy milk" });
    await laptop.create({ title: "walk the dog" });
    const pushed = await laptop.sync();
    expect(pushed.ok).to.equal(true);
    expect(pushed.published.map((r: Task) => r.title).sort()).to.deep.equal(["buy milk", "walk the dog"]);

    const remote = await world.http(ALICE).bucket("default").collection("tasks").listRecords<Task>();
    expect(titles(remote.data)).to.deep.equal(["buy milk", "walk the dog"]);
    const phone = world.offline(ALICE, "default").collection<Task>("tasks");
    expect((await phone.sync()).ok).to.equal(true);
    expect(titles((await phone.list()).data)).to.deep.equal(["buy milk", "walk the dog"]);
  });

  describe("in a named bucket", () => {
    beforeEach(async () => {
      const alice = world.http(ALICE);
      await alice.createBucket("home");
      await alice.bucket("home").createCollection("tasks");
    });
    const device = () => world.offline(ALICE, "home").collection<Task>("tasks");

    it("carries an update and a deletion from one device to the other", async () => {
      const laptop = device();
      const phone = device();
      const { data: milk } = await laptop.create({ title: "buy milk" });
      await laptop.create({ title: "walk the dog" });
      expect((await laptop.sync()).ok).to.equal(true);
      expect(titles((await phone.sync(), await phone.list()).data)).to.deep.equal(["buy milk", "walk the dog"]);

      await phone.update({ ...milk, title: "buy oat milk" });
      expect((await phone.sync()).ok).to.equal(true);
      const pulled = await laptop.sync();
      expect(pulled.updated.map((u: { new: Task }) => u.new.title)).to.deep.equal(["buy oat milk"]);
      expect(titles((await laptop.list()).data)).to.deep.equal(["buy oat milk", "walk the dog"]);

      await laptop.delete(milk.id);
      expect((await laptop.sync()).ok).to.equal(true);
      const remote = await world.http(ALICE).bucket("home").collection("tasks").listRecords<Task>();
      expect(titles(remote.data)).to.deep.equal(["walk the dog"]);
      const gone = await phone.sync();
      expect(gone.deleted.map((r: Task) => r.id)).to.deep.equal([milk.id]);
      expect(titles((await phone.list()).data)).to.deep.equal(["walk the dog"]);
    });

    it("reports a record changed on both devices as a conflict, and syncs its resolution", async () => {
      const laptop = device();
      const phone = device();
      const { data: milk } = await laptop.create({ title: "buy milk" });
      await laptop.sync();
      await phone.sync();

      await phone.update({ ...milk, title: "buy oat milk" });
      expect((await phone.sync()).ok).to.equal(true);
      await laptop.update({ ...milk, title: "buy soy milk" });
      const clash = await laptop.sync();
      expect(clash.ok).to.equal(false);
      expect(clash.conflicts).to.have.length(1);
      const conflict = clash.conflicts[0];
      if (!conflict) throw new Error("no conflict");
      expect(conflict.type).to.equal("incoming");
      expect(conflict.local).to.include({ id: milk.id, title: "buy soy milk" });
      expect(conflict.remote).to.include({ id: milk.id, title: "buy oat milk" });

      await laptop.resolve(conflict, { ...conflict.local, title: "buy oat and soy milk" });
      expect((await laptop.sync()).ok).to.equal(true);
      const remote = await world.http(ALICE).bucket("home").collection("tasks").getRecord<Task>(milk.id);
      expect(remote.data.title).to.equal("buy oat and soy milk");
      await phone.sync();
      expect(titles((await phone.list()).data)).to.deep.equal(["buy oat and soy milk"]);
    });
  });
});
