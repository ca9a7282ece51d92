/**
 * The shareable kind alone, over the memory permission store (no I/O): scope, authorization of
 * each view, the ACL stored and shown. Expected values are written out by hand.
 */
import { expect } from "chai";
import { ForbiddenError, RecordNotFoundError, UnauthenticatedError } from "../../src/domain/errors.js";
import { ANONYMOUS, callerPrincipals } from "../../src/domain/principals.js";
import { Authorizer } from "../../src/application/authorizer.js";
import type { ResourceKindPolicy } from "../../src/application/kinds/resource-kind-policy.js";
import { ShareableKind } from "../../src/application/kinds/shareable-kind.js";
import { authenticatedRequester, noGroups } from "../../src/application/requester.js";
import type { PrincipalsWithCheck } from "../../src/application/ports/principals-with-check.js";
import type { ResourceDefinition } from "../../src/application/resources.js";
import { MemoryPermissionStore } from "../../src/adapters/memory/memory-permission-store.js";
import { expectRejection } from "../support/rejection.js";

const articles: ResourceDefinition = {
  name: "articles",
  kind: "shareable",
  permissions: ["read", "write"],
  settingsPrincipals: { create: ["system.Authenticated"] },
};
const alice = callerPrincipals("alice", []);
const storedAcl = (stored: Record<string, ReadonlySet<string>>) =>
  Object.fromEntries(Object.entries(stored).map(([permission, principals]) => [permission, [...principals]]));
const bob = callerPrincipals("bob", ["group:readers"]);

