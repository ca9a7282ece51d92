/**
 * A process on a database that refuses writes (a hot standby; here its stand-in, the database's
 * `default_transaction_read_only = on`) serves every read, never half of them: GET by id,
 * listings, `_since` and a collection never written all answer 200, the heartbeat says healthy,
 * and a write is refused with 503. Before, reading a collection's timestamp inserted its counter
 * row, so every listing failed there while GET by id worked and the heartbeat answered 200.
 */
import { expect } from "chai";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { databaseUrl, ensureDatabase, withAdmin } from "../support/postgres.js";
import { POSTGRES_URL, requireService } from "../support/services.js";
import { startTestServer, type TestServer } from "../support/http.js";
import { testDatabaseName } from "../support/postgres.js";

const ALICE = "alice:pw";
const DATABASE = "tessera_read_only_test";

describe("A database that refuses writes (standby stand-in)", function () {
  requireService("postgresql");
  this.timeout(60_000);
  let server: TestServer | undefined;
  let url: string;
  const start = () =>
    startTestServer({ storage_backend: "postgresql", storage_url: url, permission_backend: "postgresql", permission_url: url });

  before(async () => {
    await ensureDatabase(DATABASE, true);
    url = databaseUrl(DATABASE);
  });
  after(async () => {
    await server?.stop();
    await withAdmin(POSTGRES_URL, (admin) =>
      admin.query(`ALTER DATABASE "${testDatabaseName(DATABASE)}" RESET default_transaction_read_only`),
    );
  });

  it("serves GET, listings and _since, says it is healthy, and refuses writes with 503", async () => {
    const writable = await start();
    await (await writable.running.container.getAsync(TOKENS.Migrator)).migrate();
    const first = await writable.request("POST", "/v1/articles", { user: ALICE, body: { data: { n: 1 } } });
    const second = await writable.request("POST", "/v1/articles", { user: ALICE, body: { data: { n: 2 } } });
    expect([first.status, second.status]).to.deep.equal([201, 201]);
    await writable.stop();
    await withAdmin(POSTGRES_URL, (admin) =>
      admin.query(`ALTER DATABASE "${testDatabaseName(DATABASE)}" SET default_transaction_read_only = on`),
    );

    server = await start();
    const byId = await server.request("GET", `/v1/articles/${first.body.data.id}`, { user: ALICE });
    expect(byId.status).to.equal(200);
    const listing = await server.request("GET", "/v1/articles", { user: ALICE });
    expect(listing.status).to.equal(200);
    expect(listing.body.data.map((r: { n: number }) => r.n).sort()).to.deep.equal([1, 2]);
    expect(listing.headers.get("etag")).to.equal(`"${second.body.data.last_modified}"`);
    const since = await server.request("GET", `/v1/articles?_since=${first.body.data.last_modified}`, { user: ALICE });
    expect(since.status).to.equal(200);
    expect(since.body.data.map((r: { n: number }) => r.n)).to.deep.equal([2]);
    const unwritten = await server.request("GET", "/v1/notes", { user: "someone-new:pw" });
    expect(unwritten.status).to.equal(200);
    expect(unwritten.headers.get("etag")).to.equal('"0"');
    expect((await server.request("GET", "/v1/__heartbeat__")).status).to.equal(200);
    const write = await server.request("POST", "/v1/articles", { user: ALICE, body: { data: { n: 3 } } });
    expect(write.status).to.equal(503);
  });
});
