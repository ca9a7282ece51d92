import { expect } from "chai";
import { callerPrincipals, EVERYONE, AUTHENTICATED, isValidPrincipal, writerPrincipal, ANONYMOUS } from "../../src/domain/principals.js";
import { isValidRecordId, mergePatch, nextTimestamp, shallowPatch, splitManagedFields } from "../../src/domain/records.js";

describe("records", () => {
  it("accepts Kinto-style ids and refuses the rest", () => {
    for (const id of ["a", "Hello_World-1", "0b5e8a3c-ffff-1111-8888-aaaaaaaaaaaa", "x".repeat(255)])
      expect(isValidRecordId(id), id).to.equal(true);
    for (const id of ["", "-a", "_a", "a b", "a/b", "é", "x".repeat(256), 3.14, null])
      expect(isValidRecordId(id), String(id)).to.equal(false);
  });

  it("separates managed fields from data and keeps only integer client timestamps", () => {
    expect(splitManagedFields({ id: "a", last_modified: 12, x: 1 })).to.deep.equal({ fields: { x: 1 }, lastModified: 12 });
    expect(splitManagedFields({ last_modified: "12" }).lastModified).to.equal(undefined);
    expect(splitManagedFields({ last_modified: -1 }).lastModified).to.equal(undefined);
  });

  it("patches shallowly: top-level keys replace, null is stored, nested objects are replaced", () => {
    expect(shallowPatch({ a: 1, n: { x: 1, y: 2 } }, { a: null, n: { x: 3 } })).to.deep.equal({ a: null, n: { x: 3 } });
  });

  it("merge-patches recursively: null removes, other values merge (RFC 7396)", () => {
    expect(mergePatch({ a: 1, n: { x: 1, y: 2 }, keep: false }, { a: null, n: { x: 3, y: null }, z: 0 })).to.deep.equal({
      n: { x: 3 },
      keep: false,
      z: 0,
    });
    expect(mergePatch({ a: [1, 2] }, { a: [3] })).to.deep.equal({ a: [3] });
    expect(mergePatch("scalar", { a: 1 })).to.deep.equal({ a: 1 });
  });

  it("gives every write a timestamp strictly above the collection's", () => {
    expect(nextTimestamp(100, 50)).to.equal(101);
    expect(nextTimestamp(100, 100)).to.equal(101);
    expect(nextTimestamp(100, 200)).to.equal(200);
  });

  it("honours a client timestamp only when above the collection's", () => {
    expect(nextTimestamp(100, 150, 500)).to.equal(500);
    expect(nextTimestamp(100, 150, 100)).to.equal(150);
    expect(nextTimestamp(100, 150, 90)).to.equal(150);
  });
});

describe("principals", () => {
  it("gives an authenticated user Everyone, Authenticated, its id and its groups, once each", () => {
    expect(callerPrincipals("basicauth:u", ["group:a", EVERYONE, "group:a"]).principals).to.deep.equal([
      "basicauth:u",
      EVERYONE,
      AUTHENTICATED,
      "group:a",
    ]);
  });

  it("writes anonymous creators as Everyone", () => {
    expect(writerPrincipal(ANONYMOUS)).to.equal(EVERYONE);
    expect(writerPrincipal({ userId: "u", principals: [] })).to.equal("u");
  });

  it("accepts any non-empty string without control characters as a principal", () => {
    expect(isValidPrincipal("a,b c")).to.equal(true);
    expect(isValidPrincipal("")).to.equal(false);
    expect(isValidPrincipal("a\nb")).to.equal(false);
    expect(isValidPrincipal(1)).to.equal(false);
  });

  it("bounds principals to 1024 characters of any kind but control characters, strings only", () => {
    expect(isValidPrincipal("x".repeat(1024))).to.equal(true);
    expect(isValidPrincipal("x".repeat(1025))).to.equal(false);
    expect(isValidPrincipal("a\u0001b")).to.equal(false);
    expect(isValidPrincipal(["a"])).to.equal(false);
    expect(isValidPrincipal("")).to.equal(false);
  });

  it("keeps a client last_modified of 0 (a valid integer timestamp)", () => {
    expect(splitManagedFields({ last_modified: 0 }).lastModified).to.equal(0);
    expect(splitManagedFields({ last_modified: -1 }).lastModified).to.equal(undefined);
  });
});