describe("shareable kind", () => {
  let permissions: MemoryPermissionStore;
  let kind: ResourceKindPolicy;

  beforeEach(async () => {
    permissions = new MemoryPermissionStore();
    kind = new ShareableKind({ authorizer: new Authorizer(permissions) });
    await permissions.replaceObjectPermissions("/articles/a1", { write: ["alice"], read: ["group:readers"] });
    await permissions.replaceObjectPermissions("/articles/a2", { write: ["alice"] });
  });

  it("decides a listing's restriction in one statement with the groups: unrestricted by the settings or by an ACE on the collection", async () => {
    // What the one statement answers for the collection (PostgreSQL's principalsAndCheck), per user.
    const aceOnCollection = new Map([
      ["carol", false],
      ["dave", true],
      ["erin", false],
    ]);
    const principalsWithCheck: PrincipalsWithCheck = {
      principalsAndCheck: (userId) => Promise.resolve({ principals: new Set<string>(), allowed: aceOnCollection.get(userId) === true }),
    };
    const oneStatement = new ShareableKind({ authorizer: new Authorizer(permissions), principalsWithCheck });
    const readByCarol: ResourceDefinition = { ...articles, settingsPrincipals: { ...articles.settingsPrincipals, read: ["carol"] } };
    const restriction = async (userId: string) =>
      (await oneStatement.callerAndRestriction(authenticatedRequester(userId, noGroups, true), readByCarol, "list"))[1];
    expect(await restriction("carol")).to.equal(undefined);
    expect(await restriction("dave")).to.equal(undefined);
    expect(await restriction("erin")).to.equal("read");
  });

  it("keeps every record in one scope and asks the requester for its groups", async () => {
    const requester = authenticatedRequester("bob", () => Promise.resolve(["group:readers"]));
    expect(kind.scope(requester, articles)).to.deep.equal({ collection: "articles", parentId: "" });
    expect((await kind.caller(requester)).principals).to.include("group:readers");
  });

  it("spares the group lookup of a creator only when the settings let every authenticated caller create", async () => {
    let lookups = 0;
    const requester = authenticatedRequester("carol", () => {
      lookups += 1;
      return Promise.resolve(["group:editors"]);
    });
    expect(await kind.creator(requester, articles)).to.deep.equal({
      userId: "carol",
      principals: ["carol", "system.Everyone", "system.Authenticated"],
    });
    expect(lookups).to.equal(0);

    const editorsOnly: ResourceDefinition = { ...articles, settingsPrincipals: { create: ["group:editors"] } };
    expect((await kind.creator(requester, editorsOnly)).principals).to.include("group:editors");
    expect(lookups).to.equal(1);

    const ownPolicy: ResourceDefinition = { ...articles, authorization: { permits: (_context, decide) => decide() } };
    const other = authenticatedRequester("dave", () => {
      lookups += 1;
      return Promise.resolve(["group:editors"]);
    });
    expect((await kind.creator(other, ownPolicy)).principals).to.include("group:editors");
    expect(lookups).to.equal(2);
  });

  it("requires create on the collection: 403 for a user without it, 401 for anonymous", async () => {
    await kind.requireCollection(alice, articles, "create");
    const outsider = { userId: "eve", principals: ["eve"] };
    await expectRejection(kind.requireCollection(outsider, articles, "create"), ForbiddenError);
    await expectRejection(kind.requireCollection(ANONYMOUS, articles, "create"), UnauthenticatedError);
  });

  it("decides record views from the record's ACL, through a group too", async () => {
    const acl = storedAcl(await permissions.objectPermissions("/articles/a1", articles.permissions));
    expect(acl).to.deep.equal({ write: ["alice"], read: ["group:readers"] });
    await kind.requireRecord(bob, articles, "read", "a1", acl);
    await expectRejection(kind.requireRecord(bob, articles, "replace", "a1", acl), ForbiddenError);
  });

  it("answers a write on a missing record with 404 only to callers who may list the collection", async () => {
    const missing = { record: undefined, acl: {} };
    await expectRejection(kind.requireWrite(bob, articles, "delete", "gone", missing), ForbiddenError);
    const readers: ResourceDefinition = { ...articles, settingsPrincipals: { read: ["group:readers"] } };
    await expectRejection(kind.requireWrite(bob, readers, "delete", "gone", missing), RecordNotFoundError);
  });

  it("asks whether the caller may list the collection, by that view's name, before answering 404 to a write on a missing record", async () => {
    const views: string[] = [];
    const listable: ResourceDefinition = {
      ...articles,
      authorization: {
        permits: ({ view }, defaultDecision) => {
          views.push(view);
          return view === "list" ? Promise.resolve(true) : defaultDecision();
        },
      },
    };
    await expectRejection(kind.requireWrite(bob, listable, "delete", "gone", { record: undefined, acl: {} }), RecordNotFoundError);
    expect(views).to.deep.equal(["delete", "list"]);
  });

  it("restricts collection views to the records the caller may read, or write, unless the collection is theirs", async () => {
    expect(await kind.restriction(bob, articles, "list")).to.equal("read");
    expect(await kind.restriction(bob, articles, "deleteAll")).to.equal("write");
    const readers: ResourceDefinition = { ...articles, settingsPrincipals: { read: ["group:readers"] } };
    expect(await kind.restriction(bob, readers, "list")).to.equal(undefined);
    expect(await kind.restriction(bob, readers, "deleteAll")).to.equal("write");
  });

  it("turns a restriction into grants: the record permissions implying it, for the caller's principals", () => {
    const grantsOf = (permission: "read" | "write") => {
      const grants = kind.grants(bob, articles, permission);
      return {
        principals: grants?.principals,
        permissions: grants?.permissions,
        objectIdPrefix: kind.recordAcls(articles)?.objectIdPrefix,
      };
    };
    expect(grantsOf("read")).to.deep.equal({
      principals: bob.principals,
      permissions: ["read", "write"],
      objectIdPrefix: "/articles/",
    });
    expect(grantsOf("write")).to.deep.equal({
      principals: bob.principals,
      permissions: ["write"],
      objectIdPrefix: "/articles/",
    });
  });

  it("always stores the writer in write, and shows the ACL to writers only", () => {
    expect(kind.aclToStore(articles, bob, { read: ["carol"] })).to.deep.equal({ read: ["carol"], write: ["bob"] });
    expect(kind.aclToStore(articles, ANONYMOUS, {})).to.deep.equal({ write: ["system.Everyone"] });
    const acl = { read: ["bob"], write: ["alice"] };
    expect(kind.visibleAcl(alice, acl)).to.deep.equal(acl);
    expect(kind.visibleAcl(bob, acl)).to.deep.equal({});
    // A record whose ACL was not read (none kept or not asked for): nothing to show, nothing to fail on.
    expect(kind.visibleAcl(alice, undefined)).to.equal(undefined);
  });

  it("stores the ACL over every known permission (the writes themselves: the SharedRecords contract)", () => {
    expect(kind.aclEntries(articles, { write: ["bob"] })).to.deep.equal({ read: [], write: ["bob"] });
    expect(kind.aclEntries(articles, { write: ["bob"], review: ["x"] })).to.deep.equal({ read: [], write: ["bob"], review: ["x"] });
  });
});
