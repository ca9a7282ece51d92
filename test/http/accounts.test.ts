/** Accounts over HTTP, as Kinto's accounts plugin answers: sign up, sign in, password changes, administrators. */
import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http.js";

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

  it("deletes an account: its password no longer signs in, and its id may be taken again", async () => {
    await signUp("alice", "pw-a");
    const deleted = await server.request("DELETE", "/v1/accounts/alice", { user: "alice:pw-a" });
    expect(deleted.status).to.equal(200);
    expect(deleted.body.data).to.deep.include({ id: "alice", deleted: true });
    expect((await server.request("GET", "/v1/", { user: "alice:pw-a" })).body.user).to.equal(undefined);
    expect((await signUp("alice", "pw-new")).status).to.equal(201);
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
