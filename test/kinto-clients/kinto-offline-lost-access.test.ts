/**
 * kinto.js 17.1.1 and lost access: Bob syncs what Alice shares with him through a bucket's group
 * or through a record's ACL; when Alice takes it back (removes him from the group, removes the
 * ACE), his next sync() drops the record from his local copy, the server reporting it among
 * the changes as a deletion. A group reading the whole collection is a change too large to
 * tell record by record: the sync is refused with a 410 (docs/kinto.md), and a client that
 * clears its copy and syncs again holds nothing it may no longer read.
 */
import { expect } from "chai";
import { userId } from "../support/http.js";
import { onEveryBackend } from "./client-world.js";

const ALICE = "alice:pw";
const BOB = "bob:pw";
const GROUP = "/buckets/team/groups/readers";

interface Task {
  [field: string]: unknown;
  id: string;
  last_modified: number;
  title?: string;
}

onEveryBackend("kinto.js lost access", (world) => {
  const tasks = () => world.http(ALICE).bucket("team").collection("tasks");
  const bobsDevice = () => world.offline(BOB, "team").collection<Task>("tasks");
  const localIds = async (device: ReturnType<typeof bobsDevice>) => (await device.list()).data.map((r) => r.id).sort();
  beforeEach(async () => {
    const alice = world.http(ALICE);
    await alice.createBucket("team");
    await alice.bucket("team").createCollection("tasks");
  });

  it("drops the records shared with a group once Bob leaves the group", async () => {
    const bucket = world.http(ALICE).bucket("team");
    await bucket.createGroup("readers", [userId(BOB)]);
    // The group reads the records; Bob's own record:create keeps the collection visible to him
    // (kinto.js reads its attributes first) once he has left the group.
    await tasks().setPermissions({ "record:create": [userId(BOB)] });
    await tasks().createRecord({ id: "plan", title: "the plan" }, { permissions: { read: [GROUP] } });
    await tasks().createRecord({ id: "budget", title: "the budget" }, { permissions: { read: [GROUP] } });

    const device = bobsDevice();
    expect((await device.sync()).ok).to.equal(true);
    expect(await localIds(device)).to.deep.equal(["budget", "plan"]);

    await bucket.updateGroup({ id: "readers" }, { data: { members: [] }, patch: true });
    const lost = await device.sync();
    expect(lost.ok).to.equal(true);
    expect(lost.deleted.map((r: Task) => r.id).sort()).to.deep.equal(["budget", "plan"]);
    expect(await localIds(device)).to.deep.equal([]);

    // With no access left at all, the pull is refused and sync() rejects, as against Kinto.
    await tasks().setPermissions({});
    const refused = await device.sync().then(
      () => "synced",
      (error: Error) => error.message,
    );
    expect(refused).to.match(/^HTTP 403/);
  });

  it("refuses the sync of a copy read through a group on the collection once Bob leaves it; a cleared copy syncs empty", async () => {
    const bucket = world.http(ALICE).bucket("team");
    await bucket.createGroup("readers", [userId(BOB)]);
    await tasks().setPermissions({ read: [GROUP], "record:create": [userId(BOB)] });
    await tasks().createRecord({ id: "plan", title: "the plan" });

    const device = bobsDevice();
    expect((await device.sync()).ok).to.equal(true);
    expect(await localIds(device)).to.deep.equal(["plan"]);

    await bucket.updateGroup({ id: "readers" }, { data: { members: [] }, patch: true });
    const refused = await device.sync().then(
      () => "synced",
      (error: Error) => error.message,
    );
    expect(refused).to.match(/^HTTP 410/);
    // kinto.js's clear() keeps the position in memory: resetSyncStatus() (nothing left to mark) drops it.
    await device.clear();
    await device.resetSyncStatus();
    expect((await device.sync()).ok).to.equal(true);
    expect(await localIds(device)).to.deep.equal([]);
  });

  it("drops a record shared through its ACL once the ACE is removed, and keeps the others", async () => {
    // record:create lets Bob read the collection's attributes (kinto.js reads them first) and
    // nothing of its records: what he reads comes from each record's ACL.
    await tasks().setPermissions({ "record:create": [userId(BOB)] });
    await tasks().createRecord({ id: "plan", title: "the plan" }, { permissions: { read: [userId(BOB)] } });
    await tasks().createRecord({ id: "menu", title: "the menu" }, { permissions: { read: [userId(BOB)] } });
    await tasks().createRecord({ id: "secret", title: "the secret" });

    const device = bobsDevice();
    expect((await device.sync()).ok).to.equal(true);
    expect(await localIds(device)).to.deep.equal(["menu", "plan"]);

    await tasks().updateRecord({ id: "plan", title: "the plan" }, { permissions: { read: [] } });
    const lost = await device.sync();
    expect(lost.ok).to.equal(true);
    expect(lost.deleted.map((r: Task) => r.id)).to.deep.equal(["plan"]);
    expect(await localIds(device)).to.deep.equal(["menu"]);
    expect((await tasks().getRecord<Task>("plan")).data.title).to.equal("the plan");
  });
});
