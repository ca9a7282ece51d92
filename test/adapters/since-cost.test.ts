/**
 * With the permission backend apart from the records (PostgreSQL storage, Redis permissions), a
 * restricted `_since` costs what changed since the position, not what the caller may read: a
 * reader of 2,000 records syncs through the record service, and every ACL or object id the
 * permission backend hands out is counted. Nothing changed: none. A few changes by others and
 * one of the reader's: as many as the changes, and the reader gets exactly its own.
 */
import { expect } from "chai";
import pg from "pg";
import { PostgresDatabase } from "../../src/adapters/postgres/postgres-database.js";
import { PostgresAccessJournal } from "../../src/adapters/postgres/postgres-access-journal.js";
import { PostgresRecordStore } from "../../src/adapters/postgres/postgres-record-store.js";
import { PostgresUnitOfWork } from "../../src/adapters/postgres/postgres-unit-of-work.js";
import { RedisPermissionStore } from "../../src/adapters/redis/redis-permission-store.js";
import { Authorizer } from "../../src/application/authorizer.js";
import { resourceKinds } from "../../src/application/kinds/resource-kinds.js";
import { PaginationTokens } from "../../src/application/pagination-token.js";
import type { PermissionStore } from "../../src/application/ports/permission-store.js";
import { RecordService, type ListParams } from "../../src/application/record-service.js";
import { authenticatedRequester } from "../../src/application/requester.js";
import type { ResourceDefinition } from "../../src/application/resources.js";
import { PortableSharedRecords } from "../../src/application/shared-records/portable-shared-records.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { REDIS_URL, requireService } from "../support/services.js";

const DATABASE = "tessera_since_cost_test";
const READABLE = 2_000;
const OTHERS = 5;
const resource: ResourceDefinition = {
  name: "notes",
  kind: "shareable",
  permissions: ["read", "write"],
  // Creating is open: an empty answer is never checked for a refusal (a count of every record reached).
  settingsPrincipals: { create: ["system.Authenticated"] },
};
const scope = { collection: resource.name, parentId: "" };
const reader = authenticatedRequester("reader", () => Promise.resolve([]));

/** Counts the object ids the permission backend answers about (ACLs read, ids listed). */
function countingPermissions(inner: PermissionStore): PermissionStore & { objects: number } {
  const counter = { objects: 0 };
  const counted: Partial<Record<keyof PermissionStore, (...args: never[]) => Promise<unknown>>> = {
    principalsAccessibleObjects: async (...args: Parameters<PermissionStore["principalsAccessibleObjects"]>) => {
      const found = await inner.principalsAccessibleObjects(...args);
      counter.objects += found.size;
      return found;
    },
    manyObjectPermissions: (objectIds: readonly string[], permissions: readonly string[]) => {
      counter.objects += objectIds.length;
      return inner.manyObjectPermissions(objectIds, permissions);
    },
    objectPermissions: (objectId: string, permissions?: readonly string[]) => {
      counter.objects += 1;
      return inner.objectPermissions(objectId, permissions);
    },
  };
  return new Proxy(inner, {
    get: (target, name, receiver) =>
      name === "objects" ? counter.objects : ((counted as Record<string | symbol, unknown>)[name] ?? Reflect.get(target, name, receiver)),
    set: (_target, name, value) => name === "objects" && typeof value === "number" && (counter.objects = value) >= 0,
  }) as PermissionStore & { objects: number };
}

describe("a restricted _since with Redis permissions", function () {
  requireService("postgresql");
  requireService("redis");
  this.timeout(120_000);
  const prefix = `tessera-test:${process.pid}-${Date.now().toString(36)}:since-cost:`;
  let database: PostgresDatabase;
  let redis: RedisPermissionStore;
  let permissions: PermissionStore & { objects: number };
  let service: RecordService;
  let records: PostgresRecordStore;

  before(async () => {
    await ensureDatabase(DATABASE);
    database = new PostgresDatabase({ url: databaseUrl(DATABASE), poolSize: 4 });
    await database.migrate();
    records = new PostgresRecordStore(database);
    const journal = new PostgresAccessJournal(database);
    await journal.flush();
    await records.flush();
    redis = new RedisPermissionStore({ url: REDIS_URL, prefix, poolSize: 8 });
    permissions = countingPermissions(redis);
    const unitOfWork = new PostgresUnitOfWork(database);
    service = new RecordService({
      records,
      journal,
      kinds: resourceKinds({ authorizer: new Authorizer(permissions) }),
      shared: new PortableSharedRecords(records, journal, permissions, unitOfWork),
      unitOfWork,
      ids: { generate: () => "unused" },
      tokens: new PaginationTokens("since-cost"),
    });
    const client = new pg.Client({ connectionString: databaseUrl(DATABASE) });
    await client.connect();
    try {
      await client.query(
        `INSERT INTO records (collection, parent_id, id, last_modified, data, deleted)
         SELECT $1, '', 'r' || g, g, jsonb_build_object('n', g), FALSE FROM generate_series(1, $2::int) g`,
        [scope.collection, READABLE],
      );
      await client.query(`INSERT INTO timestamps (collection, parent_id, last_modified) VALUES ($1, '', $2)`, [scope.collection, READABLE]);
    } finally {
      await client.end();
    }
    for (let start = 1; start <= READABLE; start += 200) {
      const batch = Array.from({ length: Math.min(200, READABLE - start + 1) }, (_, i) => start + i);
      await Promise.all(batch.map((n) => redis.replaceObjectPermissions(`/notes/r${n}`, { read: ["reader"], write: ["writer"] })));
    }
  });
  after(async () => {
    await redis?.flush();
    await redis?.close();
    await database?.close();
  });

  const since = (position: number): ListParams => ({
    filters: [{ field: "last_modified", operator: "gt", value: position }],
    sort: [{ field: "last_modified", descending: true }],
    limit: 100,
    includeDeleted: true,
  });

  it("reads no ACL and no id when nothing changed since the position", async () => {
    const position = (await service.list(reader, resource, since(0))).timestamp;
    permissions.objects = 0;
    const answer = await service.list(reader, resource, since(position));
    expect(answer.entries).to.deep.equal([]);
    expect(answer.timestamp).to.equal(position);
    expect(permissions.objects).to.equal(0);
  });

  it("reads as many ACLs as there were changes, whatever the reader may read", async () => {
    const position = (await service.list(reader, resource, since(0))).timestamp;
    const writer = authenticatedRequester("writer", () => Promise.resolve([]));
    for (let i = 0; i < OTHERS; i++) await service.create(writer, resource, { data: { id: `other${i}`, n: i } });
    const shared = await service.update(writer, resource, "r7", { data: { n: 7, changed: true }, merge: false });
    permissions.objects = 0;
    const answer = await service.list(reader, resource, since(position));
    expect(answer.entries.map((e) => [e.id, e.lastModified])).to.deep.equal([["r7", shared.record.lastModified]]);
    expect(permissions.objects).to.be.at.most(OTHERS + 1);
  });
});
