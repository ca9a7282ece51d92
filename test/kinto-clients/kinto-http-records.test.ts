/**
 * kinto-http 5.3.0, the npm client, against Tessera's tree: a bucket and a collection created
 * through it, then records written, read, listed (filters, sort, pages, `since`), updated
 * safely and deleted, as an application using the client would.
 */
import { expect } from "chai";
import { userId } from "../support/http.js";
import { failureStatus, onEveryBackend } from "./client-world.js";

const ALICE = "alice:pw";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Fruit {
  [field: string]: unknown;
  id: string;
  last_modified: number;
  deleted?: boolean;
  name?: string;
  n?: number;
  kind?: string;
}

onEveryBackend("kinto-http records", (world) => {
  const shop = () => world.http(ALICE).bucket("shop").collection("fruits");
  const createShop = async () => {
    const client = world.http(ALICE);
    await client.createBucket("shop");
    await client.bucket("shop").createCollection("fruits");
  };
  /** Five records n = 0..4, odd or even, created in that order. */
  const createFive = async () => {
    for (let n = 0; n < 5; n++) await shop().createRecord({ id: `fruit-${n}`, n, kind: n % 2 ? "odd" : "even" });
  };
  const ids = (records: Fruit[]) => records.map((r) => r.id);

  it("creates a bucket, a collection and a record, and reads the record back", async () => {
    const client = world.http(ALICE);
    const bucket = await client.createBucket("shop");
    expect(bucket.data.id).to.equal("shop");
    expect(bucket.permissions.write).to.deep.equal([userId(ALICE)]);
    const collection = await client.bucket("shop").createCollection("fruits");
    expect(collection.data.id).to.equal("fruits");

    const created = await shop().createRecord({ name: "apple", n: 3 });
    expect(created.data.id).to.match(UUID);
    expect(created.data).to.include({ name: "apple", n: 3 });
    expect(created.permissions.write).to.deep.equal([userId(ALICE)]);
    const read = await shop().getRecord<Fruit>(created.data.id);
    expect(read.data).to.deep.equal(created.data);
    expect((await client.listBuckets()).data.map((b) => b.id)).to.deep.equal(["shop"]);
  });

  it("lists with filters and sorts, newest first by default", async () => {
    await createShop();
    await createFive();
    expect(ids((await shop().listRecords<Fruit>()).data)).to.deep.equal(["fruit-4", "fruit-3", "fruit-2", "fruit-1", "fruit-0"]);
    expect(ids((await shop().listRecords<Fruit>({ filters: { kind: "odd" }, sort: "n" })).data)).to.deep.equal(["fruit-1", "fruit-3"]);
    expect(ids((await shop().listRecords<Fruit>({ filters: { min_n: 3 }, sort: "-n" })).data)).to.deep.equal(["fruit-4", "fruit-3"]);
    expect(ids((await shop().listRecords<Fruit>({ filters: { in_n: "0,4", kind: "even" }, sort: "n" })).data)).to.deep.equal([
      "fruit-0",
      "fruit-4",
    ]);
  });

  it("pages with limit and pages, then next() until the end", async () => {
    await createShop();
    await createFive();
    const first = await shop().listRecords<Fruit>({ sort: "n", limit: 2 });
    expect(ids(first.data)).to.deep.equal(["fruit-0", "fruit-1"]);
    expect(first.hasNextPage).to.equal(true);
    const second = await first.next();
    expect(ids(second.data)).to.deep.equal(["fruit-2", "fruit-3"]);
    const third = await second.next();
    expect(ids(third.data)).to.deep.equal(["fruit-4"]);
    expect(third.hasNextPage).to.equal(false);

    const twoPages = await shop().listRecords<Fruit>({ sort: "n", limit: 2, pages: 2 });
    expect(ids(twoPages.data)).to.deep.equal(["fruit-0", "fruit-1", "fruit-2", "fruit-3"]);
    const all = await shop().listRecords<Fruit>({ sort: "-n", limit: 2, pages: Infinity });
    expect(ids(all.data)).to.deep.equal(["fruit-4", "fruit-3", "fruit-2", "fruit-1", "fruit-0"]);
    expect(all.hasNextPage).to.equal(false);
  });

  it("lists what changed since a listing's timestamp, deletions as tombstones", async () => {
    await createShop();
    await shop().createRecord({ id: "apple", name: "apple" });
    await shop().createRecord({ id: "pear", name: "pear" });
    await shop().createRecord({ id: "plum", name: "plum" });
    const before = await shop().listRecords<Fruit>();
    expect(before.last_modified).to.equal(String(before.data[0]?.last_modified));

    await shop().updateRecord({ id: "apple", name: "green apple" });
    await shop().deleteRecord("pear");
    await shop().createRecord({ id: "fig", name: "fig" });
    const changes = await shop().listRecords<Fruit>({ since: before.last_modified ?? undefined });
    expect(changes.data.map((r) => [r.id, r.deleted === true, r.name])).to.deep.equal([
      ["fig", false, "fig"],
      ["pear", true, undefined],
      ["apple", false, "green apple"],
    ]);
    expect(changes.last_modified).to.equal(String(changes.data[0]?.last_modified));
    expect(Number(changes.last_modified)).to.be.greaterThan(Number(before.last_modified));
    const nothingNew = await shop().listRecords<Fruit>({ since: changes.last_modified ?? undefined });
    expect(nothingNew.data).to.deep.equal([]);
  });

  it("updates safely: the current last_modified passes, a stale one is refused (412)", async () => {
    await createShop();
    const created = await shop().createRecord({ id: "apple", name: "apple" });
    const updated = await shop().updateRecord(
      { id: "apple", name: "red apple" },
      { safe: true, last_modified: created.data.last_modified },
    );
    expect(updated.data.name).to.equal("red apple");
    expect(updated.data.last_modified).to.be.greaterThan(created.data.last_modified);

    const stale = shop().updateRecord({ id: "apple", name: "yellow apple" }, { safe: true, last_modified: created.data.last_modified });
    expect(await failureStatus(stale)).to.equal(412);
    expect((await shop().getRecord<Fruit>("apple")).data.name).to.equal("red apple");
    // safe creation of an id that exists: If-None-Match: * fails the same way.
    expect(await failureStatus(shop().createRecord({ id: "apple", name: "again" }, { safe: true }))).to.equal(412);
  });

  it("deletes a record: later reads get 404, a stale safe delete gets 412", async () => {
    await createShop();
    const created = await shop().createRecord({ id: "apple", name: "apple" });
    await shop().updateRecord({ id: "apple", name: "red apple" });
    expect(await failureStatus(shop().deleteRecord("apple", { safe: true, last_modified: created.data.last_modified }))).to.equal(412);
    const deleted = await shop().deleteRecord("apple");
    expect(deleted.data).to.include({ id: "apple", deleted: true });
    expect(await failureStatus(shop().getRecord("apple"))).to.equal(404);
    expect((await shop().listRecords<Fruit>()).data).to.deep.equal([]);
  });
});
