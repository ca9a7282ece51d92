/**
 * Plans of a young deployment: a prepared statement settles on a generic plan after a few runs,
 * and keeps it on its connection until something invalidates it (an ANALYZE, which autovacuum
 * may never run). On a new database that plan is made while the tables are small, and a plan
 * that is cheapest then (a sequential scan of a few hundred ACEs) stays in use as they grow: the
 * live feed's ACL reads and the batched creates did a full scan of every ACE per statement,
 * slower run after run. Every statement here must take an index (or a row's ctid) in the generic
 * plan made on never-analyzed tables, empty or a few hundred rows long (tables of thousands are
 * `postgres-plans.test.ts`).
 */
import { expect } from "chai";
import pg from "pg";
import type { ListQuery } from "../../src/application/listing.js";
import { PostgresPermissionStore } from "../../src/adapters/postgres/postgres-permission-store.js";
import { PostgresAccessJournal } from "../../src/adapters/postgres/postgres-access-journal.js";
import { PostgresRecordStore } from "../../src/adapters/postgres/postgres-record-store.js";
import { PostgresRecordWithAclReader } from "../../src/adapters/postgres/postgres-record-with-acl-reader.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { plansOf, statementOf, type Scans } from "../support/plans.js";
import { RecordingDatabase, type Sent } from "../support/recording-database.js";
import { requireService } from "../support/services.js";

const DATABASE = "tessera_plans_fresh_test";
const scope = { collection: "fresh", parentId: "" };
const TABLES = ["records", "access_control_entries", "lost_access", "user_principals", "timestamps"];

/** Full scans of the tables that grow with the data. */
function fullScans(scans: Scans): string[] {
  return scans.filter((s) => s.type === "Seq Scan" && TABLES.includes(s.table ?? "")).map((s) => s.table ?? "");
}

