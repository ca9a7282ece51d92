/**
 * The live feed over the memory adapters (test/support/live-feed-world.ts): replay after
 * `since`, then the handover to the scope's shared reads, who sees what, filters, pages, slow
 * subscribers and keep-alives. Timestamps are those of a memory clock standing still at 100.
 * Carol reads the whole collection (group:readers); bob only what ACLs grant him.
 */
import { expect } from "chai";
import { UnauthenticatedError } from "../../src/domain/errors.js";
import { anonymousRequester } from "../../src/application/requester.js";
import { InProcessBroadcast } from "../../src/adapters/memory/in-process-broadcast.js";
import { EVERY_SCOPE } from "../../src/application/ports/change-broadcast.js";
import { afterPendingReads, articles, FeedWorld, notes, RecordingSink, HANG_GUARD_MS } from "../support/live-feed-world.js";
import { expectRejection } from "../support/rejection.js";
import { reviewedVersionOf } from "../support/reviewed-resource.js";

const ARTICLES = { collection: "articles", parentId: "" };

describe("LiveFeed", function () {
  this.timeout(HANG_GUARD_MS);
  let world: FeedWorld;

  beforeEach(async () => {
    world = await FeedWorld.started();
  });
  afterEach(() => world.feed.close());

  it("replays what changed after `since`, says when it is live, then streams each change with its action", async () => {
    await world.put("alice", "a1", { n: 1 }); // 100
    await world.put("alice", "a2", { n: 2 }); // 101
    await world.service.delete(world.user("alice"), articles, "a1"); // 102, and alice's loss of it at the same 102
    await world.put("alice", "a0", { n: 0 }); // 103: a record newer than a tombstone of the same replay
    const carol = await world.subscribe("carol", 100);
    await carol.waitFor("live");
    await world.put("alice", "a3", { n: 3 }); // 104
    await carol.waitFor("create a3@104"); // else one shared read may find it deleted already
    await world.put("alice", "a2", { n: 22 }); // 105
    await world.service.delete(world.user("alice"), articles, "a3"); // 106 (loss 106)
    await carol.waitFor("delete a3@106");
    expect(carol.lines).to.deep.equal([
      "create a2@101",
      "delete a1@102",
      "create a0@103",
      "live",
      "create a3@104",
      "update a2@105",
      "delete a3@106",
    ]);
  });

  it("without `since`, sends only what changes from the subscription on", async () => {
    await world.put("alice", "a1", { n: 1 }); // 100
    const carol = await world.subscribe("carol", undefined);
    await carol.waitFor("live");
    await world.put("alice", "a2", { n: 2 }); // 101
    await carol.waitFor("create a2@101");
    expect(carol.lines).to.deep.equal(["live", "create a2@101"]);
  });

  it("counts its subscribers, replaying or live, and forgets those that leave", async () => {
    expect(world.feed.subscriberCount).to.equal(0);
    const first = await world.subscribe("carol", undefined);
    const second = await world.subscribe("carol", undefined);
    expect(world.feed.subscriberCount).to.equal(2);
    await first.waitFor("live");
    await second.waitFor("live");
    expect(world.feed.subscriberCount).to.equal(2);
    first.close();
    first.close();
    expect(world.feed.subscriberCount).to.equal(1);
    expect(first.lines).to.deep.equal(["live", "end"]);
    second.close();
    expect(world.feed.subscriberCount).to.equal(0);
  });

  it("checks the request as the listing does before opening anything", async () => {
    let opened = false;
    const refused = world.feed.subscribe({ requester: anonymousRequester(), resource: articles, filters: [], since: undefined }, () => {
      opened = true;
      return new RecordingSink();
    });
    await expectRejection(refused, UnauthenticatedError);
    expect(opened).to.equal(false);
    expect(world.feed.subscriberCount).to.equal(0);
  });

  it("decides a subscriber's view once, with the listing that authorizes it: one collection read check per subscribe", async () => {
    await world.put("alice", "a1", { n: 1 }, { read: ["bob"] }); // 100
    let checks = 0;
    const check = world.acls.checkPermission.bind(world.acls);
    world.acls.checkPermission = (objectId, permission, ...rest) => {
      if (permission === "read") checks += 1;
      return check(objectId, permission, ...rest);
    };
    try {
      const bob = await world.subscribe("bob", undefined);
      await bob.waitFor("live");
      // bob may read only a1: one check of `read` on the whole collection, by the listing that
      // authorizes the subscription; the replay and the shared reads read the ports with the view
      // it decided (it was three: the replay read through the record service, page by page).
      expect(checks).to.equal(1);
      bob.close();
    } finally {
      world.acls.checkPermission = check;
    }
  });

  it("gives a restricted subscriber what its ACLs grant, lost access as a deletion and regained access as an update", async () => {
    await world.put("alice", "a1", { n: 1 }, { read: ["bob"] }); // 100
    await world.put("alice", "a2", { n: 2 }); // 101
    const bob = await world.subscribe("bob", 0);
    const carol = await world.subscribe("carol", 101);
    await bob.waitFor("live");
    await carol.waitFor("live");
    await world.put("alice", "a3", { n: 3 }, { read: ["bob"] }); // 102
    await world.put("alice", "a4", { n: 4 }); // 103
    await carol.waitFor("create a4@103");
    await world.put("alice", "a1", { n: 1 }, { read: [] }); // record 104, bob's loss at the same 104
    await carol.waitFor("update a1@104");
    await world.put("alice", "a1", { n: 11 }, { read: ["bob"] }); // 105
    await carol.waitFor("update a1@105");
    expect(bob.lines).to.deep.equal(["create a1@100", "live", "create a3@102", "delete a1@104", "update a1@105"]);
    expect(carol.lines).to.deep.equal(["live", "create a3@102", "create a4@103", "update a1@104", "update a1@105"]);
  });

  it("with a resource's own bound permissions, gives a restricted subscriber the records whose ACL names him under a permission bound on the record itself", async () => {
    const reviewed = reviewedVersionOf(articles);
    const bob = await world.subscribe("bob", undefined, [], reviewed); // the scope read first: its timestamp is now 99
    await bob.waitFor("live");
    await world.service.replace(world.user("alice"), reviewed, "a1", { data: { n: 1 }, permissions: { review: ["bob"] } }); // 100
    await world.service.replace(world.user("alice"), reviewed, "a2", { data: { n: 2 }, permissions: { read: ["bob"] } }); // 101
    await bob.waitFor("create a2@101");
    expect(bob.lines).to.deep.equal(["live", "create a2@101"]);
  });

  it("gives a restricted subscriber live what its listing's grants reach, as its replay does, even through a permission bound on the records' pattern only", async () => {
    // `peek` on a record grants read to a listing (bound on `/articles/*`) but not to a GET (not bound on `/articles/<id>`).
    const pattern = "/articles/*";
    const peeked: typeof articles = {
      ...articles,
      permissions: ["read", "write", "peek"],
      boundPermissions: (objectId, permission) =>
        objectId === pattern && permission === "read"
          ? [
              { objectId, permission: "read" },
              { objectId, permission: "peek" },
            ]
          : [{ objectId, permission }],
    };
    await world.service.replace(world.user("alice"), peeked, "a1", { data: { n: 1 }, permissions: { peek: ["bob"] } }); // 100
    const bob = await world.subscribe("bob", 0, [], peeked);
    await bob.waitFor("live");
    await world.service.replace(world.user("alice"), peeked, "a2", { data: { n: 2 }, permissions: { peek: ["bob"] } }); // 101
    await world.service.replace(world.user("alice"), peeked, "a3", { data: { n: 3 }, permissions: { read: ["bob"] } }); // 102
    await world.service.replace(world.user("alice"), peeked, "a4", { data: { n: 4 }, permissions: { write: ["alice"] } }); // 103
    await world.service.replace(world.user("alice"), peeked, "a5", { data: { n: 5 }, permissions: { read: ["bob"] } }); // 104
    await bob.waitFor("create a5@104");
    expect(bob.lines).to.deep.equal(["create a1@100", "live", "create a2@101", "create a3@102", "create a5@104"]);
  });

  it("applies the filters to records and lets every deletion through, in the replay and live", async () => {
    await world.put("alice", "a1", { kind: "a" }); // 100
    await world.put("alice", "b1", { kind: "b" }); // 101
    await world.service.delete(world.user("alice"), articles, "b1"); // 102, and alice's loss of it at the same 102
    const filtered = await world.subscribe("carol", 0, [{ field: "kind", operator: "eq", value: "a" }]);
    const all = await world.subscribe("carol", 102);
    await filtered.waitFor("live");
    await all.waitFor("live");
    await world.put("alice", "b2", { kind: "b" }); // 103
    await all.waitFor("create b2@103"); // else one shared read may find it deleted already
    await world.put("alice", "a2", { kind: "a" }); // 104
    await world.service.delete(world.user("alice"), articles, "b2"); // 105 (loss 105)
    await filtered.waitFor("delete b2@105");
    expect(filtered.lines).to.deep.equal(["create a1@100", "delete b1@102", "live", "create a2@104", "delete b2@105"]);
    expect(all.events).to.deep.equal(["create b2@103", "create a2@104", "delete b2@105"]);
  });

  it("reads long replays and bursts page by page, in order, without gap or duplicate", async () => {
    const ids = Array.from({ length: 250 }, (_, i) => `r${String(i).padStart(3, "0")}`);
    for (const id of ids) await world.put("alice", id, { id_: id }); // r000@100 … r249@349
    const early = await world.subscribe("carol", 99);
    await early.waitFor("live");
    // Each deletion takes one timestamp, alice's loss of the record the same: r000@350 … r209@559.
    for (const id of ids.slice(0, 210)) await world.service.delete(world.user("alice"), articles, id);
    await early.waitFor("delete r209@559");
    await world.put("alice", "z1", { n: 1 }); // 560: beyond the late replay's first page of deletions
    await early.waitFor("create z1@560");
    const late = await world.subscribe("carol", 99);
    await late.waitFor("live");
    const created = ids.map((id, i) => `create ${id}@${100 + i}`);
    const deleted = ids.slice(0, 210).map((id, i) => `delete ${id}@${350 + i}`);
    expect(early.lines).to.deep.equal([...created, "live", ...deleted, "create z1@560"]);
    expect(late.lines).to.deep.equal([...created.slice(210), ...deleted, "create z1@560", "live"]);
  });

  it("drops a subscriber that stops reading, in its replay or live, and goes on serving the others", async () => {
    await world.put("alice", "a1", { n: 1 }); // 100
    const stalled = await world.subscribe("carol", undefined);
    const reading = await world.subscribe("carol", undefined);
    const replaying = await world.subscribe("carol", 0);
    replaying.accepts = false;
    await replaying.waitFor("end");
    await stalled.waitFor("live");
    await reading.waitFor("live");
    stalled.accepts = false;
    await world.put("alice", "a2", { n: 2 }); // 101
    await stalled.waitFor("end");
    await reading.waitFor("create a2@101");
    expect(world.feed.subscriberCount).to.equal(1);
    await world.put("alice", "a3", { n: 3 }); // 102
    await reading.waitFor("create a3@102");
    expect(stalled.lines).to.deep.equal(["live", "end"]);
    expect(replaying.lines).to.deep.equal(["end"]);
    expect(reading.lines).to.deep.equal(["live", "create a2@101", "create a3@102"]);
  });

  it("closes a subscriber whose stream refuses the switch to live", async () => {
    const sink = await world.subscribe("carol", undefined);
    sink.acceptsLive = false;
    await sink.waitFor("end");
    expect(sink.lines).to.deep.equal(["live", "end"]);
    expect(world.feed.subscriberCount).to.equal(0);
  });

  it("ends every stream on close, and stops listening", async () => {
    const live = await world.subscribe("carol", undefined);
    await live.waitFor("live");
    const replaying = await world.subscribe("carol", undefined);
    world.feed.close();
    expect(live.lines).to.deep.equal(["live", "end"]);
    expect(replaying.lines.at(-1)).to.equal("end");
    expect(world.feed.subscriberCount).to.equal(0);
  });

  it("reads a user resource in the subscriber's own scope", async () => {
    const bobs = await world.subscribe("bob", 0, [], notes); // bob's scope read first: its timestamp is now 99
    await bobs.waitFor("live");
    await world.service.replace(world.user("alice"), notes, "n1", { data: { n: 1 } }); // alice's scope: 99
    await world.service.replace(world.user("bob"), notes, "n1", { data: { n: 2 } }); // bob's scope: 100
    await bobs.waitFor("create n1@100");
    expect(bobs.lines).to.deep.equal(["live", "create n1@100"]);
  });

  it("keeps the subscribers of two scopes open at once each to their own scope", async () => {
    const bobs = await world.subscribe("bob", 0, [], notes); // each scope's timestamp is now 99
    const alices = await world.subscribe("alice", 0, [], notes);
    await bobs.waitFor("live");
    await alices.waitFor("live");
    await world.service.replace(world.user("alice"), notes, "a1", { data: { n: 1 } }); // alice's scope: 100
    await world.service.replace(world.user("bob"), notes, "b1", { data: { n: 2 } }); // bob's scope: 100
    await alices.waitFor("create a1@100");
    await bobs.waitFor("create b1@100");
    expect(alices.lines).to.deep.equal(["live", "create a1@100"]);
    expect(bobs.lines).to.deep.equal(["live", "create b1@100"]);
  });
});

