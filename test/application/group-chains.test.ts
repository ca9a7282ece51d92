/**
 * The chain walker of explain: shortest chains through groups in groups, cycles harmless, depth
 * and visit bounds respected. Chains are written out by hand.
 */
import { expect } from "chai";
import { MemoryPermissionStore } from "../../src/adapters/memory/memory-permission-store.js";
import { groupChains } from "../../src/application/access/group-chains.js";
import type { PermissionStore } from "../../src/application/ports/permission-store.js";

describe("group chains", () => {
  let store: MemoryPermissionStore;
  beforeEach(async () => {
    store = new MemoryPermissionStore();
    await store.addUserPrincipal("alice", "group:a");
    await store.addUserPrincipal("group:a", "group:b");
    await store.addUserPrincipal("group:b", "group:c");
    await store.addUserPrincipal("group:c", "group:a"); // a cycle back
    await store.addUserPrincipal("system.Authenticated", "group:all");
  });

  it("walks user -> group -> group, shortest first, through a cycle", async () => {
    await store.addUserPrincipal("alice", "group:x");
    await store.addUserPrincipal("group:x", "group:c"); // a shorter way to group:c
    const chains = await groupChains(store, "alice", ["group:b", "group:c", "alice", "system.Everyone", "system.Authenticated"]);
    expect(Object.fromEntries(chains)).to.deep.equal({
      "group:b": ["alice", "group:a", "group:b"],
      "group:c": ["alice", "group:x", "group:c"],
      alice: ["alice"],
      "system.Everyone": ["alice", "system.Everyone"],
      "system.Authenticated": ["alice", "system.Authenticated"],
    });
  });

  it("ends a walk through a cycle once every id was visited, not at the depth bound", async () => {
    let trips = 0;
    const counting: Pick<PermissionStore, "directPrincipals"> = {
      directPrincipals: (ids) => {
        trips += 1;
        return store.directPrincipals(ids);
      },
    };
    expect((await groupChains(counting, "alice", ["group:nowhere"])).size).to.equal(0);
    // alice and Authenticated, then group:a and group:all, then group:b, then group:c (whose group:a was seen).
    expect(trips).to.equal(4);
  });

  it("names system.Authenticated for what every user holds", async () => {
    const chains = await groupChains(store, "bob", ["group:all"]);
    expect(chains.get("group:all")).to.deep.equal(["bob", "system.Authenticated", "group:all"]);
  });

  it("gives anonymous callers system.Everyone only", async () => {
    const chains = await groupChains(store, undefined, ["system.Everyone", "system.Authenticated", "group:a"]);
    expect(Object.fromEntries(chains)).to.deep.equal({ "system.Everyone": ["system.Everyone"] });
  });

  it("stops at the depth bound and leaves what lies beyond without chain", async () => {
    const chains = await groupChains(store, "alice", ["group:a", "group:c"], { maxDepth: 2, maxVisited: 100 });
    expect(Object.fromEntries(chains)).to.deep.equal({ "group:a": ["alice", "group:a"] });
  });

  it("reads a bounded number of ids, one round trip per level, however wide the groups", async () => {
    for (let i = 0; i < 300; i++) await store.addUserPrincipal("alice", `group:wide${i}`);
    let trips = 0;
    const counting: Pick<PermissionStore, "directPrincipals"> = {
      directPrincipals: (ids) => {
        trips += 1;
        expect(ids.length).to.be.at.most(50);
        return store.directPrincipals(ids);
      },
    };
    const chains = await groupChains(counting, "alice", ["group:nowhere"], { maxDepth: 16, maxVisited: 50 });
    expect(chains.size).to.equal(0);
    expect(trips).to.be.at.most(2);
  });
});
