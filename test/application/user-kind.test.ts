/** The user kind alone: no I/O, no permission backend, every answer computed by hand. */
import { expect } from "chai";
import { UnauthenticatedError } from "../../src/domain/errors.js";
import type { ResourceKindPolicy } from "../../src/application/kinds/resource-kind-policy.js";
import { UserKind } from "../../src/application/kinds/user-kind.js";
import { anonymousRequester, authenticatedRequester, type Requester } from "../../src/application/requester.js";
import type { ResourceDefinition } from "../../src/application/resources.js";

const notes: ResourceDefinition = { name: "notes", kind: "user", permissions: ["read", "write"], settingsPrincipals: {} };

describe("user kind", () => {
  const kind: ResourceKindPolicy = new UserKind();
  const aliceCaller = { userId: "alice", principals: [] };
  // Fresh for each test: the requester asks its group finder once and remembers the answer, so a
  // shared one would hide a later ask, and asks recorded by one test (or run) would fail the next.
  let groupsAsked: string[];
  let alice: Requester;
  beforeEach(() => {
    groupsAsked = [];
    alice = authenticatedRequester("alice", (id) => {
      groupsAsked.push(id);
      return Promise.resolve(["group:editors"]);
    });
  });

  it("keeps each user's records under their own id, and refuses anonymous callers", () => {
    expect(kind.scope(alice, notes)).to.deep.equal({ collection: "notes", parentId: "alice" });
    expect(() => kind.scope(anonymousRequester(), notes)).to.throw(UnauthenticatedError);
  });

  it("never asks for the caller's groups", async () => {
    expect(await kind.caller(alice)).to.deep.equal(aliceCaller);
    expect(groupsAsked).to.deep.equal([]);
  });

  it("answers the same caller, without groups, when creating, reading a record and listing", async () => {
    const record = { id: "n1", lastModified: 5, data: { title: "x" } };
    expect(await kind.creator(alice, notes)).to.deep.equal(aliceCaller);
    // A record is read from the RecordStore alone (no ACL to read with it: no SharedRecords).
    void record;
    expect(kind.recordAcls(notes)).to.equal(undefined);
    expect(await kind.callerAndRestriction(alice, notes, "list")).to.deep.equal([aliceCaller, undefined]);
    expect(groupsAsked).to.deep.equal([]);
  });

  it("lets the owner use every view on the whole scope", async () => {
    for (const view of ["create", "list", "deleteAll"] as const) {
      expect(await kind.allowsCollection(aliceCaller, notes, view)).to.equal(true);
      await kind.requireCollection(aliceCaller, notes, view);
    }
    await kind.requireRecord(aliceCaller, notes, "read", "n1", undefined);
    await kind.requireWrite(aliceCaller, notes, "delete", "missing", { record: undefined, acl: undefined });
    expect(await kind.restriction(aliceCaller, notes, "list")).to.equal(undefined);
    expect(await kind.restriction(aliceCaller, notes, "deleteAll")).to.equal(undefined);
  });

  it("keeps, stores and shows no ACL", async () => {
    expect(kind.recordAcls(notes)).to.equal(undefined);
    expect(kind.aclToStore(notes, aliceCaller, { read: ["bob"] })).to.equal(undefined);
    expect(kind.visibleAcl(aliceCaller, { write: ["alice"] })).to.equal(undefined);
    expect(kind.grants(aliceCaller, notes, "read")).to.equal(undefined);
  });
});
