/**
 * Differential test of a restricted listing from a position (`_since`, `gt_last_modified`) with
 * the permission backend apart from the records: started from the changes after the position
 * and their ACLs, in windows small enough to take several rounds and to run out of budget, vs
 * every id the caller may read resolved first (a window budget of 0). Random histories of
 * creates, ACL changes and deletions (so losses, re-shares and tombstones), callers, positions,
 * orders and page sizes; every page of a walk, its tokens and its refusal must be the same. On
 * memory, and on PostgreSQL storage with Redis permissions.
 */
import { expect } from "chai";
import fc from "fast-check";
import { MemoryPermissionStore } from "../../src/adapters/memory/memory-permission-store.js";
import { memoryStorage } from "../../src/adapters/memory/memory-record-store.js";
import { PostgresAccessJournal } from "../../src/adapters/postgres/postgres-access-journal.js";
import { PostgresDatabase } from "../../src/adapters/postgres/postgres-database.js";
import { PostgresRecordStore } from "../../src/adapters/postgres/postgres-record-store.js";
import { PostgresUnitOfWork } from "../../src/adapters/postgres/postgres-unit-of-work.js";
import { RedisPermissionStore } from "../../src/adapters/redis/redis-permission-store.js";
import { DirectUnitOfWork } from "../../src/adapters/system/direct-unit-of-work.js";
import { SystemClock } from "../../src/adapters/system/system-clock.js";
import type { Acl } from "../../src/domain/acl.js";
import { Authorizer } from "../../src/application/authorizer.js";
import { resourceKinds } from "../../src/application/kinds/resource-kinds.js";
import type { SortKey } from "../../src/application/listing.js";
import { PaginationTokens } from "../../src/application/pagination-token.js";
import type { AccessJournal } from "../../src/application/ports/access-journal.js";
import type { PermissionStore } from "../../src/application/ports/permission-store.js";
import type { RecordStore } from "../../src/application/ports/record-store.js";
import type { UnitOfWork } from "../../src/application/ports/unit-of-work.js";
import { RecordService, type ListParams } from "../../src/application/record-service.js";
import { anonymousRequester, authenticatedRequester, type Requester } from "../../src/application/requester.js";
import type { ResourceDefinition } from "../../src/application/resources.js";
import type { ChangesWindow } from "../../src/application/shared-records/changes-first-listing.js";
import { PortableSharedRecords } from "../../src/application/shared-records/portable-shared-records.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { REDIS_URL, requireService, underCi } from "../support/services.js";

const DATABASE = "tessera_since_differential_test";
const PRINCIPALS = ["alice", "bob", "group:staff", "system.Everyone", "system.Authenticated"] as const;
const IDS = 6;
const MAX_PAGES = 40;

const resource: ResourceDefinition = { name: "notes", kind: "shareable", permissions: ["read", "write"], settingsPrincipals: {} };
const scope = { collection: resource.name, parentId: "" };

const requesters: Record<string, Requester> = {
  alice: authenticatedRequester("alice", () => Promise.resolve(["group:staff"])),
  bob: authenticatedRequester("bob", () => Promise.resolve([])),
  anonymous: anonymousRequester(),
};

const ORDERS: Record<string, readonly SortKey[]> = {
  newest: [{ field: "last_modified", descending: true }],
  oldest: [{ field: "last_modified", descending: false }],
  title: [{ field: "title", descending: false }],
};

interface Backends {
  readonly records: RecordStore;
  readonly journal: AccessJournal;
  readonly permissions: PermissionStore;
  readonly unitOfWork: UnitOfWork;
  reset(): Promise<void>;
  close(): Promise<void>;
}

interface Operation {
  readonly target: number;
  readonly acl: { read: string[]; write: string[] };
  readonly remove: boolean;
}

/** Applies a history through SharedRecords' own writes (losses recorded as the API records them); its timestamps. */
async function play(backends: Backends, history: readonly Operation[]): Promise<number[]> {
  const shared = new PortableSharedRecords(backends.records, backends.journal, backends.permissions, backends.unitOfWork);
  const kind = resourceKinds({ authorizer: new Authorizer(backends.permissions) }).shareable;
  const acls = kind.recordAcls(resource);
  if (!acls) throw new Error("a shareable resource keeps ACLs");
  const entries = (acl: Acl) => kind.aclEntries(resource, acl);
  const live = new Map<string, { acl: Acl; version: number }>();
  const stamps = [0];
  for (const [n, { target, acl, remove }] of history.entries()) {
    const id = `r${target}`;
    const data = { title: `t${(n * 7) % 5}`, n };
    const current = live.get(id);
    if (!current) {
      const written = await shared.create(scope, id, data, {}, acls, entries(acl));
      live.set(id, { acl, version: written.lastModified });
      stamps.push(written.lastModified);
    } else if (remove) {
      const { written } = await shared.delete(scope, id, {}, acls, { acl: entries(current.acl), version: current.version });
      live.delete(id);
      stamps.push(written.lastModified);
    } else {
      const change = { acl: entries(acl), previous: entries(current.acl), previousVersion: current.version };
      const { written } = await shared.update(scope, id, data, {}, acls, change);
      live.set(id, { acl, version: written.lastModified });
      stamps.push(written.lastModified);
    }
  }
  return stamps;
}

