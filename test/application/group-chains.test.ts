/**
 * The chains of explain: shortest chains through groups in groups, cycles harmless, the depth
 * bound respected, one question to the permission backend. Chains are written out by hand.
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

  it("asks the backend once, for the user and system.Authenticated, and not at all when the targets need no groups", async () => {
    const asked: string[][] = [];
    const counting: Pick<PermissionStore, "principalParents"> = {
      principalParents: (ids) => {
        asked.push([...ids]);
        return store.principalParents(ids);
      },
    };
    expect((await groupChains(counting, "alice", ["group:nowhere"])).size).to.equal(0);
    expect(asked).to.deep.equal([["alice", "system.Authenticated"]]);
    expect(Object.fromEntries(await groupChains(counting, "alice", ["alice", "system.Everyone"]))).to.deep.equal({
      alice: ["alice"],
      "system.Everyone": ["alice", "system.Everyone"],
    });
    expect(asked).to.have.length(1);
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
    const chains = await groupChains(store, "alice", ["group:a", "group:c"], { maxDepth: 2 });
    expect(Object.fromEntries(chains)).to.deep.equal({ "group:a": ["alice", "group:a"] });
  });

  it("gives every principal the user holds through groups when no targets are named", async () => {
    const chains = await groupChains(store, "alice", undefined);
    expect(Object.fromEntries(chains)).to.deep.equal({
      "system.Everyone": ["alice", "system.Everyone"],
      "system.Authenticated": ["alice", "system.Authenticated"],
      alice: ["alice"],
      "group:a": ["alice", "group:a"],
      "group:b": ["alice", "group:a", "group:b"],
      "group:c": ["alice", "group:a", "group:b", "group:c"],
      "group:all": ["alice", "system.Authenticated", "group:all"],
    });
  });
});
