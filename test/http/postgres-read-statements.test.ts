/**
 * One round trip per read: a granted GET of a shareable record on PostgreSQL, with storage and
 * permissions in one database, sends exactly one statement (record, ACL and the caller's extra
 * principals together); a refusal adds only the check of grants bound on the collection. With the
 * permissions in another database the read takes the separate lookups, which the count also shows.
 * A restricted listing sends three: principals with the collection-level check, the collection's
 * timestamp, and the page.
 * Statements are counted at the driver (every pg client's `query`), in this process.
 */
import { expect } from "chai";
import pg from "pg";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { startTestServer, userId, type TestServer } from "../support/http.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { requireService } from "../support/services.js";
import { flushStorage } from "../support/storage-reset.js";

const DATABASE = "tessera_read_statements_test";
const PERMISSIONS_DATABASE = "tessera_read_statements_acl_test";

/** The statements sent while `work` runs (the server runs in this process, alone on its pools). */
async function statementsDuring(work: () => Promise<unknown>): Promise<number> {
  const prototype = pg.Client.prototype as unknown as { query: (this: pg.Client, ...args: unknown[]) => unknown };
  const original = prototype.query;
  let count = 0;
  prototype.query = function (this: pg.Client, ...args: unknown[]) {
    count += 1;
    return original.apply(this, args);
  };
  try {
    await work();
  } finally {
    prototype.query = original;
  }
  return count;
}

async function serverOn(permissionDatabase: string): Promise<TestServer> {
  const server = await startTestServer({
    storage_backend: "postgresql",
    storage_url: databaseUrl(DATABASE),
    permission_backend: "postgresql",
    permission_url: databaseUrl(permissionDatabase),
  });
  await (await server.running.container.getAsync(TOKENS.Migrator)).migrate();
  await flushStorage(server.running.container);
  await (await server.running.container.getAsync(TOKENS.PermissionStore)).flush();
  return server;
}

describe("statements per GET on PostgreSQL", function () {
  requireService("postgresql");
  this.timeout(20_000);
  const bob = userId("bob:pw");

  before(async () => {
    await ensureDatabase(DATABASE);
    await ensureDatabase(PERMISSIONS_DATABASE);
  });

  /** Each GET's status and statement count; the record's set-up and a warm-up read first. */
  async function readsOn(server: TestServer): Promise<string[]> {
    await server.request("PUT", "/v1/articles/a1", {
      user: "alice:pw",
      body: { data: { title: "t" }, permissions: { read: ["group:readers"] } },
    });
    await (await server.running.container.getAsync(TOKENS.PermissionStore)).addUserPrincipal(bob, "group:readers");
    await server.request("GET", "/v1/articles/a1", { user: "alice:pw" });
    const reads: [string, string | undefined][] = [
      ["/v1/articles/a1", "alice:pw"], // the writer: 200 with the ACL
      ["/v1/articles/a1", "bob:pw"], // a reader through a group: 200
      // Refusals ask the permission backend once more, for grants bound on the collection.
      ["/v1/articles/a1", "carol:pw"], // no grant: 403
      ["/v1/articles/a1", undefined], // anonymous: 401
      ["/v1/articles/missing", "alice:pw"], // no record, no grant: 403
    ];
    const seen: string[] = [];
    for (const [path, user] of reads) {
      let status = 0;
      const statements = await statementsDuring(async () => {
        status = (await server.request("GET", path, user ? { user } : {})).status;
      });
      seen.push(`${status}:${statements}`);
    }
    return seen;
  }

  it("sends one statement when storage and permissions share the database", async () => {
    const server = await serverOn(DATABASE);
    try {
      expect(await readsOn(server)).to.deep.equal(["200:1", "200:1", "403:2", "401:2", "403:2"]);
    } finally {
      await server.stop();
    }
  });

  it("lists what a caller may read in three statements: principals and the collection check together, timestamp, page", async () => {
    const server = await serverOn(DATABASE);
    try {
      await readsOn(server);
      let answer: { status: number; body: { data?: unknown[] } } | undefined;
      const statements = await statementsDuring(async () => {
        answer = await server.request("GET", "/v1/articles", { user: "bob:pw" });
      });
      expect(answer?.status).to.equal(200);
      expect(answer?.body.data).to.have.length(1);
      expect(statements).to.equal(3);
    } finally {
      await server.stop();
    }
  });

  it("reads record, ACL and principals apart when the permissions live in another database", async () => {
    const server = await serverOn(PERMISSIONS_DATABASE);
    try {
      // Record, ACL and principals (none to read for an anonymous caller), then the refusals' check.
      expect(await readsOn(server)).to.deep.equal(["200:3", "200:3", "403:4", "401:3", "403:4"]);
    } finally {
      await server.stop();
    }
  });
});
