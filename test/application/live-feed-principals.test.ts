/**
 * Principal changes and the live feed, over the memory adapters: an announced change moves the
 * streams of the callers holding the changed principal onto their new principals (nothing is
 * judged on the old ones once the change returned); after a reconnection of the signal listener
 * (signals, principal changes among them, may have been missed) each stream's principals are
 * looked up again and only the changed ones move; a change whose announcement fails is reported
 * as failed.
 */
import { expect } from "chai";
import { Authorizer } from "../../src/application/authorizer.js";
import { ChangeEvents } from "../../src/application/events.js";
import { resourceKinds } from "../../src/application/kinds/resource-kinds.js";
import { AccessStamps } from "../../src/application/memberships/access-stamps.js";
import { Memberships } from "../../src/application/memberships/memberships.js";
import { EVERY_SCOPE } from "../../src/application/ports/change-broadcast.js";
import { InProcessBroadcast } from "../../src/adapters/memory/in-process-broadcast.js";
import { MemoryPermissionStore } from "../../src/adapters/memory/memory-permission-store.js";
import { memoryStorage } from "../../src/adapters/memory/memory-record-store.js";
import { DirectUnitOfWork } from "../../src/adapters/system/direct-unit-of-work.js";
import { afterPendingReads, FeedWorld, HANG_GUARD_MS } from "../support/live-feed-world.js";
import { expectRejection } from "../support/rejection.js";

describe("LiveFeed and principal changes", function () {
  this.timeout(HANG_GUARD_MS);

  it("moves exactly the streams of callers holding the announced principal onto their new principals, before the change returns", async () => {
    const world = await FeedWorld.started();
    try {
      const announced = world.memberships;
      await world.acls.addUserPrincipal("bob", "group:team");
      const bob = await world.subscribe("bob", undefined);
      const dave = await world.subscribe("dave", undefined);
      await Promise.all([bob.waitFor("live"), dave.waitFor("live")]);
      await announced.removeEverywhere("group:team");
      // Decided on Bob's new principals: the team's record is not his any more, his own is.
      await world.put("alice", "t1", { n: 1 }, { read: ["group:team"] });
      await world.put("alice", "b1", { n: 2 }, { read: ["bob"] });
      await bob.waitFor("create b1@101");
      await afterPendingReads();
      expect(bob.lines.filter((line) => line.includes("t1") || line === "resync")).to.deep.equal([]);
      await announced.add("group:all", ["system.Authenticated"]);
      await world.put("alice", "a1", { n: 3 }, { read: ["group:all"] });
      // Every authenticated caller holds system.Authenticated: a group given to all of them reaches every stream.
      await Promise.all([bob.waitFor("create a1@102"), dave.waitFor("create a1@102")]);
      expect([...bob.lines, ...dave.lines]).to.not.include("resync");
    } finally {
      world.feed.close();
    }
  });

  it("decides again a stream whose caller's principals were announced as changed while it was being opened", async () => {
    const world = await FeedWorld.started();
    try {
      const announced = world.memberships;
      await world.acls.addUserPrincipal("bob", "group:team");
      // The subscription's own check (a listing after the end of time), caught once Bob's principals were read.
      const held = world.records.holdList((query) => query.filters.some((f) => f.value === Number.MAX_SAFE_INTEGER));
      const opening = world.subscribe("bob", undefined);
      await held.reached;
      await announced.remove("group:team", ["bob"]);
      held.release();
      const bob = await opening;
      await bob.waitFor("live");
      await world.put("alice", "t1", { n: 1 }, { read: ["group:team"] });
      await world.put("alice", "b1", { n: 2 }, { read: ["bob"] });
      await bob.waitFor("create b1@101");
      expect(bob.lines.filter((line) => line.includes("t1") || line === "resync")).to.deep.equal([]);
    } finally {
      world.feed.close();
    }
  });

  it("after a listener reconnection, looks each stream's principals up again and moves only the changed ones", async () => {
    const broadcast = new InProcessBroadcast();
    const world = await FeedWorld.started({ broadcast });
    try {
      await world.acls.addUserPrincipal("bob", "group:team");
      const bob = await world.subscribe("bob", undefined);
      const dave = await world.subscribe("dave", undefined);
      await Promise.all([bob.waitFor("live"), dave.waitFor("live")]);
      // Changed on the backend without an announcement reaching this process (a missed signal).
      await world.acls.removeUserPrincipal("bob", "group:team");
      await broadcast.publish({ collection: EVERY_SCOPE, parentId: "", timestamp: 0 });
      await afterPendingReads();
      // A read stores no timestamp: the scope's first write takes the clock's 100.
      await world.put("alice", "t1", { n: 1 }, { read: ["group:team", "dave"] });
      await world.put("alice", "b1", { n: 2 }, { read: ["bob"] });
      await Promise.all([dave.waitFor("create t1@100"), bob.waitFor("create b1@101")]);
      expect(bob.lines.filter((line) => line.includes("t1") || line === "resync")).to.deep.equal([]);
    } finally {
      world.feed.close();
    }
  });

  it("reports a change whose announcement failed as failed, the change itself made (add and remove may be retried)", async () => {
    const store = new MemoryPermissionStore();
    const events = new ChangeEvents(() => undefined);
    events.onPrincipalsChanged(() => Promise.reject(new Error("signal lost")));
    const stamps = new AccessStamps({
      journal: memoryStorage({ now: () => 1 }).journal,
      permissions: store,
      kinds: resourceKinds({ authorizer: new Authorizer(store) }),
      resources: () => Promise.resolve([]),
      touched: () => undefined,
      maxRecords: 1000,
    });
    const announced = new Memberships({ permissions: store, unitOfWork: new DirectUnitOfWork(), sharesTransaction: false, events, stamps });
    expect((await expectRejection(announced.add("group:team", ["bob"]), Error)).message).to.equal("signal lost");
    expect(await store.userPrincipals("bob")).to.deep.equal(new Set(["group:team"]));
  });
});