describe("LiveFeed signals from other processes", function () {
  this.timeout(HANG_GUARD_MS);
  let world: FeedWorld;
  let broadcast: InProcessBroadcast;

  beforeEach(async () => {
    broadcast = new InProcessBroadcast();
    world = await FeedWorld.started({ broadcast });
  });
  afterEach(() => world.feed.close());

  it("reads a signalled change back, as a creation only when the signal says so", async () => {
    const carol = await world.subscribe("carol", undefined); // the scope is unwritten: its timestamp is 0
    await carol.waitFor("live");
    await world.records.create(ARTICLES, "x1", {}); // 100, written by another process
    await broadcast.publish({ ...ARTICLES, timestamp: 100, id: "x1", action: "create" });
    await carol.waitFor("create x1@100");
    await world.records.update(ARTICLES, "x1", { n: 1 }); // 101
    await broadcast.publish({ ...ARTICLES, timestamp: 101 });
    await carol.waitFor("update x1@101");
    await world.records.create(ARTICLES, "x2", {}); // 102
    await broadcast.publish({ collection: EVERY_SCOPE, parentId: "", timestamp: 0 });
    await carol.waitFor("update x2@102");
    expect(carol.lines).to.deep.equal(["live", "create x1@100", "update x1@101", "update x2@102"]);
  });

  it("wakes its subscribers on a signal for every scope", async () => {
    const carol = await world.subscribe("carol", 99); // the scope is unwritten: its timestamp is 0
    await world.records.create(ARTICLES, "x1", {}); // 100
    await broadcast.publish({ collection: EVERY_SCOPE, parentId: "", timestamp: 0 });
    await carol.waitFor("update x1@100");
    expect(carol.events).to.deep.equal(["update x1@100"]);
  });
});

