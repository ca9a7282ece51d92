/**
 * Principal changes of nested groups and the live feed: announcing the changed id (the group
 * whose own memberships changed) ends the streams of every caller holding it through nesting, at
 * any depth within group_max_depth, and of no one else.
 */
import { expect } from "chai";
import { AnnouncedPrincipalChanges } from "../../src/application/announced-principal-changes.js";
import { FeedWorld, HANG_GUARD_MS } from "../support/live-feed-world.js";

describe("LiveFeed and changes of nested groups", function () {
  this.timeout(HANG_GUARD_MS);

  it("ends the streams of every member of a group linked to or unlinked from another, however deep", async () => {
    const world = await FeedWorld.started();
    try {
      const announced = new AnnouncedPrincipalChanges(world.acls, world.events);
      // alice → group:readers → group:editors; bob → group:editors; dave → group:other.
      await world.acls.addUserPrincipal("alice", "group:readers");
      await world.acls.addUserPrincipal("group:readers", "group:editors");
      await world.acls.addUserPrincipal("bob", "group:editors");
      await world.acls.addUserPrincipal("dave", "group:other");
      const open = async (...users: string[]) => {
        const streams = await Promise.all(users.map((user) => world.subscribe(user, undefined)));
        await Promise.all(streams.map((stream) => stream.waitFor("live")));
        return streams;
      };

      const [alice, bob, dave] = await open("alice", "bob", "dave");
      await announced.addUserPrincipal("group:editors", "group:staff");
      expect(alice?.lines.slice(-1)).to.deep.equal(["resync"]);
      expect(bob?.lines.slice(-1)).to.deep.equal(["resync"]);
      expect(dave?.lines).to.not.include("resync");
      expect([...(await world.acls.userPrincipals("alice"))].sort()).to.deep.equal(["group:editors", "group:readers", "group:staff"]);

      const [aliceAgain, bobAgain] = await open("alice", "bob");
      await announced.removeUserPrincipal("group:editors", "group:staff");
      expect(aliceAgain?.lines.slice(-1)).to.deep.equal(["resync"]);
      expect(bobAgain?.lines.slice(-1)).to.deep.equal(["resync"]);
      expect(dave?.lines).to.not.include("resync");
      expect([...(await world.acls.userPrincipals("alice"))].sort()).to.deep.equal(["group:editors", "group:readers"]);
    } finally {
      world.feed.close();
    }
  });
});
