import { expect } from "chai";
import { boundPairs, defaultBoundPermissions, recordIdOf } from "../../src/domain/permissions.js";

const pairs = (objectId: string, permission: string) =>
  defaultBoundPermissions(objectId, permission)
    .map((b) => `${b.permission}@${b.objectId}`)
    .sort();

describe("bound permissions", () => {
  const cases: [string, string, string[]][] = [
    ["/articles/a", "read", ["read@/articles", "read@/articles/a", "write@/articles", "write@/articles/a"]],
    ["/articles/a", "write", ["write@/articles", "write@/articles/a"]],
    // `create` is bound on the collection only: a record's own ACL never grants it, `write` on it does
    ["/articles/a", "create", ["create@/articles", "write@/articles", "write@/articles/a"]],
    ["/articles/*", "create", ["create@/articles", "write@/articles", "write@/articles/*"]],
    ["/articles/*", "read", ["read@/articles", "read@/articles/*", "write@/articles", "write@/articles/*"]],
    ["/articles", "read", ["read@/articles", "write@/articles"]],
    ["/articles", "create", ["create@/articles", "write@/articles"]],
    ["/articles", "write", ["write@/articles"]],
    ["/articles/a", "publish", ["publish@/articles", "publish@/articles/a"]],
  ];
  for (const [objectId, permission, expected] of cases) {
    it(`grants ${permission} on ${objectId} through ${expected.join(", ")}`, () => {
      expect(pairs(objectId, permission)).to.deep.equal(expected);
    });
  }

  it("reads a record id back from its object id, and nothing from other objects", () => {
    expect(recordIdOf("articles", "/articles/a1")).to.equal("a1");
    expect(recordIdOf("articles", "/articles")).to.equal(undefined);
    expect(recordIdOf("articles", "/notes/a1")).to.equal(undefined);
    expect(recordIdOf("articles", "/articles/a/b")).to.equal(undefined);
  });
});

describe("object ids", () => {
  it("reads a record id only from an object id of that collection with a non-empty, flat id", () => {
    expect(recordIdOf("articles", "/articles/a1")).to.equal("a1");
    expect(recordIdOf("a", "/xyz")).to.equal(undefined);
    expect(recordIdOf("articles", "/articles/")).to.equal(undefined);
    expect(recordIdOf("articles", "/articles/a/b")).to.equal(undefined);
  });

  it("binds a permission to itself alone without a bound-permissions function", () => {
    expect(boundPairs("/a/1", "read")).to.deep.equal([{ objectId: "/a/1", permission: "read" }]);
    expect(boundPairs("/a/1", "read", () => [])).to.deep.equal([]);
  });
});
