/**
 * Reads create nothing (issue: every invented identity left state behind): reading a user
 * collection as an identity that never wrote keeps no per-scope state in the memory record store
 * and writes no `timestamps` row on PostgreSQL; the first write creates the collection's
 * timestamp, and every read before it answered the same ETag.
 */
import { expect } from "chai";
import { MemoryRecordStore } from "../../src/adapters/memory/memory-record-store.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { databaseUrl, ensureDatabase, withAdmin } from "../support/postgres.js";
import { requireService } from "../support/services.js";
import { startTestServer, type TestServer } from "../support/http.js";

/**
 * Each invented reader lists its notes; one in 50 also syncs with `_since` and asks for a record
 * it never wrote (the listing is the read that used to store the collection's timestamp).
 */
async function readAsInventedUsers(server: TestServer, count: number, tag: string): Promise<Set<string | null>> {
  const etags = new Set<string | null>();
  let next = 0;
  const reader = async () => {
    while (next < count) {
      const n = next++;
      const user = `${tag}-${n}:pw`;
      const list = await server.request("GET", "/v1/notes", { user });
      expect(list.status).to.equal(200);
      expect(list.body.data).to.deep.equal([]);
      etags.add(list.headers.get("etag"));
      if (n % 50 !== 0) continue;
      const since = await server.request("GET", "/v1/notes?_since=0", { user });
      expect(since.status).to.equal(200);
      expect((await server.request("GET", "/v1/notes/missing", { user })).status).to.equal(404);
    }
  };
  await Promise.all(Array.from({ length: 16 }, reader));
  return etags;
}

describe("Reads by invented identities create nothing", function () {
  describe("memory storage", function () {
    this.timeout(600_000);
    let server: TestServer;
    before(async () => {
      server = await startTestServer();
    });
    after(() => server?.stop());

    it("keeps no per-scope state for 1,000 readers that never wrote (50,000 at the service: invented-readers-at-scale)", async () => {
      const store = await server.running.container.getAsync(TOKENS.RecordStore);
      // The container hands out the store behind a timing proxy; the getter reads the real map.
      const scopes = () => (store as unknown as MemoryRecordStore).scopeCount;
      expect(scopes()).to.be.a("number");
      const before = scopes();
      const etags = await readAsInventedUsers(server, 1_000, "memory");
      expect(scopes(), "scopes held by the record store").to.equal(before);
      expect([...etags]).to.deep.equal(['"0"']);
      const created = await server.request("POST", "/v1/notes", { user: "writer:pw", body: { data: {} } });
      expect(created.status).to.equal(201);
      expect(scopes()).to.equal(before + 1);
    });
  });

  describe("PostgreSQL storage", function () {
    requireService("postgresql");
    this.timeout(120_000);
    const database = "tessera_invented_readers_test";
    let server: TestServer;
    const timestampRows = () =>
      withAdmin(databaseUrl(database), async (client) => Number((await client.query("SELECT count(*) AS n FROM timestamps")).rows[0].n));
    before(async () => {
      await ensureDatabase(database, true);
      const url = databaseUrl(database);
      server = await startTestServer({
        storage_backend: "postgresql",
        storage_url: url,
        permission_backend: "postgresql",
        permission_url: url,
      });
      await (await server.running.container.getAsync(TOKENS.Migrator)).migrate();
    });
    after(() => server?.stop());

    it("writes no timestamps row for 500 readers that never wrote; the first write creates one", async () => {
      expect(await timestampRows()).to.equal(0);
      const etags = await readAsInventedUsers(server, 500, "postgres");
      expect(await timestampRows(), "rows in timestamps after reads only").to.equal(0);
      expect([...etags]).to.deep.equal(['"0"']);
      const created = await server.request("POST", "/v1/notes", { user: "writer:pw", body: { data: {} } });
      expect(created.status).to.equal(201);
      expect(await timestampRows()).to.equal(1);
      const listed = await server.request("GET", "/v1/notes", { user: "writer:pw" });
      expect(listed.headers.get("etag")).to.equal(`"${created.body.data.last_modified}"`);
    });
  });
});
