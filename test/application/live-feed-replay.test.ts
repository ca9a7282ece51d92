/**
 * A live-feed subscriber while it replays (its own CursorReader), its reads caught mid-way
 * (HoldingRecords): signals arriving meanwhile, what it already has, subscribers leaving while
 * others replay, and a caller who lost every read meanwhile. Memory clock at 100.
 */
import { expect } from "chai";
import { InProcessBroadcast } from "../../src/adapters/memory/in-process-broadcast.js";
import type { ResourceDefinition } from "../../src/application/resources.js";
import { afterPendingReads, articles, FeedWorld, HANG_GUARD_MS, replayRead } from "../support/live-feed-world.js";

describe("LiveFeed subscribers while they replay", function () {
  this.timeout(HANG_GUARD_MS);
  let world: FeedWorld;
  let broadcast: InProcessBroadcast;

  beforeEach(async () => {
    broadcast = new InProcessBroadcast();
    world = await FeedWorld.started({ broadcast });
  });
  afterEach(() => world.feed.close());

  it("sends a record once when its write is signalled while the replay that reads it runs", async () => {
    await world.put("alice", "x1", { n: 1 }); // 100
    const hold = world.records.holdList(replayRead);
    const carol = await world.subscribe("carol", 99);
    await hold.reached;
    await world.put("alice", "x2", { n: 2 }); // 101: signalled while the replay runs
    hold.release();
    await carol.waitFor("live");
    await world.put("alice", "x3", { n: 3 }); // 102
    await carol.waitFor("create x3@102");
    expect(carol.lines).to.deep.equal(["create x1@100", "create x2@101", "live", "create x3@102"]);
  });

  it("does not send again a record the client had, signalled while it replays", async () => {
    await world.put("alice", "x1", { n: 1 }); // 100
    const hold = world.records.holdTimestamp(1); // its replay, with nothing to read, has started
    const carol = await world.subscribe("carol", 100);
    await hold.reached;
    await broadcast.publish({ collection: "articles", parentId: "", timestamp: 100, id: "x1", action: "create" }); // late, or repeated
    hold.release();
    await carol.waitFor("live");
    await world.put("alice", "x3", { n: 3 }); // 101
    await carol.waitFor("create x3@101");
    expect(carol.lines).to.deep.equal(["live", "create x3@101"]);
  });

  it("does not send again a record its replay sent, signalled while it replays", async () => {
    await world.put("alice", "x1", { n: 1 }); // 100
    const hold = world.records.holdList(replayRead);
    const carol = await world.subscribe("carol", 99);
    await hold.reached; // x1 read, not sent yet
    await broadcast.publish({ collection: "articles", parentId: "", timestamp: 100, id: "x1", action: "create" });
    hold.release();
    await carol.waitFor("live");
    await world.put("alice", "x3", { n: 3 }); // 101
    await carol.waitFor("create x3@101");
    expect(carol.lines).to.deep.equal(["create x1@100", "live", "create x3@101"]);
  });

  it("keeps serving a replaying subscriber when the others of its scope leave", async () => {
    const live = await world.subscribe("carol", undefined);
    await live.waitFor("live");
    // Each replay held as it starts (after the listing that authorized it).
    const firstHold = world.records.holdTimestamp(1);
    const first = await world.subscribe("carol", 0);
    await firstHold.reached;
    const secondHold = world.records.holdTimestamp(1);
    const second = await world.subscribe("carol", 0);
    await secondHold.reached;
    expect(world.feed.subscriberCount).to.equal(3);
    first.close();
    expect(world.feed.subscriberCount).to.equal(2);
    live.close();
    expect(world.feed.subscriberCount).to.equal(1);
    firstHold.release();
    secondHold.release();
    await second.waitFor("live");
    await world.put("alice", "x1", { n: 1 }); // 100
    await second.waitFor("create x1@100");
    expect(second.lines).to.deep.equal(["live", "create x1@100"]);
    expect(first.lines).to.deep.equal(["end"]);
  });

  it("answers an empty replay, never a refusal, to a caller who lost every read while replaying", async () => {
    // Nobody may create here: a caller who may read nothing is refused by the listing.
    const readOnly: ResourceDefinition = { ...articles, settingsPrincipals: { read: ["group:readers"] } };
    await world.put("alice", "x1", { n: 1 }, { read: ["bob"] }); // 100
    const hold = world.journal.holdLostAccess(); // x1 and its ACL read
    const bob = await world.subscribe("bob", 99, [], readOnly);
    await hold.reached;
    await world.acls.removePrincipalFromAce("/articles/x1", "read", "bob");
    await world.put("alice", "x2", { n: 2 }); // 101: a signal, so the replay reads once more
    hold.release();
    await bob.waitFor("live");
    expect(bob.lines).to.deep.equal(["create x1@100", "live"]);
    expect(world.logged).to.deep.equal([]);
  });

  it("reads again after a shared read for a change signalled while it ran", async () => {
    const carol = await world.subscribe("carol", undefined);
    await carol.waitFor("live");
    const hold = world.records.holdList((query) => query.includeDeleted && !query.filters.some((f) => f.field === "deleted"));
    await world.put("alice", "x1", { n: 1 }); // 100
    await hold.reached;
    await world.put("alice", "x2", { n: 2 }); // 101
    hold.release();
    await carol.waitFor("create x2@101");
    expect(carol.lines).to.deep.equal(["live", "create x1@100", "create x2@101"]);
  });

  it("runs one shared read of a scope at a time: a change signalled during one is read after it", async () => {
    const carol = await world.subscribe("carol", undefined);
    await carol.waitFor("live");
    const hold = world.records.holdList((query) => query.includeDeleted && !query.filters.some((f) => f.field === "deleted"));
    await world.put("alice", "x1", { n: 1 }); // 100
    await hold.reached;
    await world.put("alice", "x2", { n: 2 }); // 101: signalled while the shared read of x1 is held
    await afterPendingReads(); // a second shared read started for that signal would have sent x1 and x2 by now
    hold.release();
    await carol.waitFor("create x2@101");
    expect(carol.batches).to.deep.equal([["create x1@100"], ["create x2@101"]]);
  });

  it("tells a live subscriber of no loss while it still reads the record through a group", async () => {
    await world.acls.addUserPrincipal("bob", "group:g");
    await world.put("alice", "x1", { n: 1 }, { read: ["bob", "group:g"] }); // 100
    const bob = await world.subscribe("bob", undefined);
    await bob.waitFor("live");
    await world.aclChanges.revoke("articles", "x1", "read", "bob"); // a new version of x1: 101
    await broadcast.publish({ collection: "articles", parentId: "", timestamp: 101 });
    await world.put("alice", "x2", { n: 2 }, { read: ["bob"] }); // 102
    await bob.waitFor("create x2@102");
    // Still read through group:g: the new version, never a deletion.
    expect(bob.lines).to.deep.equal(["live", "update x1@101", "create x2@102"]);
  });

  it("says `update` for records whose write is no longer among the last thousand it remembers", async () => {
    for (let i = 0; i <= 1000; i += 1) await world.put("alice", `r${i}`, {}); // r0@100 … r1000@1100
    const carol = await world.subscribe("carol", 99);
    await carol.waitFor("live");
    expect(carol.events.slice(0, 2)).to.deep.equal(["update r0@100", "create r1@101"]);
    expect(carol.events).to.have.length(1001);
  });

  it("gives a plural write no place among the thousand actions it remembers: a create exactly at the bound is still a create", async () => {
    await world.put("alice", "r0", {}); // 100: the create
    await world.put("alice", "r1", { doomed: 1 }); // 101
    await world.put("alice", "r2", { doomed: 1 }); // 102
    for (let i = 3; i <= 999; i += 1) await world.put("alice", `r${i}`, {}); // r3@103 … r999@1099: 999 writes after the create
    const deleted = await world.service.deleteAll(world.user("alice"), articles, [{ field: "doomed", operator: "eq", value: 1 }]);
    expect(deleted.tombstones.map((t) => t.id).sort()).to.deep.equal(["r1", "r2"]);
    const carol = await world.subscribe("carol", 99);
    await carol.waitFor("live");
    expect(carol.events.slice(0, 2)).to.deep.equal(["create r0@100", "create r3@103"]);
    expect(carol.events).to.have.length(1000);
  });

  it("gives a scope touch no place among the thousand actions it remembers: a create exactly at the bound is still a create", async () => {
    for (let i = 0; i <= 999; i += 1) await world.put("alice", `r${i}`, {}); // r0@100 … r999@1099
    world.events.publishScopeTouched({ scope: { collection: "articles", parentId: "" }, timestamp: 1100 });
    const carol = await world.subscribe("carol", 99);
    await carol.waitFor("live");
    expect(carol.events.slice(0, 2)).to.deep.equal(["create r0@100", "create r1@101"]);
    expect(carol.events).to.have.length(1000);
  });
});
