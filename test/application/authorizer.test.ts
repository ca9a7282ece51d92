/**
 * The authorizer alone: settings principals, the record's own ACL, the permission backend, and a
 * resource's own policy around them. Expected decisions are written out by hand.
 */
import { expect } from "chai";
import { ForbiddenError, UnauthenticatedError } from "../../src/domain/errors.js";
import { ANONYMOUS, callerPrincipals } from "../../src/domain/principals.js";
import { Authorizer } from "../../src/application/authorizer.js";
import { NO_PERMISSION_STORE } from "../../src/application/no-permission-store.js";
import type { AuthorizationRequest, ResourceDefinition } from "../../src/application/resources.js";
import { MemoryPermissionStore } from "../../src/adapters/memory/memory-permission-store.js";
import { expectRejection } from "../support/rejection.js";

const articles: ResourceDefinition = { name: "articles", kind: "shareable", permissions: ["read", "write"], settingsPrincipals: {} };
const alice = callerPrincipals("alice", ["group:editors"]);

describe("Authorizer", () => {
  it("grants through settings principals when the caller holds any one of them", async () => {
    const authorizer = new Authorizer(NO_PERMISSION_STORE);
    const shared = { ...articles, settingsPrincipals: { read: ["group:nobody", "group:editors", "carol"] } };
    expect(await authorizer.allowed(alice, shared, "read", "/articles/r1", "read")).to.equal(true);
    expect(await authorizer.collectionAllowed(alice, shared, "list", "read")).to.equal(true);
    expect(await authorizer.allowed(alice, shared, "update", "/articles/r1", "write")).to.equal(false);
  });

  it("decides a grant from the record's own ACL, when given, without asking the permission backend", async () => {
    const authorizer = new Authorizer(NO_PERMISSION_STORE);
    expect(await authorizer.allowed(alice, articles, "read", "/articles/r1", "read", { read: ["group:nobody", "group:editors"] })).to.equal(
      true,
    );
    expect(await authorizer.allowed(alice, articles, "update", "/articles/r1", "write", { read: ["alice"] })).to.equal(false);
    expect(await authorizer.allowed(alice, articles, "read", "/articles/r1", "read")).to.equal(false);
  });

  it("asks the permission backend otherwise", async () => {
    const permissions = new MemoryPermissionStore();
    await permissions.replaceObjectPermissions("/articles/r1", { write: ["group:editors"] });
    const authorizer = new Authorizer(permissions);
    expect(await authorizer.allowed(alice, articles, "read", "/articles/r1", "read")).to.equal(true);
    expect(await authorizer.allowed(alice, articles, "read", "/articles/r2", "read")).to.equal(false);
  });

  it("grants through settings principals only by a permission bound on the collection, not on the record", async () => {
    // A resource's own binding: `read` on a record is granted by `review` on the record itself or
    // by `read` on the collection. Settings principals hold permissions on the collection, so
    // holding `review` there grants no `read` of a record; the record's own `review` does.
    const reviewed: ResourceDefinition = {
      ...articles,
      permissions: ["read", "write", "review"],
      settingsPrincipals: { review: ["group:editors"], read: ["group:readers"] },
      boundPermissions: (objectId, permission) =>
        objectId !== "/articles" && permission === "read"
          ? [
              { objectId, permission: "review" },
              { objectId: "/articles", permission: "read" },
            ]
          : [{ objectId, permission }],
    };
    const permissions = new MemoryPermissionStore();
    await permissions.replaceObjectPermissions("/articles/r1", { review: ["bob"] });
    const authorizer = new Authorizer(permissions);
    expect(await authorizer.allowed(alice, reviewed, "read", "/articles/r1", "read")).to.equal(false);
    expect(await authorizer.allowed(alice, reviewed, "read", "/articles/r1", "read", { review: ["bob"] })).to.equal(false);
    expect(await authorizer.allowed(alice, reviewed, "read", "/articles/r2", "read", { review: ["alice"] })).to.equal(true);
    expect(await authorizer.allowed(callerPrincipals("carol", ["group:readers"]), reviewed, "read", "/articles/r1", "read")).to.equal(true);
  });

  it("grants the whole collection through settings principals only by a permission bound on the collection itself", async () => {
    // A resource's own binding: `read` on the collection is granted by `read` on it or by
    // `review` on another object (/moderation). Settings principals hold permissions on the
    // collection only, so holding `review` there grants no collection-wide `read`.
    const moderated: ResourceDefinition = {
      ...articles,
      permissions: ["read", "write", "review"],
      settingsPrincipals: { review: ["group:editors"], read: ["group:readers"] },
      boundPermissions: (objectId, permission) =>
        objectId === "/articles" && permission === "read"
          ? [
              { objectId: "/articles", permission: "read" },
              { objectId: "/moderation", permission: "review" },
            ]
          : [{ objectId, permission }],
    };
    const authorizer = new Authorizer(NO_PERMISSION_STORE);
    expect(authorizer.settingsGrant(alice, moderated, "read")).to.equal(false);
    expect(authorizer.settingsGrant(callerPrincipals("carol", ["group:readers"]), moderated, "read")).to.equal(true);
  });

  it("reads the record's own ACL only for permissions bound on the record, and asks the backend about the others", async () => {
    // A resource's own binding: `read` on a record is granted only by `review` on the collection.
    // Alice named under `review` in the record's own ACL holds no `read` of it.
    const reviewedOnCollection: ResourceDefinition = {
      ...articles,
      permissions: ["read", "write", "review"],
      boundPermissions: (objectId, permission) =>
        objectId !== "/articles" && permission === "read" ? [{ objectId: "/articles", permission: "review" }] : [{ objectId, permission }],
    };
    const permissions = new MemoryPermissionStore();
    const authorizer = new Authorizer(permissions);
    expect(await authorizer.allowed(alice, reviewedOnCollection, "read", "/articles/r1", "read", { review: ["alice"] })).to.equal(false);
    await permissions.replaceObjectPermissions("/articles", { review: ["alice"] });
    expect(await authorizer.allowed(alice, reviewedOnCollection, "read", "/articles/r1", "read", { review: ["bob"] })).to.equal(true);
  });

  it("hands a resource's own policy the whole request, and lets it overrule the default decision", async () => {
    const seen: AuthorizationRequest[] = [];
    const defaults: boolean[] = [];
    const guarded: ResourceDefinition = {
      ...articles,
      settingsPrincipals: { read: ["alice"] },
      authorization: {
        async permits(request, defaultDecision) {
          seen.push(request);
          defaults.push(await defaultDecision());
          return request.view !== "read";
        },
      },
    };
    const authorizer = new Authorizer(NO_PERMISSION_STORE);
    expect(await authorizer.allowed(alice, guarded, "read", "/articles/r1", "read")).to.equal(false);
    expect(await authorizer.allowed(alice, guarded, "update", "/articles/r1", "write")).to.equal(true);
    expect(seen).to.deep.equal([
      { caller: alice, resource: guarded, view: "read", objectId: "/articles/r1", permission: "read" },
      { caller: alice, resource: guarded, view: "update", objectId: "/articles/r1", permission: "write" },
    ]);
    expect(defaults).to.deep.equal([true, false]);
  });

  it("refuses with 401 to anonymous callers and 403 to authenticated ones", async () => {
    const authorizer = new Authorizer(NO_PERMISSION_STORE);
    await expectRejection(authorizer.require(ANONYMOUS, articles, "read", "/articles/r1", "read"), UnauthenticatedError);
    await expectRejection(authorizer.require(alice, articles, "read", "/articles/r1", "read"), ForbiddenError);
  });
});