describe("LiveFeed keep-alives", function () {
  this.timeout(HANG_GUARD_MS);
  it("sends keep-alives to every subscriber and drops one whose stream refuses them", async () => {
    const world = new FeedWorld({ keepAliveMs: 1 });
    await world.acls.addUserPrincipal("carol", "group:readers");
    await world.feed.start();
    try {
      const live = await world.subscribe("carol", undefined);
      await live.waitFor("live");
      const refusing = await world.subscribe("carol", undefined);
      refusing.acceptsKeepAlive = false;
      await refusing.waitFor("end");
      await live.waitFor("keep-alive");
      expect(refusing.lines.filter((line) => line === "keep-alive")).to.have.length(1);
      expect(world.feed.subscriberCount).to.equal(1);
    } finally {
      world.feed.close();
    }
  });
});

describe("LiveFeed and ACL changes made by extensions (ExtensionContext.acls)", function () {
  this.timeout(HANG_GUARD_MS);
  let world: FeedWorld | undefined;

  afterEach(() => world?.feed.close());

  it("sends a read removed by an extension to a live subscriber as a deletion", async () => {
    // Built and started here, not in a hook: the feed's listeners are set up under the test. No
    // re-checks of signals either: once the subscription's first reads are done, only the
    // change's announcement makes the feed read again.
    const started = await FeedWorld.started({ aclMayTrailRecord: false });
    world = started;
    await started.put("alice", "x1", { n: 1 }, { read: ["bob"] }); // 100
    const bob = await started.subscribe("bob", undefined);
    await bob.waitFor("live");
    await afterPendingReads(); // the reads the subscription started with are done: only a signal reads again
    await started.aclChanges.revoke(articles.name, "x1", "read", "bob"); // bob's loss, at the record's new version: 101
    await bob.waitFor("delete x1@101");
    expect(bob.lines).to.deep.equal(["live", "delete x1@101"]);
  });
});
