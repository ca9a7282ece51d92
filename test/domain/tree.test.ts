/**
 * Kinto's inheritance on the tree, case by case: the expected grants are written out from Kinto's
 * inheritance table (kinto/authorization.py: a single object's `read` looks up `read:attributes`
 * where it exists; a list URI asks its parent), never computed with the product's functions.
 */
import { expect } from "chai";
import { impliedOnObject, treeBoundPermissions, treeObjectOf } from "../../src/domain/tree.js";

const B = "/buckets/b";
const C = "/buckets/b/collections/c";
const G = "/buckets/b/groups/g";
const R = "/buckets/b/collections/c/records/r";

const grants = (objectId: string, permission: string) =>
  treeBoundPermissions(objectId, permission)
    .map((g) => `${g.objectId} ${g.permission}`)
    .sort();
const expected = (...pairs: string[]) => [...pairs].sort();

describe("Kinto's tree: inherited permissions", () => {
  it("reads a record through its own, its collection's or its bucket's read or write", () => {
    expect(grants(R, "read")).to.deep.equal(expected(`${R} read`, `${R} write`, `${C} read`, `${C} write`, `${B} read`, `${B} write`));
  });

  it("writes a record through write on it, its collection or its bucket", () => {
    expect(grants(R, "write")).to.deep.equal(expected(`${R} write`, `${C} write`, `${B} write`));
  });

  it("reads a collection's attributes with record:create there too, a bucket's with collection:create or group:create", () => {
    expect(grants(C, "read")).to.deep.equal(expected(`${C} read`, `${C} write`, `${C} record:create`, `${B} read`, `${B} write`));
    expect(grants(B, "read")).to.deep.equal(expected(`${B} read`, `${B} write`, `${B} collection:create`, `${B} group:create`));
  });

  it("writes a group through write on it or its bucket", () => {
    expect(grants(G, "write")).to.deep.equal(expected(`${G} write`, `${B} write`));
    expect(grants(G, "read")).to.deep.equal(expected(`${G} read`, `${G} write`, `${B} read`, `${B} write`));
  });

  it("creates in a list through the parent's create permission or write (the bucket's write for records too)", () => {
    expect(grants(`${C}/records`, "create")).to.deep.equal(expected(`${C} record:create`, `${C} write`, `${B} write`));
    expect(grants(`${B}/collections`, "create")).to.deep.equal(expected(`${B} collection:create`, `${B} write`));
    expect(grants(`${B}/groups`, "create")).to.deep.equal(expected(`${B} group:create`, `${B} write`));
  });

  it("lists a list through read or write on its parent (and the bucket above a collection)", () => {
    expect(grants(`${C}/records`, "read")).to.deep.equal(expected(`${C} read`, `${C} write`, `${B} read`, `${B} write`));
    expect(grants(`${C}/records`, "write")).to.deep.equal(expected(`${C} write`, `${B} write`));
    expect(grants(`${B}/collections`, "read")).to.deep.equal(expected(`${B} read`, `${B} write`));
  });

  it("creates buckets through the settings alone: the grant names /buckets itself", () => {
    expect(grants("/buckets", "create")).to.deep.equal(["/buckets create"]);
  });

  it("reads every record of a collection (a pattern) as it reads one", () => {
    const all = `${C}/records/*`;
    expect(grants(all, "read")).to.deep.equal(
      expected(`${all} read`, `${all} write`, `${C} read`, `${C} write`, `${B} read`, `${B} write`),
    );
  });

  it("knows nothing of URIs outside the tree", () => {
    expect(grants("/articles/a1", "read")).to.deep.equal([]);
    expect(grants("/buckets/b/things/t", "read")).to.deep.equal([]);
  });
});

describe("Kinto's tree: objects and the permissions implied on them", () => {
  it("names the object of an object URI, and nothing for a list URI or another URI", () => {
    expect(treeObjectOf(R)).to.deep.equal({ level: "record", bucket: "b", collection: "c", id: "r" });
    expect(treeObjectOf(G)).to.deep.equal({ level: "group", bucket: "b", collection: undefined, id: "g" });
    expect(treeObjectOf(B)).to.deep.equal({ level: "bucket", bucket: "b", collection: undefined, id: "b" });
    expect(treeObjectOf(`${C}/records`)).to.equal(undefined);
    expect(treeObjectOf("/buckets/b/records/r")).to.equal(undefined);
  });

  it("gives a bucket's writer every permission on it, read:attributes included (Kinto's /permissions)", () => {
    expect(impliedOnObject("bucket", new Set(["write"]))).to.deep.equal([
      "collection:create",
      "group:create",
      "read",
      "read:attributes",
      "write",
    ]);
    expect(impliedOnObject("collection", new Set(["record:create"]))).to.deep.equal(["read:attributes", "record:create"]);
    expect(impliedOnObject("record", new Set(["read"]))).to.deep.equal(["read"]);
  });
});
