/** Who sends a request: the user id at once, the principals once, and when they may be read along with a record. */
import { expect } from "chai";
import { authenticatedRequester, noGroups } from "../../src/application/requester.js";

describe("requester", () => {
  it("offers to complete its principals from a read only while they are unread and come from the permission backend", async () => {
    const finder = () => Promise.resolve(["group:finder"]);
    expect(authenticatedRequester("alice", finder).groupsToRead?.()).to.equal(undefined);
    expect(authenticatedRequester("alice", finder, false).groupsToRead?.()).to.equal(undefined);
    const fromBackend = authenticatedRequester("alice", finder, true);
    const adopt = fromBackend.groupsToRead?.();
    expect(adopt).to.be.a("function");
    const caller = await adopt!(["group:read-along"]);
    expect(caller.principals).to.include("group:read-along").and.not.include("group:finder");
    expect(fromBackend.groupsToRead?.()).to.equal(undefined);
    expect(await fromBackend.caller()).to.equal(caller);
    const asked = authenticatedRequester("bob", finder, true);
    await asked.caller();
    expect(asked.groupsToRead?.()).to.equal(undefined);
  });

  it("finds no groups without a group finder", async () => {
    expect([...(await noGroups("alice"))]).to.deep.equal([]);
  });
});
