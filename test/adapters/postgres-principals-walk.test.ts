/**
 * The fast path of the PostgreSQL statements that read a caller's principals (the record read with
 * its ACL, principalsAndCheck): a caller whose stored principals hold no further link is answered
 * by one statement without the recursive walk; a caller whose group is itself in a group still
 * gets the outer group, and what it grants, through a second statement that walks.
 */
import { expect } from "chai";
import { PostgresPermissionStore } from "../../src/adapters/postgres/postgres-permission-store.js";
import { PostgresRecordStore } from "../../src/adapters/postgres/postgres-record-store.js";
import { PostgresRecordWithAclReader } from "../../src/adapters/postgres/postgres-record-with-acl-reader.js";
import { AUTHENTICATED } from "../../src/domain/principals.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { RecordingDatabase } from "../support/recording-database.js";
import { requireService } from "../support/services.js";

const DATABASE = "tessera_principals_walk_test";
const scope = { collection: "articles", parentId: "" };
const read = (id: string, principalsOf: string | undefined) => ({ objectId: `/articles/${id}`, permissions: ["read"], principalsOf });
const sorted = (set: ReadonlySet<string> | undefined): string[] | undefined => set && [...set].sort();

describe("PostgreSQL principals: one statement unless the caller's groups lead further", function () {
  requireService("postgresql");
  this.timeout(20_000);
  const database = new RecordingDatabase({ url: databaseUrl(DATABASE), poolSize: 4 });
  const records = new PostgresRecordStore(database);
  const permissions = new PostgresPermissionStore(database, 3);
  const reader = new PostgresRecordWithAclReader(database, 3);

  before(async () => {
    await ensureDatabase(DATABASE, true);
    await database.migrate();
  });
  beforeEach(async () => {
    await records.flush();
    await permissions.flush();
    // nested → group:inner → group:outer → group:top (depth 3) → group:beyond (depth 4, past the bound).
    for (const [member, group] of [
      ["nested", "group:inner"],
      ["group:inner", "group:outer"],
      ["group:outer", "group:top"],
      ["group:top", "group:beyond"],
      ["flat", "group:flat"],
      [AUTHENTICATED, "group:everybody"],
    ] as const)
      await permissions.addUserPrincipal(member, group);
    await records.create(scope, "for-outer", { n: 1 });
    await permissions.replaceObjectPermissions("/articles/for-outer", { read: ["group:outer"] });
  });
  after(() => database.close());

  const nested = ["group:everybody", "group:inner", "group:outer", "group:top"];

  it("walks for a caller whose group is itself in a group, up to the bound", async () => {
    const check = await permissions.principalsAndCheck("nested", ["nested"], "/articles/for-outer", "read");
    expect(check.allowed).to.equal(true);
    expect(sorted(check.principals)).to.deep.equal(nested);
    expect(sorted((await reader.getWithAcl(scope, "for-outer", read("for-outer", "nested"))).principals)).to.deep.equal(nested);
  });

  it("walks only for the readers of a burst whose groups lead further", async () => {
    const burst = await Promise.all(
      ["flat", "nested", undefined, "nobody", "nested"].map((user) => reader.getWithAcl(scope, "for-outer", read("for-outer", user))),
    );
    expect(burst.map((r) => sorted(r.principals))).to.deep.equal([
      ["group:everybody", "group:flat"],
      nested,
      undefined,
      ["group:everybody"],
      nested,
    ]);
    expect(burst.every((r) => r.record?.id === "for-outer" && sorted(r.acl["read"])?.join() === "group:outer")).to.equal(true);
  });

  it("answers a caller whose groups lead nowhere with one statement", async () => {
    database.sent.length = 0;
    const check = await permissions.principalsAndCheck("flat", ["flat"], "/articles/for-outer", "read");
    expect([check.allowed, sorted(check.principals)]).to.deep.equal([false, ["group:everybody", "group:flat"]]);
    await reader.getWithAcl(scope, "for-outer", read("for-outer", "flat"));
    expect(database.sent.length).to.equal(2);
    expect(database.sent.some((s) => /RECURSIVE/.test(s.text))).to.equal(false);
  });
});
