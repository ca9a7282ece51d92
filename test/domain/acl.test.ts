import { expect } from "chai";
import { aclEqual, normalizeAcl, patchAcl, replaceAcl, withWriter } from "../../src/domain/acl.js";

describe("access control lists", () => {
  it("drops empty permissions and duplicate principals", () => {
    expect(normalizeAcl({ read: ["a", "a", "b"], write: [] })).to.deep.equal({ read: ["a", "b"] });
  });

  it("replaces the whole ACL on PUT, emptying permissions not named", () => {
    expect(replaceAcl({ read: ["a"], write: ["w"] }, { write: ["x"] })).to.deep.equal({ write: ["x"] });
  });

  it("replaces only the named permissions on PATCH, and removes those set to null or []", () => {
    const existing = { read: ["a"], write: ["w"], publish: ["p"] };
    expect(patchAcl(existing, { read: ["b"], publish: null })).to.deep.equal({ read: ["b"], write: ["w"] });
    expect(patchAcl(existing, { write: [] })).to.deep.equal({ read: ["a"], publish: ["p"] });
  });

  it("adds the writer once", () => {
    expect(withWriter({ read: ["a"] }, "me")).to.deep.equal({ read: ["a"], write: ["me"] });
    const already = { write: ["me"] };
    expect(withWriter(already, "me")).to.equal(already);
  });

  it("compares ACLs as sets", () => {
    expect(aclEqual({ read: ["a", "b"] }, { read: ["b", "a"] })).to.equal(true);
    expect(aclEqual({ read: ["a"] }, { read: ["a"], write: ["w"] })).to.equal(false);
    expect(aclEqual({ read: ["a"] }, { read: ["b"] })).to.equal(false);
  });

  it("compares ACLs as sets per permission", () => {
    expect(aclEqual({ read: ["a", "b"] }, { read: ["b", "a"] })).to.equal(true);
    expect(aclEqual({ read: ["a"] }, { read: ["b"] })).to.equal(false);
    expect(aclEqual({ read: ["a", "b"] }, { read: ["a", "c"] })).to.equal(false);
    expect(aclEqual({ read: ["a"] }, { write: ["a"] })).to.equal(false);
    expect(aclEqual({ read: ["a"] }, { read: ["a"], write: ["w"] })).to.equal(false);
  });
});
