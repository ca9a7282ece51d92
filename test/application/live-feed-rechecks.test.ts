/**
 * The live feed where an ACL is written after its record, outside its transaction (memory and
 * Redis permissions): a read between the two moves cursors past a record its new reader could
 * not see yet, and the write's signal, sent after both, names it again; that record is then read
 * again for its readers (cursor-reader.ts). The reads are caught mid-way
 * (HoldingRecords) instead of raced. Also: what the feed does when a read or a signal fails.
 */
import { expect } from "chai";
import { InProcessBroadcast } from "../../src/adapters/memory/in-process-broadcast.js";
import type { ChangeBroadcast, ChangeSignal } from "../../src/application/ports/change-broadcast.js";
import { afterPendingReads, articles, FeedWorld, HANG_GUARD_MS, pendingTimers, replayRead } from "../support/live-feed-world.js";

const ARTICLES = { collection: "articles", parentId: "" };
const CREATED_X1 = { ...ARTICLES, timestamp: 100, id: "x1", action: "create" } as const;

describe("LiveFeed re-checks of records whose ACL came after them", function () {
  this.timeout(HANG_GUARD_MS);
  let broadcast: InProcessBroadcast;
  let world: FeedWorld;

  async function open(aclMayTrailRecord: boolean) {
    broadcast = new InProcessBroadcast();
    world = await FeedWorld.started({ broadcast, aclMayTrailRecord });
  }
  afterEach(() => world.feed.close());

  /**
   * Bob (no filter) and carol (`kind = a`, a group reader) live; x1 (`kind: a`) created at 100
   * and its signal sent, then shared with bob and signalled again while the shared read that
   * found it is held at carol's filtered read (after the ACLs were read).
   */
  async function shareDuringHeldRead() {
    await open(true);
    const bob = await world.subscribe("bob", undefined);
    const carol = await world.subscribe("carol", undefined, [{ field: "kind", operator: "eq", value: "a" }]);
    await bob.waitFor("live");
    await carol.waitFor("live");
    const hold = world.records.holdList((query) => query.filters.some((f) => f.field === "kind"));
    await world.records.create(ARTICLES, "x1", { kind: "a" }); // 100
    await broadcast.publish({ ...ARTICLES, timestamp: 100 });
    await hold.reached;
    await world.acls.addPrincipalToAce("/articles/x1", "read", "bob");
    await broadcast.publish(CREATED_X1);
    return { bob, carol, hold };
  }

  it("sends a live subscriber a record read before its ACL named it, once the write's signal comes", async () => {
    await open(true);
    const bob = await world.subscribe("bob", undefined); // the scope is unwritten: its timestamp is 0
    const carol = await world.subscribe("carol", undefined);
    await bob.waitFor("live");
    await carol.waitFor("live");
    await world.records.create(ARTICLES, "x1", {}); // 100
    await broadcast.publish({ ...ARTICLES, timestamp: 100 }); // a shared read finds x1 with no reader but carol
    await carol.waitFor("update x1@100");
    await world.acls.addPrincipalToAce("/articles/x1", "read", "bob");
    await broadcast.publish(CREATED_X1);
    await bob.waitFor("create x1@100");
    expect(bob.lines).to.deep.equal(["live", "create x1@100"]);
    expect(carol.lines).to.deep.equal(["live", "update x1@100"]);
  });

  it("re-checks for its filtered readers a record whose readers changed, even to as many others", async () => {
    await open(true);
    const kindA = await world.subscribe("bob", undefined, [{ field: "kind", operator: "eq", value: "a" }]);
    const kindB = await world.subscribe("bob", undefined, [{ field: "kind", operator: "eq", value: "b" }]);
    const carol = await world.subscribe("carol", undefined);
    for (const sink of [kindA, kindB, carol]) await sink.waitFor("live");
    // Held after the read of the ACLs, at the filtered reads: the signal comes during that shared read.
    const hold = world.records.holdList((query) => query.filters.some((f) => f.field === "kind"));
    await world.records.create(ARTICLES, "x1", { kind: "a" }); // 100
    await world.acls.replaceObjectPermissions("/articles/x1", { read: ["dave", "erin"] });
    await broadcast.publish({ ...ARTICLES, timestamp: 100 });
    await hold.reached;
    await world.acls.replaceObjectPermissions("/articles/x1", { read: ["dave", "bob"] });
    await broadcast.publish(CREATED_X1);
    hold.release();
    await kindA.waitFor("create x1@100");
    await world.put("alice", "x2", { kind: "b" }, { read: ["bob"] }); // 101
    await kindB.waitFor("create x2@101");
    expect(kindA.lines).to.deep.equal(["live", "create x1@100"]);
    expect(kindB.lines).to.deep.equal(["live", "create x2@101"]);
  });

  it("re-checks a record signalled while a shared read was under way", async () => {
    const { bob, carol, hold } = await shareDuringHeldRead();
    hold.release();
    await bob.waitFor("create x1@100");
    expect(bob.lines).to.deep.equal(["live", "create x1@100"]);
    expect(carol.lines).to.deep.equal(["live", "create x1@100"]); // the action was known by the time her events were made
  });

  it("re-checks a record signalled between a join and its first shared read, for readers who started before it", async () => {
    await open(true);
    await world.records.create(ARTICLES, "x1", {}); // 100, nobody's but the readers group's yet
    const bob = await world.subscribe("bob", 100); // the client has everything up to 100
    const dave = await world.subscribe("dave", 99);
    await bob.waitFor("live");
    await dave.waitFor("live"); // both joined at cursor 100; their shared read starts after the window (a timer)
    // These memory calls take no timer: the signal comes before that shared read, at what the replays read.
    await world.acls.replaceObjectPermissions("/articles/x1", { read: ["bob", "dave"] });
    await broadcast.publish({ ...ARTICLES, timestamp: 100, id: "x1", action: "create" });
    await dave.waitFor("create x1@100"); // both are re-checked in one pass, without waiting in between
    expect(dave.lines).to.deep.equal(["live", "create x1@100"]);
    expect(bob.lines).to.deep.equal(["live"]);
  });

  it("leaves to the next shared read a re-checked record rewritten before its re-read", async () => {
    const { bob, carol, hold } = await shareDuringHeldRead();
    await world.records.update(ARTICLES, "x1", { kind: "a", n: 2 }); // 101: the re-check of x1@100 finds this
    await broadcast.publish({ ...ARTICLES, timestamp: 101, id: "x1", action: "update" });
    hold.release();
    await carol.waitFor("update x1@101"); // the next shared read: bob's copy is sent in the same pass
    expect(bob.lines).to.deep.equal(["live", "update x1@101"]);
    expect(carol.lines).to.deep.equal(["live", "update x1@101"]);
  });

  it("leaves to the next shared read a re-checked record deleted before its re-read", async () => {
    const { bob, carol, hold } = await shareDuringHeldRead();
    await world.records.delete(ARTICLES, "x1"); // 101: the re-check of x1@100 finds no record
    await broadcast.publish({ ...ARTICLES, timestamp: 101, id: "x1", action: "delete" });
    hold.release();
    await carol.waitFor("delete x1@101"); // the next shared read: bob's copy is sent in the same pass
    expect(bob.lines).to.deep.equal(["live", "delete x1@101"]);
    expect(carol.lines).to.deep.equal(["live", "delete x1@101"]);
  });

  it("remembers the last thousand versions it sent a subscriber, no more: a re-check of an older one sends it again", async () => {
    await open(true);
    const bob = await world.subscribe("bob", undefined); // the scope is unwritten: its timestamp is 0
    const dave = await world.subscribe("dave", undefined);
    await bob.waitFor("live");
    await dave.waitFor("live");
    for (let i = 0; i <= 1000; i += 1) await world.put("alice", `r${i}`, {}, { read: ["bob"] }); // r0@100 … r1000@1100
    await bob.waitFor("create r1000@1100"); // bob was sent 1,001 versions: r0@100 is the one forgotten
    await world.acls.replaceObjectPermissions("/articles/r0", { read: ["bob", "dave"] });
    await world.acls.replaceObjectPermissions("/articles/r1", { read: ["bob", "dave"] });
    // r1 first: sending r0 again makes r1 the oldest version remembered, and forgets it.
    await broadcast.publish({ ...ARTICLES, timestamp: 101, id: "r1", action: "create" });
    await broadcast.publish({ ...ARTICLES, timestamp: 100, id: "r0", action: "create" });
    await dave.waitFor("create r0@100"); // re-checked after r1, for bob too, in the same shared read
    // (remembering r0's action made the feed forget r1's: its event says `update`)
    expect(dave.lines).to.deep.equal(["live", "update r1@101", "create r0@100"]);
    expect(bob.events.filter((line) => line.endsWith(" r0@100"))).to.have.length(2);
    expect(bob.events.filter((line) => line.endsWith(" r1@101"))).to.have.length(1);
  });

  it("leaves no shared read scheduled for a scope whose last subscriber left with a re-check pending", async () => {
    await open(true);
    await world.records.create(ARTICLES, "x1", {}); // 100
    const before = pendingTimers();
    const bob = await world.subscribe("bob", 99);
    await bob.waitFor("live"); // joined at cursor 100; its shared read is scheduled
    await world.acls.addPrincipalToAce("/articles/x1", "read", "bob");
    await broadcast.publish({ ...ARTICLES, timestamp: 100, id: "x1", action: "create" }); // a re-check, pending
    bob.close();
    await afterPendingReads(); // that shared read ran, for nobody
    expect(pendingTimers()).to.equal(before);
    expect(bob.lines).to.deep.equal(["live", "end"]);
  });

  it("leaves to the next shared read a re-check above its subscribers' cursors (a join raised the mark during the read)", async () => {
    await open(true);
    const bob = await world.subscribe("bob", undefined);
    const carol = await world.subscribe("carol", undefined);
    await bob.waitFor("live");
    await carol.waitFor("live");
    const hold = world.records.holdList((query) => query.includeDeleted && !query.filters.some((f) => f.field === "deleted"));
    await world.put("alice", "x1", {}); // 100
    await hold.reached; // the shared read up to 100
    await world.records.create(ARTICLES, "x2", {}); // 101
    const dave = await world.subscribe("dave", undefined); // replays up to 101 and joins: the scope has read up to 101
    await dave.waitFor("live");
    await world.acls.addPrincipalToAce("/articles/x2", "read", "bob");
    await broadcast.publish({ ...ARTICLES, timestamp: 101, id: "x2", action: "create" }); // re-checked after that read
    hold.release();
    await carol.waitFor("create x2@101");
    await world.put("alice", "x3", {}); // 102: read after x2 was sent, however many times
    await carol.waitFor("create x3@102");
    expect(carol.lines).to.deep.equal(["live", "create x1@100", "create x2@101", "create x3@102"]);
    expect(bob.lines).to.deep.equal(["live", "create x2@101"]);
    expect(dave.lines).to.deep.equal(["live"]);
  });

  it("remembers after the replay what the replay sent: a re-check by the shared reads does not send it again", async () => {
    await open(true);
    await world.put("alice", "x1", {}, { read: ["bob"] }); // 100
    const bob = await world.subscribe("bob", 99);
    const dave = await world.subscribe("dave", 99);
    await bob.waitFor("live"); // x1 sent by the replay
    await dave.waitFor("live");
    await world.acls.addPrincipalToAce("/articles/x1", "read", "dave");
    await broadcast.publish({ ...ARTICLES, timestamp: 100, id: "x1", action: "create" }); // before their first shared read
    await dave.waitFor("create x1@100"); // bob is re-checked in the same pass
    expect(bob.lines).to.deep.equal(["create x1@100", "live"]);
  });

  it("does not send again a record its replay sent, signalled while it replays, where the ACL commits with its record", async () => {
    await open(false);
    await world.put("alice", "x1", {}); // 100
    const hold = world.records.holdList(replayRead);
    const carol = await world.subscribe("carol", 99);
    await hold.reached; // x1 read, not sent yet
    await broadcast.publish({ ...ARTICLES, timestamp: 100, id: "x1", action: "create" });
    hold.release();
    await carol.waitFor("live");
    expect(carol.lines).to.deep.equal(["create x1@100", "live"]);
  });

  it("stops reading once it has read a change signalled during a shared read", async () => {
    await open(true);
    const carol = await world.subscribe("carol", undefined);
    await carol.waitFor("live");
    await afterPendingReads(); // its first shared read ran
    const idle = pendingTimers();
    const hold = world.records.holdList((query) => query.includeDeleted && !query.filters.some((f) => f.field === "deleted"));
    await world.put("alice", "x1", {}); // 100
    await hold.reached;
    await world.put("alice", "x2", {}); // 101: read again after this read
    hold.release();
    await carol.waitFor("create x2@101");
    await afterPendingReads();
    expect(pendingTimers()).to.equal(idle);
  });

  it("re-checks nothing where the ACL commits with its record", async () => {
    await open(false);
    const bob = await world.subscribe("bob", undefined);
    const carol = await world.subscribe("carol", undefined);
    await bob.waitFor("live");
    await carol.waitFor("live");
    await world.records.create(ARTICLES, "x1", {}); // 100
    await broadcast.publish({ ...ARTICLES, timestamp: 100 });
    await carol.waitFor("update x1@100");
    await world.acls.addPrincipalToAce("/articles/x1", "read", "bob");
    await broadcast.publish(CREATED_X1);
    await world.put("alice", "x2", { n: 2 }, { read: ["bob"] }); // 101
    await bob.waitFor("create x2@101");
    expect(bob.lines).to.deep.equal(["live", "create x2@101"]);
  });

  it("sends a replaying subscriber a record its replay read before its ACL named it", async () => {
    await open(true);
    await world.records.create(ARTICLES, "x1", {}); // 100
    // Held after the replay read the changes and their ACLs (x1 not readable yet).
    const hold = world.journal.holdLostAccess();
    const bob = await world.subscribe("bob", 99);
    await hold.reached;
    await world.acls.addPrincipalToAce("/articles/x1", "read", "bob");
    await broadcast.publish({ ...ARTICLES, timestamp: 100, id: "x1", action: "create" });
    hold.release();
    await bob.waitFor("live");
    expect(bob.lines).to.deep.equal(["create x1@100", "live"]);
  });

  it("re-checks for a replaying subscriber every record signalled in one round, with its filters", async () => {
    await open(true);
    await world.records.create(ARTICLES, "x1", { kind: "a" }); // 100
    await world.records.create(ARTICLES, "x2", { kind: "b" }); // 101
    await world.records.create(ARTICLES, "x3", { kind: "a" }); // 102
    const hold = world.journal.holdLostAccess();
    const bob = await world.subscribe("bob", 99, [{ field: "kind", operator: "eq", value: "a" }]);
    await hold.reached; // its records read: none readable yet
    for (const id of ["x1", "x2", "x3"]) await world.acls.addPrincipalToAce(`/articles/${id}`, "read", "bob");
    for (const [id, timestamp] of [
      ["x1", 100],
      ["x2", 101],
      ["x3", 102],
    ] as const)
      await broadcast.publish({ ...ARTICLES, timestamp, id, action: "create" });
    hold.release();
    await bob.waitFor("live");
    expect(bob.lines).to.deep.equal(["create x1@100", "create x3@102", "live"]);
  });

  it("re-checks for a replaying subscriber without a refusal when it lost every read meanwhile", async () => {
    await open(true);
    // Nobody may create here: a caller who may read nothing is refused by the listing.
    const readOnly = { ...articles, settingsPrincipals: { read: ["group:readers"] } };
    await world.put("alice", "x1", {}, { read: ["bob"] }); // 100
    await world.records.create(ARTICLES, "x2", {}); // 101
    const hold = world.journal.holdLostAccess();
    const bob = await world.subscribe("bob", 99, [], readOnly);
    await hold.reached; // x1 read, x2 not readable
    await broadcast.publish({ ...ARTICLES, timestamp: 101, id: "x2", action: "create" });
    await world.acls.removePrincipalFromAce("/articles/x1", "read", "bob"); // bob may read nothing now
    hold.release();
    await bob.waitFor("live");
    expect(bob.lines).to.deep.equal(["create x1@100", "live"]);
    expect(world.logged).to.deep.equal([]);
  });
});

