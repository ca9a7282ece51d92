/**
 * Plans that hold without statistics: on tables filled but never analyzed (autovacuum off for
 * them), the statements the record store really sends take their index paths, both as custom
 * plans (EXPLAIN with the values) and as the generic plan a prepared statement may settle on.
 * A collapsed plan (the shared listing filtering a whole collection per granted id) was 35×
 * slower; these tests read the plan, never the clock.
 */
import { expect } from "chai";
import pg from "pg";
import type { ListQuery } from "../../src/application/listing.js";
import type { JoinedGrants as Grants } from "../../src/adapters/postgres/joined-grants.js";
import { PostgresPermissionStore } from "../../src/adapters/postgres/postgres-permission-store.js";
import { PostgresAccessJournal } from "../../src/adapters/postgres/postgres-access-journal.js";
import { PostgresRecordStore } from "../../src/adapters/postgres/postgres-record-store.js";
import { databaseUrl, ensureDatabase, withAdmin } from "../support/postgres.js";
import { plansOf as plansOfStatement, statementOf as sentStatement } from "../support/plans.js";
import { RecordingDatabase, type Sent } from "../support/recording-database.js";
import { requireService } from "../support/services.js";

const DATABASE = "tessera_plans_test";
const RECORDS = 5_000;
const SHARED = 50;
const big = { collection: "big", parentId: "" };