describe("PostgreSQL plans made on the small tables of a young deployment", function () {
  requireService("postgresql");
  this.timeout(60_000);
  const database = new RecordingDatabase({ url: databaseUrl(DATABASE) });
  const store = new PostgresRecordStore(database);
  const journal = new PostgresAccessJournal(database);
  const permissions = new PostgresPermissionStore(database);
  const reader = new PostgresRecordWithAclReader(database);
  let client: pg.Client;

  before(async () => {
    await ensureDatabase(DATABASE, true);
    await database.migrate();
    client = new pg.Client({ connectionString: databaseUrl(DATABASE) });
    await client.connect();
    for (const table of TABLES) await client.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
  });
  after(async () => {
    await client?.end();
    await database.close();
  });

  async function expectIndexedGenericPlan(sent: Sent): Promise<void> {
    const { generic } = await plansOf(client, sent);
    expect(fullScans(generic), sent.text).to.deep.equal([]);
  }

  let fresh = 0;
  /** The checks, at the tables' size when they run (each run on records of its own). */
  function everyStatement(): void {
    it("reads the ACLs of a live-feed burst's records through the primary key", async () => {
      await expectIndexedGenericPlan(
        await statementOf(database, /access_control_entries/, () =>
          permissions.manyObjectPermissions(["/fresh/a", "/fresh/b"], ["read", "write"]),
        ),
      );
    });

    it("creates records with their ACLs without scanning every ACE", async () => {
      await expectIndexedGenericPlan(
        await statementOf(database, /INSERT INTO records/, () =>
          store.createWithAcl(
            scope,
            `c${++fresh}`,
            {},
            {},
            { objectId: `/fresh/c${fresh}`, permissions: { write: ["account:owner"], read: ["account:bob"] } },
          ),
        ),
      );
    });

    it("reads, updates and checks a record by its key", async () => {
      const id = `r${++fresh}`;
      await store.create(scope, id, { n: 1 });
      const statements = [
        await statementOf(database, /FROM records/, () => store.get(scope, id)),
        await statementOf(database, /UPDATE records/, () => store.update(scope, id, { n: 2 })),
        await statementOf(database, /access_control_entries/, () => permissions.objectPermissions(`/fresh/${id}`, ["read", "write"])),
        await statementOf(database, /access_control_entries/, () => permissions.checkPermission(`/fresh/${id}`, "read", ["account:bob"])),
        await statementOf(database, /access_control_entries/, () =>
          permissions.principalsAndCheck("bob", ["account:bob"], `/fresh/${id}`, "read"),
        ),
        await statementOf(database, /access_control_entries/, () =>
          permissions.objectPermissionAuthorizedPrincipals(`/fresh/${id}`, "read"),
        ),
        await statementOf(database, /access_control_entries/, () =>
          reader.getWithAcl(scope, id, { objectId: `/fresh/${id}`, permissions: ["read", "write"], principalsOf: "bob" }),
        ),
      ];
      for (const sent of statements) await expectIndexedGenericPlan(sent);
    });

    it("expands nested groups both ways through the user_principals indexes", async () => {
      const statements = [
        await statementOf(database, /user_principals/, () => permissions.userPrincipals("account:u1")),
        await statementOf(database, /user_principals/, () => permissions.membersOf("group:g1")),
        await statementOf(database, /user_principals/, () => permissions.directPrincipals(["account:u1", "group:g1"])),
      ];
      for (const sent of statements) await expectIndexedGenericPlan(sent);
    });

    it("walks a caller's nested groups, when they lead further, through the user_principals indexes", async () => {
      const user = `account:nested${++fresh}`;
      await permissions.addUserPrincipal(user, `group:inner${fresh}`);
      await permissions.addUserPrincipal(`group:inner${fresh}`, `group:outer${fresh}`);
      const query = { objectId: `/fresh/n${fresh}`, permissions: ["read"], principalsOf: user };
      const statements = [
        await statementOf(database, /RECURSIVE/, () => permissions.principalsAndCheck(user, [user], query.objectId, "read")),
        await statementOf(database, /RECURSIVE/, () => reader.getWithAcl(scope, `n${fresh}`, query)),
      ];
      for (const sent of statements) await expectIndexedGenericPlan(sent);
    });

    it("lists a scope's changes and losses since a timestamp, and what a caller was granted, through their indexes", async () => {
      const since: ListQuery = {
        filters: [{ field: "last_modified", operator: "gt", value: 1 }],
        sort: [{ field: "last_modified", descending: false }],
        limit: 200,
        includeDeleted: true,
        upTo: 9_000_000_000_000,
      };
      await expectIndexedGenericPlan(await statementOf(database, /FROM records/, () => store.list(scope, since)));
      await expectIndexedGenericPlan(await statementOf(database, /FROM lost_access/, () => journal.lostAccessAfter(scope, 1)));
      // Some principals' losses: the scope's losses read once through its index, never once per principal.
      const principals = Array.from({ length: 50 }, (_, n) => `account:u${n}`);
      const ofSome = await statementOf(database, /lost_access/, () => journal.lostAccessAfter(scope, 1, { principals }));
      // A parameter array is compared element by element in a generic plan; a constant one is hashed.
      expect(ofSome.values.some(Array.isArray), "the principals are a constant of the statement").to.equal(false);
      const lostAccessScans = (await plansOf(client, ofSome)).generic.filter((s) => s.table === "lost_access");
      expect(
        lostAccessScans.map((s) => [s.type, s.index]),
        ofSome.text,
      ).to.deep.equal([["Index Scan", "idx_lost_access_scope_modified"]]);
      const grants = { principals: ["account:u1", "system.Authenticated"], permissions: ["read", "write"], objectIdPrefix: "/fresh/" };
      await expectIndexedGenericPlan(
        await statementOf(database, /access_control_entries/, () =>
          store.list(scope, { ...since, filters: [], sort: [{ field: "last_modified", descending: true }], includeDeleted: false }, grants),
        ),
      );
    });
  }

  describe("empty", everyStatement);

  describe("a few hundred rows long", () => {
    // Where a sequential scan is still the cheapest plan: 600 ACEs, 200 records, 200 losses.
    before(async () => {
      await client.query(
        `INSERT INTO records (collection, parent_id, id, last_modified, data, deleted)
         SELECT 'fresh', '', 'g' || g, 100 + g, '{}'::jsonb, FALSE FROM generate_series(1, 200) g`,
      );
      await client.query(
        `INSERT INTO access_control_entries (object_id, permission, principal)
         SELECT '/fresh/g' || g, p, 'account:u' || (g % 50) FROM generate_series(1, 200) g, unnest(ARRAY['read', 'write', 'delete']) p`,
      );
      await client.query(
        `INSERT INTO lost_access (collection, parent_id, principal, id, last_modified)
         SELECT 'fresh', '', 'account:u' || (g % 50), 'g' || g, 100 + g FROM generate_series(1, 200) g`,
      );
      // 300 memberships: 200 users in 20 groups, each group in the next of a 100-group chain.
      await client.query(
        `INSERT INTO user_principals (user_id, principal)
         SELECT 'account:u' || g, 'group:g' || (g % 20) FROM generate_series(1, 200) g
         UNION ALL SELECT 'group:g' || g, 'group:g' || (g + 1) FROM generate_series(1, 100) g`,
      );
    });
    everyStatement();
  });
});
