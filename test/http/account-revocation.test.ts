/**
 * Credentials die everywhere at once: a password change, an administrator's reset or a deletion
 * ends the event streams the old credential opened before the request answers (one server, on
 * every backend setup), and on two `serve` processes sharing PostgreSQL with the default memory
 * cache, the other process refuses the old password within the memo's bound (1 s) and ends its
 * streams before the change answers.
 */
import { expect } from "chai";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { permissionBackendSetups, postgresWithRedisSetup, type BackendSetup } from "../support/backend-setups.js";
import { startTestServer, type TestServer } from "../support/http.js";
import { startServerProcess, type ServerProcess } from "../support/server-process.js";
import { requireService } from "../support/services.js";
import { migratedDatabase, sharedPostgresSettings } from "../support/shared-postgres.js";
import { SseClient } from "../sync/sse-client.js";

const ACCOUNTS = { "multiauth.policies": "account", account_scrypt_cost: "4", account_write_principals: "account:admin" };
const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString("base64")}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether the stream was told to resync or was ended (what a revoked credential's stream must come to). */
function revoked(client: SseClient): boolean {
  return client.ended || client.events.some((e) => e.event === "resync");
}

const SETUPS: BackendSetup[] = [...permissionBackendSetups("account_revocation"), postgresWithRedisSetup("account_revocation")];

for (const setup of SETUPS) {
  describe(`revoked credentials end their streams [${setup.name}]`, function () {
    if (setup.service) requireService(setup.service);
    if ("alsoNeeds" in setup) requireService(setup.alsoNeeds as "postgresql");
    this.timeout(30_000);
    let server: TestServer;
    const clients: SseClient[] = [];
    const run = Date.now().toString(36);

    before(async () => {
      server = await startTestServer({ ...ACCOUNTS, ...(await setup.settings()) });
      await (await server.running.container.getAsync(TOKENS.Migrator)).migrate();
      for (const id of ["admin", "alice"]) await server.request("PUT", `/v1/accounts/${id}`, { body: { data: { password: `pw-${id}` } } });
    });
    after(async () => {
      for (const client of clients) await client.close();
      await server?.stop();
    });

    /** Bob (a fresh account) with a stream open on articles, shown to be live by a first shared record. */
    async function bobStreaming(bob: string): Promise<SseClient> {
      expect((await server.request("PUT", `/v1/accounts/${bob}`, { body: { data: { password: "pw-old" } } })).status).to.equal(201);
      const stream = await SseClient.open(`${server.url}/v1/articles`, { user: `${bob}:pw-old` });
      clients.push(stream);
      expect(stream.status).to.equal(200);
      await share(bob, "before");
      await stream.waitUntil(() => stream.events.some((e) => e.data.title === "before"));
      return stream;
    }

    const share = async (bob: string, title: string) => {
      const created = await server.request("POST", "/v1/articles", {
        user: "alice:pw-alice",
        body: { data: { title }, permissions: { read: [`account:${bob}`] } },
      });
      expect(created.status).to.equal(201);
    };

    /** After the revoking request answered, nothing shared with Bob reaches the old stream, and it ends. */
    async function expectEnded(stream: SseClient, bob: string): Promise<void> {
      await share(bob, "after");
      await stream.waitUntil(() => revoked(stream), 5000);
      await sleep(100);
      expect(stream.events.map((e) => e.data.title)).to.not.include("after");
    }

    it("ends them when the owner changes the password, and refuses the old password on reconnection", async () => {
      const bob = `bob-change-${run}`;
      const stream = await bobStreaming(bob);
      const changed = await server.request("PATCH", `/v1/accounts/${bob}`, {
        user: `${bob}:pw-old`,
        body: { data: { password: "pw-new" } },
      });
      expect(changed.status).to.equal(200);
      await expectEnded(stream, bob);
      const again = await SseClient.open(`${server.url}/v1/articles`, { user: `${bob}:pw-old` });
      clients.push(again);
      expect(again.status).to.equal(401);
    });

    it("ends them when an administrator resets the password", async () => {
      const bob = `bob-reset-${run}`;
      const stream = await bobStreaming(bob);
      const reset = await server.request("PUT", `/v1/accounts/${bob}`, {
        user: "admin:pw-admin",
        body: { data: { password: "pw-reset" } },
      });
      expect(reset.status).to.equal(200);
      await expectEnded(stream, bob);
    });

    it("ends them when the account is deleted", async () => {
      const bob = `bob-delete-${run}`;
      const stream = await bobStreaming(bob);
      expect((await server.request("DELETE", `/v1/accounts/${bob}`, { user: "admin:pw-admin" })).status).to.equal(200);
      await expectEnded(stream, bob);
    });

    it("keeps the streams of other users, and of the same user signed in with a password that still holds", async () => {
      const carol = `carol-${run}`;
      const stream = await bobStreaming(carol);
      const other = await bobStreaming(`dan-${run}`);
      const changed = await server.request("PATCH", `/v1/accounts/${carol}`, {
        user: `${carol}:pw-old`,
        body: { data: { password: "pw-new" } },
      });
      expect(changed.status).to.equal(200);
      await stream.waitUntil(() => revoked(stream), 5000);
      const fresh = await SseClient.open(`${server.url}/v1/articles`, { user: `${carol}:pw-new` });
      clients.push(fresh);
      await share(carol, "for the new password");
      await share(`dan-${run}`, "for dan");
      await fresh.waitUntil(() => fresh.events.some((e) => e.data.title === "for the new password"));
      await other.waitUntil(() => other.events.some((e) => e.data.title === "for dan"));
      expect(revoked(other)).to.equal(false);
    });
  });
}

describe("revoked credentials on two serve processes sharing PostgreSQL, with the default memory cache", function () {
  requireService("postgresql");
  this.timeout(60_000);
  let servers: ServerProcess[] = [];
  const clients: SseClient[] = [];
  const at = (index: 0 | 1): string => {
    const started = servers[index];
    if (!started) throw new Error(`server ${index} did not start`);
    return started.url;
  };
  const call = async (index: 0 | 1, method: string, path: string, user?: string, body?: unknown) => {
    const response = await fetch(`${at(index)}${path}`, {
      method,
      headers: { ...(user ? { Authorization: basic(user) } : {}), ...(body ? { "Content-Type": "application/json" } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Record<string, unknown> | undefined };
  };
  const signedInAs = async (index: 0 | 1, user: string) =>
    ((await call(index, "GET", "/v1/", user)).body?.user as { id: string } | undefined)?.id;

  before(async () => {
    const settings = {
      resources: "articles:shareable",
      ...sharedPostgresSettings(await migratedDatabase("tessera_account_revocation_processes_test", true)),
      userid_hmac_secret: "revocation-secret",
      articles_create_principals: "system.Authenticated",
      ...ACCOUNTS,
    };
    servers = await Promise.all([startServerProcess(settings), startServerProcess(settings)]);
    for (const id of ["admin", "alice", "eve", "mallory"])
      await call(0, "PUT", `/v1/accounts/${id}`, undefined, { data: { password: `pw-${id}` } });
  });
  after(async () => {
    for (const client of clients) await client.close();
    await Promise.all(servers.map((s) => s.stop()));
  });

  it("refuses on the other process an old password within 1 s of its change, however much it was used meanwhile", async () => {
    expect(await signedInAs(1, "alice:pw-alice")).to.equal("account:alice");
    const changed = await call(0, "PATCH", "/v1/accounts/alice", "alice:pw-alice", { data: { password: "pw-new" } });
    expect(changed.status).to.equal(200);
    const answered = Date.now();
    // Used all along on the other process (its memo's whole life): that must not keep the old password alive.
    for (let i = 0; i < 4; i += 1) {
      await signedInAs(1, "alice:pw-alice");
      await sleep(250);
    }
    await sleep(Math.max(0, answered + 1_000 - Date.now()));
    expect(await signedInAs(1, "alice:pw-alice")).to.equal(undefined);
    expect(await signedInAs(1, "alice:pw-new")).to.equal("account:alice");
  });

  it("refuses on the other process a deleted account's password within 1 s of the deletion", async () => {
    expect(await signedInAs(1, "mallory:pw-mallory")).to.equal("account:mallory");
    expect((await call(0, "DELETE", "/v1/accounts/mallory", "admin:pw-admin")).status).to.equal(200);
    await sleep(1_000);
    expect(await signedInAs(1, "mallory:pw-mallory")).to.equal(undefined);
  });

  it("ends on the other process the streams of a password reset there, before the reset answers", async () => {
    const stream = await SseClient.open(`${at(1)}/v1/articles`, { user: "eve:pw-eve" });
    clients.push(stream);
    expect(stream.status).to.equal(200);
    const before = await call(0, "POST", "/v1/articles", "alice:pw-new", {
      data: { title: "before" },
      permissions: { read: ["account:eve"] },
    });
    expect(before.status).to.equal(201);
    await stream.waitUntil(() => stream.events.some((e) => e.data.title === "before"));
    const reset = await call(0, "PUT", "/v1/accounts/eve", "admin:pw-admin", { data: { password: "pw-reset" } });
    expect(reset.status).to.equal(200);
    const after = await call(0, "POST", "/v1/articles", "alice:pw-new", {
      data: { title: "after" },
      permissions: { read: ["account:eve"] },
    });
    expect(after.status).to.equal(201);
    await stream.waitUntil(() => revoked(stream), 10_000);
    await sleep(200);
    expect(stream.events.map((e) => e.data.title)).to.not.include("after");
  });
});
