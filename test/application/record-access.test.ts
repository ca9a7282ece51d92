/**
 * How a restricted collection view reaches its records through SharedRecords.select: the ids the
 * permission backend resolves, handed to every query (portable), or the caller's grants handed to
 * the store's joined statements (PostgreSQL).
 */
import { expect } from "chai";
import { callerPrincipals } from "../../src/domain/principals.js";
import type { CountQuery, ListQuery } from "../../src/application/listing.js";
import type { AccessJournal } from "../../src/application/ports/access-journal.js";
import type { PermissionStore } from "../../src/application/ports/permission-store.js";
import type { RecordStore, Scope } from "../../src/application/ports/record-store.js";
import { ShareableKind } from "../../src/application/kinds/shareable-kind.js";
import { Authorizer } from "../../src/application/authorizer.js";
import { PortableSharedRecords } from "../../src/application/shared-records/portable-shared-records.js";
import { PostgresSharedRecords, type JoinedRecordStore } from "../../src/adapters/postgres/postgres-shared-records.js";
import { DirectUnitOfWork } from "../../src/adapters/system/direct-unit-of-work.js";
import type { ResourceDefinition } from "../../src/application/resources.js";

const articles: ResourceDefinition = { name: "articles", kind: "shareable", permissions: ["read", "write"], settingsPrincipals: {} };
const bob = callerPrincipals("bob", ["group:readers"]);
const kind = new ShareableKind({ authorizer: new Authorizer({} as PermissionStore) });

describe("grants resolved to ids", () => {
  it("asks for the collection's records the caller may read, and keeps only ids of records of it", async () => {
    const asked: unknown[][] = [];
    const permissions = {
      principalsAccessibleObjects: (principals: readonly string[], permission: string, pattern: string) => {
        asked.push([principals, permission, pattern]);
        return Promise.resolve(
          new Set(["/articles/r1", "/articles", "/articles/", "/articles/a/b", "/notes/n1", "/articlesX/r9", "/articles/r2"]),
        );
      },
    } as unknown as PermissionStore;
    const queries: unknown[] = [];
    const seen = <T>(scope: Scope, query: ListQuery | CountQuery, answer: T): Promise<T> => {
      queries.push({ scope, query });
      return Promise.resolve(answer);
    };
    const records = {
      list: (scope: Scope, query: ListQuery) => seen(scope, query, []),
      count: (scope: Scope, query: CountQuery) => seen(scope, query, 0),
      deleteMany: (scope: Scope, query: CountQuery) => seen(scope, query, []),
    } as unknown as RecordStore;

    const shared = new PortableSharedRecords(records, {} as AccessJournal, permissions, new DirectUnitOfWork());
    const selection = await shared.select(kind.recordAcls(articles), kind.grants(bob, articles, "read"));
    const scope = { collection: "articles", parentId: "" };
    const access = { ids: ["r1", "r2"], principals: bob.principals };
    const listQuery: ListQuery = { filters: [], sort: [{ field: "last_modified", descending: true }], limit: 10, includeDeleted: false };
    await selection.list(scope, listQuery);
    await selection.count(scope, { filters: [] });
    await selection.deleteMany(scope, { filters: [{ field: "a", operator: "eq", value: 1 }] }); // deletes none: no ACL to remove
    // Resolved once, when a view first needs them.
    expect(asked).to.deep.equal([[bob.principals, "read", "/articles/*"]]);
    expect(queries).to.deep.equal([
      { scope, query: { ...listQuery, access } },
      { scope, query: { filters: [], access } },
      { scope, query: { filters: [{ field: "a", operator: "eq", value: 1 }], access } },
    ]);
  });
});

describe("grants joined in the store", () => {
  it("hands every query the caller's principals and the record permissions granting the view's", async () => {
    const calls: unknown[] = [];
    const answer = <T>(name: string, args: unknown[], value: T): Promise<T> => {
      calls.push([name, ...args]);
      return Promise.resolve(value);
    };
    const store = {
      list: (...args: unknown[]) => answer("list", args, []),
      count: (...args: unknown[]) => answer("count", args, 0),
      deleteMany: (...args: unknown[]) => answer("deleteMany", args, []),
    } as unknown as JoinedRecordStore;
    const shared = new PostgresSharedRecords(
      { getWithAcl: () => Promise.reject(new Error("no read")) },
      store,
      {} as AccessJournal,
      {} as PermissionStore,
      new DirectUnitOfWork(),
    );
    const selection = await shared.select(kind.recordAcls(articles), kind.grants(bob, articles, "write"));
    const scope = { collection: "articles", parentId: "" };
    const grants = { principals: bob.principals, permissions: ["write"], objectIdPrefix: "/articles/" };
    const listQuery: ListQuery = { filters: [], sort: [{ field: "last_modified", descending: true }], limit: 5, includeDeleted: true };
    await selection.list(scope, listQuery);
    await selection.count(scope, { filters: [] });
    await selection.deleteMany(scope, { filters: [] });
    expect(calls).to.deep.equal([
      ["list", scope, listQuery, grants],
      ["count", scope, { filters: [] }, grants],
      ["deleteMany", scope, { filters: [] }, grants],
    ]);
  });

  it("takes the record permissions from the bindings on the records, not from those on the collection", () => {
    // A resource's own binding: `read` on every record is granted by `review` on the records or by
    // `read` on the collection; only `review` is a record permission.
    const reviewed: ResourceDefinition = {
      ...articles,
      permissions: ["read", "write", "review"],
      boundPermissions: (objectId, permission) =>
        objectId === "/articles/*" && permission === "read"
          ? [
              { objectId: "/articles/*", permission: "review" },
              { objectId: "/articles", permission: "read" },
            ]
          : [{ objectId, permission }],
    };
    const grants = kind.grants(bob, reviewed, "read");
    expect({ principals: grants.principals, permissions: grants.permissions }).to.deep.equal({
      principals: bob.principals,
      permissions: ["review"],
    });
  });
});
