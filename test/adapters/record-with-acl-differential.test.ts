/**
 * The one-statement read (PostgresRecordWithAclReader, which PostgresSharedRecords reads through:
 * records and ACEs in one PostgreSQL database) against
 * the three lookups it replaces (RecordStore.get, PermissionStore.objectPermissions and
 * userPrincipals): same record, ACL and principals for a live record, a record without ACL, a
 * tombstone and a missing id, for users with and without extra principals. Then the same GETs
 * through RecordService over PostgresSharedRecords and over PortableSharedRecords: same answers
 * and same refusals.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { expect } from "chai";
import { PostgresDatabases } from "../../src/adapters/postgres/postgres-databases.js";
import { PostgresPermissionStore } from "../../src/adapters/postgres/postgres-permission-store.js";
import { PostgresAccessJournal } from "../../src/adapters/postgres/postgres-access-journal.js";
import { PostgresRecordStore } from "../../src/adapters/postgres/postgres-record-store.js";
import { PostgresRecordWithAclReader } from "../../src/adapters/postgres/postgres-record-with-acl-reader.js";
import { PostgresUnitOfWork } from "../../src/adapters/postgres/postgres-unit-of-work.js";
import { Authorizer } from "../../src/application/authorizer.js";
import { resourceKinds } from "../../src/application/kinds/resource-kinds.js";
import { PaginationTokens } from "../../src/application/pagination-token.js";
import type { ObjectPermissions } from "../../src/application/ports/permission-store.js";
import type { RecordWithAcl } from "../../src/adapters/postgres/joined-grants.js";
import { PostgresSharedRecords } from "../../src/adapters/postgres/postgres-shared-records.js";
import { PortableSharedRecords } from "../../src/application/shared-records/portable-shared-records.js";
import { RecordService } from "../../src/application/record-service.js";
import { anonymousRequester, authenticatedRequester, type Requester } from "../../src/application/requester.js";
import type { ResourceDefinition } from "../../src/application/resources.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { RecordingDatabase } from "../support/recording-database.js";
import { requireService } from "../support/services.js";

const DATABASE = "tessera_read_together_test";
const articles: ResourceDefinition = { name: "articles", kind: "shareable", permissions: ["read", "write"], settingsPrincipals: {} };
const scope = { collection: "articles", parentId: "" };
const IDS = ["shared", "bare", "gone", "never"] as const;
const USERS = ["alice", "bob", "carol", undefined] as const;

/** Sets as sorted arrays: neither side promises an order. */
function plain(acl: ObjectPermissions): Record<string, string[]> {
  return Object.fromEntries(Object.entries(acl).map(([permission, principals]) => [permission, [...principals].sort()]));
}

