import { expect } from "chai";
import { defaultBoundPermissions, recordIdOf } from "../../src/domain/permissions.js";

const pairs = (objectId: string, permission: string) => defaultBoundPermissions(objectId, permission).map((b) => `${b.permission}@${b.objectId}`).sort();

describe("bound permissions", () => {
  const cases: [string, string, string[]][] = [
    ["/articles/a", "read", ["read@/articles", "read@/articles/a", "write@/articles", "write@/articles/a"]],
    ["/articles/a", "write", ["write@/articles", "write@/articles/a"]],
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
