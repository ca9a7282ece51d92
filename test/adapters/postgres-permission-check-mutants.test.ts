/**
 * The collection-level check of a listing on PostgreSQL (`principalsAndCheck`, PostgreSQL's
 * PrincipalsWithCheck capability: the user's groups and the check in one statement) with bound
 * permissions: a write granted on the collection, to the user or to one of his groups, grants the
 * listing (read), and so does nothing granted to someone else. Until this case only the randomised
 * permission differential test caught a check that forgot the bound permissions (SQL mutant
 * "check with the user's groups without inheritance", docs/mutation-testing.md, "Adapters").
 * Only PostgreSQL has the capability; the other backends compose it from `userPrincipals` and
 * `checkPermission`, whose bound permissions the PermissionStore contract checks.
 */
import { expect } from "chai";
import { PostgresDatabase } from "../../src/adapters/postgres/postgres-database.js";
import { PostgresPermissionStore } from "../../src/adapters/postgres/postgres-permission-store.js";
import { AUTHENTICATED } from "../../src/domain/principals.js";
import { defaultBoundPermissions } from "../../src/domain/permissions.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { requireService } from "../support/services.js";

// The contract suites' database (its own object ids here): one database fewer to drop.
const DATABASE = "tessera_test";

describe("PostgreSQL principalsAndCheck with bound permissions", function () {
  requireService("postgresql");
  this.timeout(30_000);
  let database: PostgresDatabase;
  let permissions: PostgresPermissionStore;

  before(async () => {
    await ensureDatabase(DATABASE);
    database = new PostgresDatabase({ url: databaseUrl(DATABASE) });
    await database.migrate();
    permissions = new PostgresPermissionStore(database);
  });
  beforeEach(async () => {
    await permissions.flush();
  });
  after(async () => {
    await database?.close();
  });

  const check = (user: string, objectId: string, permission: string) =>
    permissions.principalsAndCheck(user, [user], objectId, permission, defaultBoundPermissions);

  it("grants read on a collection to a member of a group granted write on it", async () => {
    await permissions.addUserPrincipal("alice", "editors");
    await permissions.addPrincipalToAce("/bound_notes", "write", "editors");
    const read = await check("alice", "/bound_notes", "read");
    expect(read.allowed).to.equal(true);
    expect([...read.principals]).to.deep.equal(["editors"]);
    expect((await check("bob", "/bound_notes", "read")).allowed).to.equal(false);
  });

  it("grants read on a record to a user granted write on its collection, and write only through write", async () => {
    await permissions.addPrincipalToAce("/bound_tasks", "write", "alice");
    await permissions.addPrincipalToAce("/bound_tasks/t1", "read", "bob");
    expect((await check("alice", "/bound_tasks/t1", "read")).allowed).to.equal(true);
    expect((await check("alice", "/bound_tasks/t1", "write")).allowed).to.equal(true);
    expect((await check("bob", "/bound_tasks/t1", "read")).allowed).to.equal(true);
    expect((await check("bob", "/bound_tasks/t1", "write")).allowed).to.equal(false);
    expect((await check("bob", "/bound_tasks", "read")).allowed).to.equal(false);
  });

  it("grants through the groups of every authenticated user", async () => {
    await permissions.addUserPrincipal(AUTHENTICATED, "everybody_logged_in");
    await permissions.addPrincipalToAce("/bound_board", "write", "everybody_logged_in");
    const read = await check("carol", "/bound_board", "read");
    expect(read.allowed).to.equal(true);
    expect([...read.principals]).to.deep.equal(["everybody_logged_in"]);
  });
});
