/**
 * Differential test of the two SharedRecords on how a listing reaches "the records this caller
 * may read": ids resolved through the permission backend first (PortableSharedRecords, any pair
 * of backends) and the grants joined in the same query (PostgresSharedRecords, records and ACEs
 * in one PostgreSQL database). Random ACLs, callers and page sizes; every page, next-page token, count, refusal and
 * bulk deletion of one must equal the other's.
 */
import { expect } from "chai";
import fc from "fast-check";
import { PostgresDatabases } from "../../src/adapters/postgres/postgres-databases.js";
import { PostgresPermissionStore } from "../../src/adapters/postgres/postgres-permission-store.js";
import { PostgresAccessJournal } from "../../src/adapters/postgres/postgres-access-journal.js";
import { PostgresRecordStore } from "../../src/adapters/postgres/postgres-record-store.js";
import { PostgresUnitOfWork } from "../../src/adapters/postgres/postgres-unit-of-work.js";
import { Authorizer } from "../../src/application/authorizer.js";
import { resourceKinds } from "../../src/application/kinds/resource-kinds.js";
import { PaginationTokens } from "../../src/application/pagination-token.js";
import type { SharedRecords } from "../../src/application/ports/shared-records.js";
import { PortableSharedRecords } from "../../src/application/shared-records/portable-shared-records.js";
import { PostgresSharedRecords } from "../../src/adapters/postgres/postgres-shared-records.js";
import { RecordService, type ListParams } from "../../src/application/record-service.js";
import { anonymousRequester, authenticatedRequester, type Requester } from "../../src/application/requester.js";
import type { ResourceDefinition } from "../../src/application/resources.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { requireService, underCi } from "../support/services.js";

// Shared with the permission differential test (files run one after the other; each empties its tables).
const DATABASE = "tessera_differential_test";
const RECORDS = 10;
const PRINCIPALS = ["alice", "bob", "group:staff", "system.Everyone", "system.Authenticated"] as const;
const MAX_PAGES = RECORDS + 2;

/** The same collection twice (left for one strategy, right for the other): deletions stay comparable. */
const resource = (name: string): ResourceDefinition => ({
  name,
  kind: "shareable",
  permissions: ["read", "write"],
  settingsPrincipals: {},
});
const left = resource("left");
const right = resource("right");

const requesters: Record<string, Requester> = {
  alice: authenticatedRequester("alice", () => Promise.resolve(["group:staff"])),
  bob: authenticatedRequester("bob", () => Promise.resolve([])),
  anonymous: anonymousRequester(),
};

type Outcome = { readonly pages: unknown[]; readonly count: unknown; readonly deleted: unknown };

describe("granted records: ids resolved first vs grants joined in the query", function () {
  requireService("postgresql");
  this.timeout(60_000);
  let databases: PostgresDatabases;
  let records: PostgresRecordStore;
  let journal: PostgresAccessJournal;
  let permissions: PostgresPermissionStore;
  let services: { resolved: RecordService; joined: RecordService };

  before(async () => {
    await ensureDatabase(DATABASE);
    databases = new PostgresDatabases({ storage: { url: databaseUrl(DATABASE), poolSize: 4 }, permission: { url: databaseUrl(DATABASE) } });
    if (!databases.storage || !databases.permission) throw new Error("both databases are configured");
    await databases.migrate();
    records = new PostgresRecordStore(databases.storage);
    journal = new PostgresAccessJournal(databases.storage);
    permissions = new PostgresPermissionStore(databases.permission);
    const unitOfWork = new PostgresUnitOfWork(databases.storage);
    const kinds = resourceKinds({ authorizer: new Authorizer(permissions) });
    const serviceWith = (shared: SharedRecords) =>
      new RecordService({
        records,
        journal,
        kinds,
        shared,
        unitOfWork,
        ids: { generate: () => "unused" },
        tokens: new PaginationTokens("differential"),
      });
    services = {
      resolved: serviceWith(new PortableSharedRecords(records, journal, permissions, unitOfWork)),
      joined: serviceWith(PostgresSharedRecords.on(databases.storage, records, journal, unitOfWork)),
    };
  });
  after(() => databases?.close());

  async function seed(acls: readonly { read: string[]; write: string[] }[], deletedEvery: number): Promise<void> {
    await journal.flush();
    await records.flush();
    await permissions.flush();
    for (const collection of [left, right]) {
      const scope = { collection: collection.name, parentId: "" };
      for (const [i, acl] of acls.entries()) {
        const id = `r${i}`;
        await records.create(scope, id, { n: i % 4, title: `t${i}` }, { lastModified: 1_000 + i });
        await permissions.replaceObjectPermissions(`/${collection.name}/${id}`, acl);
        if (deletedEvery > 0 && i % deletedEvery === 0) await records.delete(scope, id);
      }
    }
  }

  /** Every page of a walk, the count, and what a bulk delete removes; errors by name. */
  async function outcome(
    service: RecordService,
    collection: ResourceDefinition,
    requester: Requester,
    params: ListParams,
  ): Promise<Outcome> {
    const settle = <T>(work: Promise<T>): Promise<T | { error: string }> =>
      work.then(
        (value) => value,
        (error: unknown) => ({ error: (error as Error).constructor.name }),
      );
    const pages = [];
    let token: string | undefined;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const answer = await settle(service.list(requester, collection, { ...params, token }));
      if ("error" in answer) {
        pages.push(answer);
        break;
      }
      // Ids (a dagger for tombstones): the two collections' timestamps are their own.
      pages.push(answer.entries.map((entry) => (entry.deleted === true ? `${entry.id}†` : entry.id)));
      token = answer.nextToken;
      if (token === undefined) break;
    }
    const count = await settle(service.count(requester, collection, params.filters).then((c) => c.count));
    const deleted = await settle(service.deleteAll(requester, collection, params.filters).then((d) => d.tombstones.map((t) => t.id)));
    return { pages, count, deleted };
  }

  it("answers every caller with the same pages, counts, refusals and deletions", async () => {
    const principals = fc.subarray([...PRINCIPALS]);
    const scenario = fc.record({
      acls: fc.array(fc.record({ read: principals, write: principals }), { minLength: RECORDS, maxLength: RECORDS }),
      deletedEvery: fc.integer({ min: 0, max: 4 }),
      caller: fc.constantFrom("alice", "bob", "anonymous"),
      limit: fc.integer({ min: 1, max: 4 }),
      filtered: fc.boolean(),
      includeDeleted: fc.boolean(),
    });
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async ({ acls, deletedEvery, caller, limit, filtered, includeDeleted }) => {
        await seed(acls, deletedEvery);
        const requester = requesters[caller] ?? anonymousRequester();
        const params: ListParams = {
          filters: filtered ? [{ field: "n", operator: "min", value: 1 }] : [],
          sort: [{ field: "title", descending: false }],
          limit,
          includeDeleted,
        };
        const resolved = await outcome(services.resolved, left, requester, params);
        const joined = await outcome(services.joined, right, requester, params);
        expect(joined).to.deep.equal(resolved);
        compared += 1;
      }),
      { numRuns: underCi() ? 20 : 8 },
    );
    expect(compared).to.be.greaterThan(0);
  });
});