function serviceOver(backends: Backends, window: ChangesWindow): RecordService {
  const { records, journal, permissions, unitOfWork } = backends;
  return new RecordService({
    records,
    journal,
    kinds: resourceKinds({ authorizer: new Authorizer(permissions) }),
    shared: new PortableSharedRecords(records, journal, permissions, unitOfWork, window),
    unitOfWork,
    ids: { generate: () => "unused" },
    tokens: new PaginationTokens("since-differential"),
  });
}

/** Every page of a walk (`id@last_modified`, a dagger for tombstones), or the error that ended it. */
async function walk(service: RecordService, requester: Requester, params: ListParams): Promise<unknown[]> {
  const pages: unknown[] = [];
  let token: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    try {
      const answer = await service.list(requester, resource, { ...params, token });
      pages.push(answer.entries.map((e) => `${e.id}${e.deleted ? "†" : ""}@${e.lastModified}`));
      token = answer.nextToken;
    } catch (error) {
      pages.push({ error: (error as Error).constructor.name });
      break;
    }
    if (token === undefined) break;
  }
  return pages;
}

function differential(name: string, open: () => Promise<Backends>, runs: number): void {
  describe(name, function () {
    this.timeout(120_000);
    let backends: Backends;
    before(async () => {
      backends = await open();
    });
    after(() => backends?.close());

    it("answers every walk as the listing through every readable id does", async () => {
      const operation = fc.record({
        target: fc.nat({ max: IDS - 1 }),
        acl: fc.record({ read: fc.subarray([...PRINCIPALS]), write: fc.subarray([...PRINCIPALS]) }),
        remove: fc.boolean(),
      });
      const scenario = fc.record({
        history: fc.array(operation, { minLength: 4, maxLength: 24 }),
        position: fc.nat(),
        operator: fc.constantFrom("gt", "min"),
        caller: fc.constantFrom("alice", "bob", "anonymous"),
        order: fc.constantFrom(...Object.keys(ORDERS)),
        limit: fc.integer({ min: 1, max: 4 }),
        filtered: fc.boolean(),
        includeDeleted: fc.boolean(),
        window: fc.record({ first: fc.integer({ min: 1, max: 3 }), budget: fc.integer({ min: 1, max: 30 }) }),
      });
      let walks = 0;
      let nonEmpty = 0;
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          await backends.reset();
          const stamps = await play(backends, s.history);
          const since = stamps[s.position % stamps.length] ?? 0;
          const params: ListParams = {
            filters: [
              ...(s.filtered ? [{ field: "title", operator: "min" as const, value: "t2" }] : []),
              { field: "last_modified", operator: s.operator, value: since },
            ],
            sort: ORDERS[s.order] ?? [],
            limit: s.limit,
            includeDeleted: s.includeDeleted,
          };
          const requester = requesters[s.caller] ?? anonymousRequester();
          const expected = await walk(serviceOver(backends, { first: 1, budget: 0 }), requester, params);
          const actual = await walk(serviceOver(backends, s.window), requester, params);
          expect(actual).to.deep.equal(expected);
          walks += 1;
          if (JSON.stringify(expected).includes("@")) nonEmpty += 1;
        }),
        { numRuns: runs },
      );
      expect(walks).to.equal(runs);
      expect(nonEmpty, "walks that showed something").to.be.greaterThan(runs / 10);
    });
  });
}

describe("a restricted listing from a position: from the changes vs through every readable id", () => {
  differential(
    "on memory",
    () => {
      let storage = memoryStorage(new SystemClock());
      let permissions = new MemoryPermissionStore();
      const backends: Backends = {
        get records() {
          return storage.records;
        },
        get journal() {
          return storage.journal;
        },
        get permissions() {
          return permissions;
        },
        unitOfWork: new DirectUnitOfWork(),
        reset() {
          storage = memoryStorage(new SystemClock());
          permissions = new MemoryPermissionStore();
          return Promise.resolve();
        },
        close: () => Promise.resolve(),
      };
      return Promise.resolve(backends);
    },
    underCi() ? 150 : 60,
  );

  describe("on PostgreSQL storage and Redis permissions", () => {
    requireService("postgresql");
    requireService("redis");
    differential(
      "PostgreSQL + Redis",
      async () => {
        await ensureDatabase(DATABASE);
        const database = new PostgresDatabase({ url: databaseUrl(DATABASE), poolSize: 4 });
        await database.migrate();
        const records = new PostgresRecordStore(database);
        const journal = new PostgresAccessJournal(database);
        const prefix = `tessera-test:${process.pid}-${Date.now().toString(36)}:since-diff:`;
        const permissions = new RedisPermissionStore({ url: REDIS_URL, prefix, poolSize: 4 });
        return {
          records,
          journal,
          permissions,
          unitOfWork: new PostgresUnitOfWork(database),
          reset: async () => {
            await journal.flush();
            await records.flush();
            await permissions.flush();
          },
          close: async () => {
            await permissions.flush();
            await permissions.close();
            await database.close();
          },
        };
      },
      underCi() ? 40 : 20,
    );
  });
});