describe("the permission backend of a deployment without one", () => {
  it("holds nothing and grants nothing, whatever was written to it", async () => {
    const store = NO_PERMISSION_STORE;
    await store.addPrincipalToAce("/articles/r1", "read", "alice");
    await store.replaceObjectPermissions("/articles/r1", { read: ["alice"] });
    await store.addUserPrincipal("alice", "group:x");
    expect(
      await store.checkPermission("/articles/r1", "read", ["alice"], () => [{ objectId: "/articles/r1", permission: "read" }]),
    ).to.equal(false);
    expect([...(await store.userPrincipals("alice"))]).to.deep.equal([]);
    expect([...(await store.objectPermissionPrincipals("/articles/r1", "read"))]).to.deep.equal([]);
    expect([...(await store.principalsAccessibleObjects(["alice"], "read", "*"))]).to.deep.equal([]);
    expect([...(await store.objectPermissionAuthorizedPrincipals("/articles/r1", "read"))]).to.deep.equal([]);
    expect(await store.objectPermissions("/articles/r1")).to.deep.equal({});
    expect([...(await store.manyObjectPermissions(["/articles/r1", "/articles/r2"], ["read"]))]).to.deep.equal([
      ["/articles/r1", {}],
      ["/articles/r2", {}],
    ]);
    expect(await store.heartbeat()).to.equal(true);
  });
});
