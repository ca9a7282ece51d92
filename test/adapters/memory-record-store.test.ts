/** Runs the RecordStore contract on the memory adapter, plus what only memory can promise. */
import { expect } from "chai";
import { MemoryRecordStore } from "../../src/adapters/memory/memory-record-store.js";
import { recordStoreContract } from "../contract/record-store.contract.js";

const realClock = { now: () => Date.now() };

recordStoreContract("memory", async () => {
  const store = new MemoryRecordStore(realClock);
  return { port: store, reset: () => store.flush(), close: () => store.close() };
});

describe("MemoryRecordStore", () => {
  const scope = { collection: "articles", parentId: "" };
  const listAll = { filters: [], sort: [{ field: "last_modified", descending: false }], limit: 100, includeDeleted: true };

  it("returns copies that callers cannot use to change stored records", async () => {
    const store = new MemoryRecordStore(realClock);
    const created = await store.create(scope, "a1", { tags: ["x"], meta: { n: 1 } });
    (created.data.tags as string[]).push("mutated");
    const fetched = await store.get(scope, "a1");
    (fetched!.data.meta as { n: number }).n = 99;
    const [listed] = await store.list(scope, listAll);
    if (listed && !listed.deleted) (listed.data as { extra?: boolean }).extra = true;
    expect((await store.get(scope, "a1"))?.data).to.deep.equal({ tags: ["x"], meta: { n: 1 } });
  });

  it("keeps no reference to the data object it was given", async () => {
    const store = new MemoryRecordStore(realClock);
    const data = { nested: { v: 1 } };
    await store.create(scope, "a1", data);
    data.nested.v = 2;
    expect((await store.get(scope, "a1"))?.data).to.deep.equal({ nested: { v: 1 } });
  });

  it("drops managed fields that slipped into the data", async () => {
    const store = new MemoryRecordStore(realClock);
    const created = await store.create(scope, "a1", { id: "other", last_modified: 5, title: "t" });
    expect(created.data).to.deep.equal({ title: "t" });
  });

  it("refuses access by principals, which needs the permission tables", async () => {
    const store = new MemoryRecordStore(realClock);
    const access = { kind: "principals", principals: ["system.Everyone"], permissions: ["read"], objectIdPrefix: "/articles/" } as const;
    try {
      await store.list(scope, { ...listAll, access });
      expect.fail("expected an error");
    } catch (error) {
      expect((error as Error).message).to.match(/principals/);
    }
  });

  it("uses its injected clock for new timestamps and for empty scopes", async () => {
    let now = 1_000_000;
    const store = new MemoryRecordStore({ now: () => now });
    expect(await store.collectionTimestamp(scope)).to.equal(1_000_000);
    now = 2_000_000;
    expect(await store.collectionTimestamp(scope)).to.equal(1_000_000);
    expect((await store.create(scope, "a1", {})).lastModified).to.equal(2_000_000);
    expect((await store.create(scope, "a2", {})).lastModified).to.equal(2_000_001);
    now = 5;
    expect((await store.create(scope, "a3", {})).lastModified).to.equal(2_000_002);
  });
});
