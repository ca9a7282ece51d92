/**
 * What a replay brings besides the changes after its cursor, over the memory adapters: records
 * given to the subscriber's principals after its cursor (a group change stamped as gained
 * access, `AccessJournal.stampGainedAccess`), as a `_since` listing from there holds them; and the
 * independence of a replay from the scope's other subscribers (read alone). Memory clock at 100.
 */
import { expect } from "chai";
import { InProcessBroadcast } from "../../src/adapters/memory/in-process-broadcast.js";
import { FeedWorld, HANG_GUARD_MS, replayRead } from "../support/live-feed-world.js";

const ARTICLES = { collection: "articles", parentId: "" };

describe("LiveFeed replays: gained access, and a replay read alone", function () {
  this.timeout(HANG_GUARD_MS);
  let world: FeedWorld;

  beforeEach(async () => {
    world = await FeedWorld.started({ broadcast: new InProcessBroadcast() });
  });
  afterEach(() => world.feed.close());

  it("replays a record given to the subscriber after its cursor, whatever its own timestamp, only if it reads it now and its filters keep it", async () => {
    await world.put("alice", "g1", { kind: "a" }, { read: ["group:g"] }); // 100
    await world.put("alice", "g2", { kind: "b" }, { read: ["group:g"] }); // 101
    await world.put("alice", "h1", { kind: "a" }, { read: ["group:h"] }); // 102: gained below, not readable
    await world.acls.addUserPrincipal("bob", "group:g");
    const gainedAt = await world.journal.stampGainedAccess(ARTICLES, "bob", ["g1", "g2", "h1"]); // 103
    expect(gainedAt).to.equal(103);
    const all = await world.subscribe("bob", 102);
    const filtered = await world.subscribe("bob", 102, [{ field: "kind", operator: "eq", value: "a" }]);
    const after = await world.subscribe("bob", 103); // the gain is at or below its cursor: nothing owed
    await Promise.all([all.waitFor("live"), filtered.waitFor("live"), after.waitFor("live")]);
    // Gained, so never a creation (docs/api.md, "Sync"), though the writes were.
    expect(all.lines).to.deep.equal(["update g1@100", "update g2@101", "live"]);
    expect(filtered.lines).to.deep.equal(["update g1@100", "live"]);
    expect(after.lines).to.deep.equal(["live"]);
  });

  it("streams live changes to the scope's subscribers while another one's replay is held", async () => {
    await world.put("alice", "x1", { n: 1 }); // 100
    const live = await world.subscribe("carol", undefined);
    await live.waitFor("live");
    const hold = world.records.holdList(replayRead);
    const replaying = await world.subscribe("carol", 0);
    await hold.reached;
    await world.put("alice", "x2", { n: 2 }); // 101
    await live.waitFor("create x2@101");
    hold.release();
    await replaying.waitFor("live");
    expect(live.lines).to.deep.equal(["live", "create x2@101"]);
    expect(replaying.lines).to.deep.equal(["create x1@100", "create x2@101", "live"]);
  });
});