describe("LiveFeed failures", function () {
  this.timeout(HANG_GUARD_MS);
  it("closes a subscriber whose replay fails, and says why", async () => {
    const world = new FeedWorld();
    await world.feed.start();
    try {
      await world.records.create({ collection: "articles", parentId: "" }, "x1", {}); // 100: something to replay
      const hold = world.records.holdList(replayRead);
      const alice = await world.subscribe("alice", 0);
      await hold.reached;
      hold.fail(new Error("storage down"));
      await alice.waitFor("end");
      expect(alice.lines).to.deep.equal(["end"]);
      expect(world.logged).to.deep.equal(["a live feed subscription failed and was closed: storage down"]);
      expect(world.feed.subscriberCount).to.equal(0);
    } finally {
      world.feed.close();
    }
  });

  it("closes a scope's live subscribers when its shared read fails, and says why", async () => {
    const world = new FeedWorld();
    await world.acls.addUserPrincipal("carol", "group:readers");
    await world.feed.start();
    try {
      const first = await world.subscribe("carol", undefined);
      const second = await world.subscribe("alice", undefined);
      await first.waitFor("live");
      await second.waitFor("live");
      const hold = world.records.holdList((query) => query.includeDeleted);
      await world.put("alice", "a1", { n: 1 });
      await hold.reached;
      hold.fail(new Error("storage down"));
      await first.waitFor("end");
      await second.waitFor("end");
      expect(world.logged).to.deep.equal(["a live feed read failed; the scope's subscribers were closed: storage down"]);
      expect(world.feed.subscriberCount).to.equal(0);
    } finally {
      world.feed.close();
    }
  });

  it("logs a signal it could not send and a listener connection that failed, and goes on", async () => {
    let listener: ((signal: ChangeSignal) => void) | undefined;
    const broken: ChangeBroadcast = {
      publish: () => Promise.reject(new Error("no route")),
      subscribe(onSignal, onError) {
        listener = onSignal;
        onError?.(new Error("connection reset"));
        return () => {};
      },
      ready: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
    const world = new FeedWorld({ broadcast: broken });
    await world.acls.addUserPrincipal("carol", "group:readers");
    await world.feed.start();
    try {
      const carol = await world.subscribe("carol", undefined);
      await carol.waitFor("live");
      await world.put("alice", "a1", { n: 1 }); // 100
      listener?.({ ...ARTICLES, timestamp: 100 });
      await carol.waitFor("create a1@100");
      expect(world.logged).to.deep.equal([
        "the change listener connection failed; reconnecting: connection reset",
        "a change signal could not be sent: no route",
      ]);
    } finally {
      world.feed.close();
    }
  });
});