describe("PostgreSQL plans without statistics", function () {
  requireService("postgresql");
  this.timeout(60_000);
  const database = new RecordingDatabase({ url: databaseUrl(DATABASE) });
  const store = new PostgresRecordStore(database);
  const journal = new PostgresAccessJournal(database);
  const permissions = new PostgresPermissionStore(database);
  let client: pg.Client;

  const plansOf = (sent: Sent) => plansOfStatement(client, sent);
  const statementOf = (pattern: RegExp, work: () => Promise<unknown>) => sentStatement(database, pattern, work);

  before(async function () {
    this.timeout(120_000);
    await ensureDatabase(DATABASE, true);
    await database.migrate();
    client = new pg.Client({ connectionString: databaseUrl(DATABASE) });
    await client.connect();
    for (const table of ["records", "access_control_entries", "timestamps", "lost_access", "user_principals"])
      await client.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
    // Through the store (group commit) in parallel rounds, like writes arriving through the API.
    const ROUND = 250;
    for (let start = 0; start < RECORDS; start += ROUND) {
      await Promise.all(
        Array.from({ length: ROUND }, (_, i) =>
          store.create(big, `r${String(start + i).padStart(6, "0")}`, { title: `record ${start + i}`, n: start + i }),
        ),
      );
    }
    await store.create({ collection: "small", parentId: "" }, "s1", {});
    await client.query(
      `INSERT INTO access_control_entries (object_id, permission, principal)
       SELECT '/big/r' || lpad(g::text, 6, '0'), 'write', 'account:owner' FROM generate_series(0, $1::int - 1) g`,
      [RECORDS],
    );
    await client.query(
      `INSERT INTO access_control_entries (object_id, permission, principal)
       SELECT '/big/r' || lpad((g * $1::int)::text, 6, '0'), 'read', 'account:alice' FROM generate_series(0, $2::int - 1) g`,
      [RECORDS / SHARED, SHARED],
    );
    // Losses accumulate in a scope until purged: one per record, in timestamp order.
    await client.query(
      `INSERT INTO lost_access (collection, parent_id, principal, id, last_modified)
       SELECT 'big', '', 'account:p' || (g % 100)::text, 'r' || lpad(g::text, 6, '0'), 1000 + g FROM generate_series(0, $1::int - 1) g`,
      [RECORDS],
    );
  });
  after(async () => {
    await client?.end();
    await database.close();
  });

  it("runs on tables whose statistics were never gathered", async () => {
    const stats = await withAdmin(databaseUrl(DATABASE), (admin) =>
      admin.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_statistic s JOIN pg_class c ON c.oid = s.starelid WHERE c.relname IN ('records', 'access_control_entries')`,
      ),
    );
    expect(Number(stats.rows[0]?.n)).to.equal(0);
  });

  const shared: ListQuery = {
    filters: [],
    sort: [{ field: "last_modified", descending: true }],
    limit: 101,
    includeDeleted: false,
    upTo: 9_000_000_000_000,
  };
  const grants: Grants = {
    principals: ["account:alice", "system.Authenticated", "system.Everyone"],
    permissions: ["read", "write"],
    objectIdPrefix: "/big/",
  };

  it("lists the records shared with a caller from their grants, each looked up by primary key", async () => {
    const sent = await statementOf(/access_control_entries/, async () =>
      expect(await store.list(big, shared, grants)).to.have.length(SHARED),
    );
    for (const plan of Object.values(await plansOf(sent))) {
      expect(plan.filter((s) => s.type === "Seq Scan")).to.deep.equal([]);
      expect(plan.filter((s) => s.table === "records").map((s) => s.index)).to.deep.equal(["pk_records"]);
      expect(plan.filter((s) => s.table === "access_control_entries").map((s) => s.index)).to.deep.equal([
        "idx_access_control_entries_principal",
      ]);
    }
  });

  it("lists for a caller holding a hundred nested groups the same way: one indexed statement", async () => {
    // What userPrincipals hands the listing for a member of 100 groups on 3 levels (bench W4N).
    const groups = Array.from({ length: 100 }, (_, i) => `group:nested-${i}`);
    const sent = await statementOf(/access_control_entries/, async () =>
      expect(await store.list(big, shared, { ...grants, principals: [...grants.principals, ...groups] })).to.have.length(SHARED),
    );
    for (const plan of Object.values(await plansOf(sent))) {
      expect(plan.filter((s) => s.type === "Seq Scan")).to.deep.equal([]);
      expect(plan.filter((s) => s.table === "records").map((s) => s.index)).to.deep.equal(["pk_records"]);
      expect(plan.filter((s) => s.table === "access_control_entries").map((s) => s.index)).to.deep.equal([
        "idx_access_control_entries_principal",
      ]);
    }
  });

  it("expands nested groups through the user_principals indexes, never a scan of the memberships", async () => {
    // 5,000 users in 500 groups, each group in the next (a 500-link chain, cut by the depth bound).
    await client.query(
      `INSERT INTO user_principals (user_id, principal)
       SELECT 'account:m' || g, 'group:n' || (g % 500) FROM generate_series(1, 5000) g
       UNION ALL SELECT 'group:n' || g, 'group:n' || (g + 1) FROM generate_series(0, 499) g`,
    );
    const statements = [
      await statementOf(/user_principals/, () => permissions.userPrincipals("account:m7", ["group:token"])),
      await statementOf(/user_principals/, () => permissions.membersOf("group:n7")),
      await statementOf(/user_principals/, () => permissions.membersPage(["group:n7", "group:n9"], "account:m3", 10)),
      await statementOf(/user_principals/, () => permissions.principalParents(["account:m7", "system.Authenticated"])),
      await statementOf(/user_principals/, () => permissions.principalsAndCheck("account:m7", [], "/big/r000007", "read")),
    ];
    for (const sent of statements) {
      for (const plan of Object.values(await plansOf(sent))) {
        expect(plan.filter((s) => s.type === "Seq Scan").map((s) => s.table)).to.deep.equal([]);
        expect(plan.filter((s) => s.table === "user_principals").length).to.be.greaterThan(0);
      }
    }
  });

  it("looks a record up by id through the primary key (reads and each write's own lookup, a create's ACL too)", async () => {
    const lookups = [
      await statementOf(/FROM records/, () => store.get(big, "r000042")),
      await statementOf(/INSERT INTO records/, () => store.create(big, "r000042", {}).catch(() => undefined)),
      await statementOf(/UPDATE records/, () => store.update(big, "r000043", { v: 1 })),
      await statementOf(/INSERT INTO records/, () =>
        store
          .createWithAcl(big, "r000044", {}, {}, { objectId: "/big/r000044", permissions: { write: ["account:x"] } })
          .catch(() => undefined),
      ),
    ];
    for (const sent of lookups) {
      for (const plan of Object.values(await plansOf(sent))) {
        expect(
          plan.filter((s) => s.type === "Seq Scan"),
          sent.text,
        ).to.deep.equal([]);
        // The whole key by equality: a scan of the scope filtered on the id would take the same index.
        for (const scan of plan.filter((s) => s.table === "records" && s.type !== "Tid Scan")) {
          expect(scan.index, sent.text).to.equal("pk_records");
          expect(scan.cond, sent.text).to.match(/\bid = /);
        }
        // ACEs an ACL replaces are found by key, then deleted by ctid.
        for (const scan of plan.filter((s) => s.table === "access_control_entries" && s.type !== "Tid Scan"))
          expect(scan.index, sent.text).to.equal("pk_access_control_entries");
      }
    }
  });

  it("walks a collection, and its changes since a timestamp, through the scope index", async () => {
    const newest: ListQuery = {
      filters: [],
      sort: [{ field: "last_modified", descending: true }],
      limit: 11,
      includeDeleted: false,
      upTo: 9_000_000_000_000,
    };
    const since: ListQuery = {
      ...newest,
      sort: [{ field: "last_modified", descending: false }],
      includeDeleted: true,
      filters: [{ field: "last_modified", operator: "gt", value: 1 }],
    };
    for (const query of [newest, since]) {
      const sent = await statementOf(/FROM records/, () => store.list(big, query));
      for (const plan of Object.values(await plansOf(sent))) {
        expect(plan.filter((s) => s.table === "records").map(({ type, index }) => ({ type, index }))).to.deep.equal([
          { type: "Index Scan", index: "idx_records_scope_modified" },
        ]);
      }
    }
  });

  it("reads a scope's losses after a timestamp (once per live-feed burst) as an index range, not the scope's every loss", async () => {
    const sent = await statementOf(/FROM lost_access/, async () =>
      expect(await journal.lostAccessAfter(big, 1000 + RECORDS - 3)).to.have.length(2),
    );
    for (const plan of Object.values(await plansOf(sent)))
      expect(plan.filter((s) => s.table === "lost_access").map((s) => [s.type, s.index])).to.deep.equal([
        ["Index Scan", "idx_lost_access_scope_modified"],
      ]);
  });

  it("reads the ACLs of a burst's records in one statement through the primary key", async () => {
    const ids = ["/big/r000000", "/big/r000100", "/big/r000101"];
    const sent = await statementOf(/access_control_entries/, async () => {
      const acls = await permissions.manyObjectPermissions(ids, ["read", "write"]);
      expect([...acls.keys()]).to.deep.equal(ids);
    });
    expect(database.sent.filter((s) => /access_control_entries/.test(s.text))).to.have.length(1);
    for (const plan of Object.values(await plansOf(sent)))
      expect(plan.filter((s) => s.table === "access_control_entries").map((s) => s.index)).to.deep.equal(["pk_access_control_entries"]);
  });
});
