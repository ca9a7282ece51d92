/**
 * Principal changes of nested groups and the live feed: announcing the changed id (the group
 * whose own memberships changed) moves the streams of every caller holding it through nesting, at
 * any depth within group_max_depth, onto their new principals, and no one else's.
 */
import { expect } from "chai";
import { afterPendingReads, FeedWorld, HANG_GUARD_MS } from "../support/live-feed-world.js";

/** Resolves once the stream recorded a line matching `pattern` (the hang guard bounds the wait). */
async function shown(stream: { lines: string[] } | undefined, pattern: RegExp): Promise<void> {
  while (!stream?.lines.some((line) => pattern.test(line))) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("LiveFeed and changes of nested groups", function () {
  this.timeout(HANG_GUARD_MS);

  it("moves the streams of every member of a group linked to or unlinked from another onto their new principals, however deep", async () => {
    const world = await FeedWorld.started();
    try {
      const announced = world.memberships;
      // alice → group:juniors → group:editors; bob → group:editors; dave → group:other.
      await world.acls.addUserPrincipal("alice", "group:juniors");
      await world.acls.addUserPrincipal("group:juniors", "group:editors");
      await world.acls.addUserPrincipal("bob", "group:editors");
      await world.acls.addUserPrincipal("dave", "group:other");
      const open = async (...users: string[]) => {
        const streams = await Promise.all(users.map((user) => world.subscribe(user, undefined)));
        await Promise.all(streams.map((stream) => stream.waitFor("live")));
        return streams;
      };

      const [alice, bob, dave] = await open("alice", "bob", "dave");
      await announced.add("group:staff", ["group:editors"]);
      await world.put("carol", "s1", { n: 1 }, { read: ["group:staff"] });
      // Decided on the new principals, at any depth: alice (juniors → editors → staff) and bob.
      await Promise.all([shown(alice, /^create s1@/), shown(bob, /^create s1@/)]);
      await afterPendingReads();
      expect(dave?.events).to.deep.equal([]);
      expect([...(await world.acls.userPrincipals("alice"))].sort()).to.deep.equal(["group:editors", "group:juniors", "group:staff"]);

      await announced.remove("group:staff", ["group:editors"]);
      await world.put("carol", "s2", { n: 2 }, { read: ["group:staff"] });
      await world.put("carol", "m1", { n: 3 }, { read: ["alice", "bob"] });
      await Promise.all([shown(alice, /^create m1@/), shown(bob, /^create m1@/)]);
      await afterPendingReads();
      // Decided on the principals after the unlink: nothing for group:staff reaches them any more.
      for (const stream of [alice, bob]) expect(stream?.lines.filter((line) => line.includes("s2") || line === "resync")).to.deep.equal([]);
      expect(dave?.events).to.deep.equal([]);
      expect([...(await world.acls.userPrincipals("alice"))].sort()).to.deep.equal(["group:editors", "group:juniors"]);
    } finally {
      world.feed.close();
    }
  });
});
