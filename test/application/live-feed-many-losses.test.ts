/**
 * A shared read after a mass loss (docs/adr/0016): when the scope's losses after the members'
 * cursors are many (a group removal took thousands of records from streams that replay them
 * alone), the shared read asks for its members' losses only, and never holds them all. Each
 * member still gets exactly its own tombstones, and nothing of the others'. Memory clock at 100.
 */
import { expect } from "chai";
import { scopeOf } from "../contract/record-store/fixture.js";
import { articles, FeedWorld, HANG_GUARD_MS } from "../support/live-feed-world.js";

describe("LiveFeed: a shared read after a mass loss", function () {
  this.timeout(HANG_GUARD_MS * 5);
  let world: FeedWorld;

  beforeEach(async () => {
    world = await FeedWorld.started();
  });
  afterEach(() => world.feed.close());

  it("sends each caught-up subscriber its own losses among thousands of others', nothing else", async () => {
    const answered: number[] = [];
    const lostAccessAfter = world.journal.lostAccessAfter.bind(world.journal);
    world.journal.lostAccessAfter = async (...args) => {
      const losses = await lostAccessAfter(...args);
      answered.push(losses.length);
      return losses;
    };
    const ids = Array.from({ length: 1200 }, (_, n) => `x${n + 1}`);
    for (const id of ids) await world.put("alice", id, { n: id }, { read: ["bob", "dave"] }); // 100 … 1299
    await world.put("alice", "c1", { n: "c1" }, { read: ["erin"] }); // 1300
    const bob = await world.subscribe("bob", 1300);
    const erin = await world.subscribe("erin", 1300);
    await bob.waitFor("live");
    await erin.waitFor("live");

    // Dave (not subscribed) loses all 1,200 without a write (1301 … 2500); then Bob loses x7 by a write (2501).
    await world.journal.stampLostAccess(scopeOf(articles.name), "dave", ids);
    await world.put("alice", "x7", { n: "x7" }, { read: ["dave"] });
    await world.put("alice", "c2", { n: "c2" }, { read: ["erin"] }); // 2502: the last event both wait for
    await erin.waitFor("create c2@2502");
    await bob.waitFor("delete x7@2501");

    expect(bob.lines).to.deep.equal(["live", "delete x7@2501"]);
    expect(erin.lines).to.deep.equal(["live", "create c2@2502"]);
    // Never the whole 1,201 losses at once: a page of them, then Bob's and Erin's only.
    expect(Math.max(...answered)).to.be.at.most(1000);
  });
});
