import { expect } from "chai";
import { lossTombstones, readsVersion, showsGained } from "../../src/application/shared-records/restricted-view.js";

describe("restricted view (what a caller without collection-level read sees)", () => {
  it("shows a version when its readers name one of the caller's principals, and not otherwise", () => {
    const bob = new Set(["bob", "group:g", "system.Authenticated"]);
    expect(readsVersion(bob, ["alice", "group:g"])).to.equal(true);
    expect(readsVersion(bob, new Set(["system.Authenticated"]))).to.equal(true);
    expect(readsVersion(bob, ["alice"])).to.equal(false);
    expect(readsVersion(bob, [])).to.equal(false);
    // No ACL paired with the version: it grants nothing.
    expect(readsVersion(bob, undefined)).to.equal(false);
  });

  it("owes one tombstone per record lost and unreadable now, at its newest loss", () => {
    const losses = [
      { id: "a", lastModified: 5 },
      { id: "b", lastModified: 6 },
      { id: "a", lastModified: 9 },
      { id: "c", lastModified: 7 },
      { id: "a", lastModified: 3 },
    ];
    // "b" is still readable through another principal: no false deletion.
    const owed = lossTombstones(losses, (id) => id === "b");
    expect(owed).to.have.deep.members([
      { id: "a", lastModified: 9, deleted: true },
      { id: "c", lastModified: 7, deleted: true },
    ]);
    expect(owed).to.have.length(2);
  });

  it("shows a record gained after the position only when readable now and not modified after the position", () => {
    expect(showsGained(true, false)).to.equal(true);
    expect(showsGained(false, false)).to.equal(false);
    expect(showsGained(true, true)).to.equal(false);
  });
});