describe("a read in one statement vs the three lookups it replaces", function () {
  requireService("postgresql");
  this.timeout(20_000);
  let databases: PostgresDatabases;
  let records: PostgresRecordStore;
  let journal: PostgresAccessJournal;
  let permissions: PostgresPermissionStore;
  let reader: PostgresRecordWithAclReader;
  let unitOfWork: PostgresUnitOfWork;

  before(async () => {
    await ensureDatabase(DATABASE);
    databases = new PostgresDatabases({ storage: { url: databaseUrl(DATABASE), poolSize: 4 }, permission: { url: databaseUrl(DATABASE) } });
    if (!databases.storage || !databases.permission) throw new Error("both databases are configured");
    await databases.migrate();
    records = new PostgresRecordStore(databases.storage);
    journal = new PostgresAccessJournal(databases.storage);
    permissions = new PostgresPermissionStore(databases.permission);
    reader = new PostgresRecordWithAclReader(databases.storage);
    unitOfWork = new PostgresUnitOfWork(databases.storage);
    await journal.flush();
    await records.flush();
    await permissions.flush();
    await records.create(scope, "shared", { title: "s" }, { lastModified: 1_000 });
    await permissions.replaceObjectPermissions("/articles/shared", { read: ["group:staff"], write: ["bob"], other: ["x"] });
    await records.create(scope, "bare", { title: "b" }, { lastModified: 1_001 });
    await records.create(scope, "gone", { title: "g" }, { lastModified: 1_002 });
    await permissions.replaceObjectPermissions("/articles/gone", { read: ["bob"] });
    await records.delete(scope, "gone");
    await permissions.addUserPrincipal("alice", "group:staff");
    await permissions.addUserPrincipal("alice", "group:editors");
    await permissions.addUserPrincipal("system.Authenticated", "group:everybody");
  });
  after(() => databases?.close());

  it("returns the record, its ACL and the user's principals as the separate lookups do", async () => {
    let compared = 0;
    for (const id of IDS) {
      for (const user of USERS) {
        const query = { objectId: `/articles/${id}`, permissions: articles.permissions, principalsOf: user };
        const together = await reader.getWithAcl(scope, id, query);
        const apart = {
          record: await records.get(scope, id),
          acl: await permissions.objectPermissions(query.objectId, query.permissions),
          principals: user === undefined ? undefined : await permissions.userPrincipals(user),
        };
        expect(together.record, `${id} for ${user}`).to.deep.equal(apart.record);
        expect(plain(together.acl), `${id} for ${user}`).to.deep.equal(plain(apart.acl));
        expect(together.principals && [...together.principals].sort(), `${id} for ${user}`).to.deep.equal(
          apart.principals && [...apart.principals].sort(),
        );
        compared += 1;
      }
    }
    expect(compared).to.equal(IDS.length * USERS.length);
  });

  it("reads what was stored: the live record, only the asked permissions, the tombstone as missing", async () => {
    const shared = await reader.getWithAcl(scope, "shared", {
      objectId: "/articles/shared",
      permissions: ["read", "write"],
      principalsOf: "alice",
    });
    expect(shared.record).to.deep.equal({ id: "shared", lastModified: 1_000, data: { title: "s" } });
    expect(plain(shared.acl)).to.deep.equal({ read: ["group:staff"], write: ["bob"] });
    expect([...(shared.principals ?? [])].sort()).to.deep.equal(["group:editors", "group:everybody", "group:staff"]);
    const bare = await reader.getWithAcl(scope, "bare", {
      objectId: "/articles/bare",
      permissions: ["read", "write"],
      principalsOf: "bob",
    });
    expect(bare.record?.data).to.deep.equal({ title: "b" });
    expect(bare.acl).to.deep.equal({});
    expect([...(bare.principals ?? [])]).to.deep.equal(["group:everybody"]);
    const gone = await reader.getWithAcl(scope, "gone", { objectId: "/articles/gone", permissions: ["read"], principalsOf: undefined });
    expect(gone.record).to.equal(undefined);
    expect(plain(gone.acl)).to.deep.equal({ read: ["bob"] });
    expect(gone.principals).to.equal(undefined);
    const never = await reader.getWithAcl(scope, "never", { objectId: "/articles/never", permissions: [], principalsOf: "carol" });
    expect(never).to.deep.equal({ record: undefined, acl: {}, principals: new Set(["group:everybody"]) });
  });

  it("answers every GET through the service the same with and without the capability", async () => {
    const service = (withReader: boolean) => {
      const kinds = resourceKinds({ authorizer: new Authorizer(permissions) });
      return new RecordService({
        records,
        journal,
        kinds,
        shared: withReader
          ? new PostgresSharedRecords(reader, records, journal, permissions, unitOfWork)
          : new PortableSharedRecords(records, journal, permissions, unitOfWork),
        unitOfWork,
        ids: { generate: () => "unused" },
        tokens: new PaginationTokens("read"),
      });
    };
    const finder = (user: string) => () => permissions.userPrincipals(user);
    const requester = (user: string | undefined, fromPermissions: boolean): Requester =>
      user === undefined ? anonymousRequester() : authenticatedRequester(user, finder(user), fromPermissions);
    const answer = (work: Promise<{ record: unknown; permissions: unknown }>) =>
      work.then(
        ({ record, permissions: acl }) => ({ record, acl }),
        (error: unknown) => ({ error: (error as Error).constructor.name }),
      );
    const seen = new Set<string>();
    for (const id of IDS) {
      for (const user of USERS) {
        const apart = await answer(service(false).get(requester(user, false), articles, id));
        const together = await answer(service(true).get(requester(user, true), articles, id));
        expect(together, `${id} for ${user}`).to.deep.equal(apart);
        seen.add("error" in together ? together.error : "ok");
      }
    }
    // The table covers reads (alice through her group), 401, 403 and 404 (bob still holds read on the tombstone's ACL).
    expect([...seen].sort()).to.deep.equal(["ForbiddenError", "RecordNotFoundError", "UnauthenticatedError", "ok"]);
  });

  describe("reads made at once", () => {
    let recording: RecordingDatabase;
    let burstReader: PostgresRecordWithAclReader;
    const readsSent = () => recording.sent.filter((sent) => sent.text.includes("user_principals")).length;

    before(() => {
      recording = new RecordingDatabase({ url: databaseUrl(DATABASE), poolSize: 4 });
      burstReader = new PostgresRecordWithAclReader(recording);
    });
    after(() => recording?.close());

    it("go out as one statement per burst, each answered with its own record, ACL and principals", async () => {
      const reads = IDS.flatMap((id) =>
        USERS.map((user) => ({ id, user, query: { objectId: `/articles/${id}`, permissions: articles.permissions, principalsOf: user } })),
      );
      const answers = await Promise.all(reads.map(({ id, query }) => burstReader.getWithAcl(scope, id, query)));
      // The first read finds nothing in flight and goes alone; the others wait for it, then go together.
      expect(readsSent()).to.equal(2);
      for (const [i, { id, user, query }] of reads.entries()) {
        const answer = answers[i];
        expect(answer?.record, `${id} for ${user}`).to.deep.equal(await records.get(scope, id));
        expect(plain(answer?.acl ?? {}), `${id} for ${user}`).to.deep.equal(
          plain(await permissions.objectPermissions(query.objectId, query.permissions)),
        );
        const principals = user === undefined ? undefined : [...(await permissions.userPrincipals(user))].sort();
        expect(answer?.principals && [...answer.principals].sort(), `${id} for ${user}`).to.deep.equal(principals);
      }
    });

    it("inside a unit of work go alone, on its transaction, and see its own writes, while others' are in flight", async () => {
      const units = new PostgresUnitOfWork(recording);
      const inUnit = new PostgresRecordStore(recording);
      const read = (id: string) =>
        burstReader.getWithAcl(scope, id, { objectId: `/articles/${id}`, permissions: ["read"], principalsOf: undefined });
      const outsideTheUnit = AsyncLocalStorage.snapshot();
      const before = readsSent();
      const rolledBack = new Error("roll back");
      let othersRead: Promise<RecordWithAcl> | undefined;
      const seen = await units
        .run(async () => {
          await inUnit.create(scope, "uncommitted", { title: "u" });
          // Another request's read is in flight (sent at once): reads arriving now would wait for it and go with the next burst.
          othersRead = outsideTheUnit(() => read("uncommitted"));
          const [first, second] = await Promise.all(["uncommitted", "shared"].map(read));
          expect(first?.record?.data).to.deep.equal({ title: "u" });
          expect(second?.record?.id).to.equal("shared");
          throw rolledBack;
        })
        .catch((error: unknown) => error);
      expect(seen).to.equal(rolledBack);
      expect((await othersRead)?.record).to.equal(undefined);
      expect(readsSent() - before).to.equal(3);
      expect(await records.get(scope, "uncommitted")).to.equal(undefined);
    });
  });
});
