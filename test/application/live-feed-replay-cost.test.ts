/**
 * What a restricted replay reads (docs/adr/0016, Consequences): the changes its grants reach, not
 * every change of the scope. The rows the store returns to the replay's reads of changes are
 * counted through a wrapper, and the events checked against what the caller may see, written out
 * by hand (losses and deletions still reach it as tombstones). Memory clock at 100.
 */
import { expect } from "chai";
import type { ListQuery } from "../../src/application/listing.js";
import type { Scope } from "../../src/application/ports/record-store.js";
import { articles, FeedWorld, HANG_GUARD_MS, replayRead } from "../support/live-feed-world.js";

describe("LiveFeed: what a restricted replay reads", function () {
  this.timeout(HANG_GUARD_MS);
  let world: FeedWorld;
  /** Ids of the rows the store returned to replays' reads of changes. */
  let replayRows: string[];

  beforeEach(async () => {
    world = await FeedWorld.started();
    replayRows = [];
    const list = world.records.list.bind(world.records);
    world.records.list = async (scope: Scope, query: ListQuery) => {
      const found = await list(scope, query);
      if (replayRead(query)) replayRows.push(...found.map((entry) => entry.id));
      return found;
    };
  });
  afterEach(() => world.feed.close());

  it("reads only the records the caller's grants reach, and still sends its losses and deletions", async () => {
    for (let n = 1; n <= 30; n += 1) {
      const shared = n === 5 || n === 9 || n === 17 || n === 20;
      await world.put("alice", `x${n}`, { n }, shared ? { read: ["bob"] } : undefined); // 99 + n
    }
    await world.put("alice", "x9", { n: 9 }, { read: [] }); // 130: bob loses x9
    await world.service.delete(world.user("alice"), articles, "x20"); // 131
    const bob = await world.subscribe("bob", 0);
    await bob.waitFor("live");
    expect(bob.lines).to.deep.equal(["create x5@104", "create x17@116", "delete x9@130", "delete x20@131", "live"]);
    expect(replayRows.sort()).to.deep.equal(["x17", "x5"]);
  });

  it("applies its filters to what it reads, when that reaches past a page of changes", async () => {
    for (let n = 1; n <= 1100; n += 1) {
      const shared = n === 5 || n === 6 || n === 1100;
      await world.put("alice", `x${n}`, { kind: n === 6 ? "b" : "a" }, shared ? { read: ["bob"] } : undefined); // 99 + n
    }
    const bob = await world.subscribe("bob", 0, [{ field: "kind", operator: "eq", value: "a" }]);
    await bob.waitFor("live");
    // x5 is older than the 1,000 writes whose action the feed remembers: an update.
    expect(bob.lines).to.deep.equal(["update x5@104", "create x1100@1199", "live"]);
  });

  it("stops asking for the readable ids once they were more than a page", async () => {
    for (let n = 1; n <= 1100; n += 1) await world.put("alice", `x${n}`, { n }, { read: ["bob"] }); // 99 + n
    let asked = 0;
    const accessible = world.acls.principalsAccessibleObjects.bind(world.acls);
    world.acls.principalsAccessibleObjects = (...args) => {
      asked += 1;
      return accessible(...args);
    };
    const hold = world.records.holdTimestamp(1); // the replay's first read, after the listing that authorized it
    const bob = await world.subscribe("bob", 0);
    await hold.reached;
    const askedToSubscribe = asked;
    hold.release();
    await bob.waitFor("live");
    expect(bob.lines.length).to.equal(1101);
    // Two pages of changes: the ids are asked for the first only (1,100 of them, more than a page).
    expect(asked - askedToSubscribe).to.equal(1);
  });

  it("reads every change for a caller with collection-level read", async () => {
    for (let n = 1; n <= 3; n += 1) await world.put("alice", `x${n}`, { n }); // 99 + n
    const carol = await world.subscribe("carol", 0);
    await carol.waitFor("live");
    expect(carol.lines).to.deep.equal(["create x1@100", "create x2@101", "create x3@102", "live"]);
    expect(replayRows.sort()).to.deep.equal(["x1", "x2", "x3"]);
  });
});
