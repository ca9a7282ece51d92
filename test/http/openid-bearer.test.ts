/**
 * OpenID Connect bearer tokens over HTTP, against two real providers (oidc-provider): user ids
 * `<policy>:<sub>`, groups from the token granting access to shared records, the live feed
 * opened with a bearer token, the `openid` capability, 401 for refused tokens and 503 (never
 * 500) while a provider cannot be reached.
 */
import { expect } from "chai";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { createServer } from "node:net";
import { importJWK, SignJWT } from "jose";
import { RESOURCES, signingKey, startProvider, type TestProvider } from "../support/openid-provider.js";
import { basic, startIniServer, type IniServer } from "../support/openid-server.js";
import { SseClient } from "../sync/sse-client.js";

const PEOPLE = { alice: { groups: ["editors"] }, bob: { groups: ["sales"] } };

/** A loopback port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("HTTP with OpenID Connect bearer tokens", function () {
  this.timeout(30000);
  let corp: TestProvider;
  let partner: TestProvider;
  let server: IniServer;
  let deadPort: number;
  const warnings: string[] = [];
  const bearer = (token: string) => `Bearer ${token}`;

  before(async () => {
    corp = await startProvider({ keys: [await signingKey("corp-1")], people: PEOPLE });
    partner = await startProvider({ keys: [await signingKey("partner-1")], people: PEOPLE });
    deadPort = await closedPort();
    server = await startIniServer(
      [
        "userid_hmac_secret = s3cret",
        "listen_port = 0",
        "resources = notes:user articles:shareable",
        "permission_backend = memory",
        "articles_create_principals = system.Authenticated",
        "cors_origins = https://app.example",
        "multiauth.policies = corp partner down basicauth",
        "multiauth.policy.basicauth.wanted = true",
        "multiauth.policy.corp.use = kinto.plugins.openid.OpenIDConnectPolicy",
        `multiauth.policy.corp.issuer = ${corp.issuer}`,
        "multiauth.policy.corp.client_id = tessera-admin",
        "multiauth.policy.corp.audience = tessera-api",
        "multiauth.policy.corp.groups_claim = groups",
        "multiauth.policy.partner.use = openid",
        `multiauth.policy.partner.issuer = ${partner.issuer}`,
        "multiauth.policy.partner.client_id = tessera-api",
        "multiauth.policy.down.use = openid",
        `multiauth.policy.down.issuer = http://127.0.0.1:${deadPort}`,
        "multiauth.policy.down.client_id = tessera-api",
        "multiauth.policy.down.header_type = Token",
        "multiauth.policy.down.provider_timeout_seconds = 1",
      ].join("\n"),
      warnings,
    );
  });
  after(async () => {
    await server.stop();
    await corp.stop();
    await partner.stop();
  });

  it("names the user <policy>:<sub>, per provider, with the token's groups among the principals", async () => {
    const fromCorp = await server.request("GET", "/v1/", { auth: bearer(await corp.accessToken("alice")) });
    expect(fromCorp.status).to.equal(200);
    expect(fromCorp.body.user.id).to.equal("corp:alice");
    expect(fromCorp.body.user.principals).to.include.members(["corp:alice", "group:editors", "system.Authenticated"]);
    const fromPartner = await server.request("GET", "/v1/", { auth: bearer(await partner.accessToken("alice")) });
    expect(fromPartner.body.user.id).to.equal("partner:alice");
    expect(fromPartner.body.user.principals).to.not.include("group:editors"); // partner has no groups_claim
  });

  it("lists every provider in the openid capability", async () => {
    const root = await server.request("GET", "/v1/");
    expect(root.body.capabilities.openid.providers).to.deep.equal([
      {
        name: "corp",
        issuer: corp.issuer,
        client_id: "tessera-admin",
        header_type: "Bearer",
        userid_field: "sub",
        audience: "tessera-api",
        groups_claim: "groups",
        discovery_url: `${corp.issuer}/.well-known/openid-configuration`,
      },
      {
        name: "partner",
        issuer: partner.issuer,
        client_id: "tessera-api",
        header_type: "Bearer",
        userid_field: "sub",
        audience: "tessera-api",
        discovery_url: `${partner.issuer}/.well-known/openid-configuration`,
      },
      {
        name: "down",
        issuer: `http://127.0.0.1:${deadPort}`,
        client_id: "tessera-api",
        header_type: "Token",
        userid_field: "sub",
        audience: "tessera-api",
        discovery_url: `http://127.0.0.1:${deadPort}/.well-known/openid-configuration`,
      },
    ]);
  });

  it("lets a group from the token read a record shared with group:<name>, and only that group", async () => {
    const writer = basic("writer:pw");
    const created = await server.request("POST", "/v1/articles", {
      auth: writer,
      body: { data: { title: "for editors" }, permissions: { read: ["group:editors"] } },
    });
    expect(created.status).to.equal(201);
    const path = `/v1/articles/${created.body.data.id}`;
    const alice = await server.request("GET", path, { auth: bearer(await corp.accessToken("alice")) });
    expect(alice.status).to.equal(200);
    expect(alice.body.data.title).to.equal("for editors");
    const bob = await server.request("GET", path, { auth: bearer(await corp.accessToken("bob")) });
    expect(bob.status).to.equal(403);
    const aliceElsewhere = await server.request("GET", path, { auth: bearer(await partner.accessToken("alice")) });
    expect(aliceElsewhere.status).to.equal(403);
    const listed = await server.request("GET", "/v1/articles", { auth: bearer(await corp.accessToken("alice")) });
    expect(listed.body.data.map((r: { id: string }) => r.id)).to.include(created.body.data.id);
  });

  it("expands a token's group through nested groups: a record shared with the group holding it is readable", async () => {
    const permissions = await server.running.container.getAsync(TOKENS.PermissionStore);
    await permissions.addUserPrincipal("group:editors", "group:staff");
    try {
      const created = await server.request("POST", "/v1/articles", {
        auth: basic("writer:pw"),
        body: { data: { title: "for staff" }, permissions: { read: ["group:staff"] } },
      });
      const path = `/v1/articles/${created.body.data.id}`;
      const alice = bearer(await corp.accessToken("alice"));
      expect((await server.request("GET", "/v1/", { auth: alice })).body.user.principals).to.include.members([
        "group:editors",
        "group:staff",
      ]);
      expect((await server.request("GET", path, { auth: alice })).status).to.equal(200);
      const listed = await server.request("GET", "/v1/articles", { auth: alice });
      expect(listed.body.data.map((r: { id: string }) => r.id)).to.include(created.body.data.id);
      expect((await server.request("GET", path, { auth: bearer(await corp.accessToken("bob")) })).status).to.equal(403);
      await permissions.removeUserPrincipal("group:editors", "group:staff");
      expect((await server.request("GET", path, { auth: alice })).status).to.equal(403);
    } finally {
      await permissions.removeUserPrincipal("group:editors", "group:staff");
    }
  });

  it("answers 401 with every challenge to a refused token where authentication is needed", async () => {
    const otherAudience = await corp.accessToken("alice", "other");
    for (const auth of [bearer(otherAudience), bearer("garbage"), bearer(`${(await corp.accessToken("alice")).slice(0, -4)}AAAA`)]) {
      const res = await server.request("GET", "/v1/notes", { auth });
      expect(res.status, auth.slice(0, 40)).to.equal(401);
      expect(res.body.errno).to.equal(104);
      expect(res.headers.get("www-authenticate")).to.include('Bearer realm="Realm"').and.include("Basic");
    }
  });

  it("answers 503 with Retry-After, never 500, while a provider's keys cannot be fetched", async () => {
    const res = await server.request("GET", "/v1/notes", { auth: "Token eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln" });
    // A JWT naming no issuer of this policy is refused without asking the (dead) provider.
    expect(res.status).to.equal(401);
    const opaque = await server.request("GET", "/v1/notes", { auth: "Token an-opaque-token-for-the-dead-provider" });
    expect(opaque.status).to.equal(503);
    expect(opaque.body.errno).to.equal(201);
    expect(opaque.headers.get("retry-after")).to.match(/^\d+$/);
    const others = await server.request("GET", "/v1/notes", { auth: bearer(await corp.accessToken("bob")) });
    expect(others.status).to.equal(200);
    expect(warnings.join("\n")).to.include("is not reachable yet").and.include("ECONNREFUSED");
  });

  describe("abuse", () => {
    it("many clients with invented key ids: all 401, the provider's keys fetched at most once more", async () => {
      const intruder = await signingKey("intruder");
      const key = await importJWK(intruder, "ES256");
      const exp = Math.floor(Date.now() / 1000) + 600;
      const tokens = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          new SignJWT({ iss: corp.issuer, aud: RESOURCES.tessera.audience, sub: `invented-${i}`, exp })
            .setProtectedHeader({ alg: "ES256", kid: `kid-${i}` })
            .sign(key),
        ),
      );
      const before = corp.count("/jwks");
      const statuses = await Promise.all(tokens.map(async (t) => (await server.request("GET", "/v1/notes", { auth: bearer(t) })).status));
      expect(new Set(statuses)).to.deep.equal(new Set([401]));
      expect(corp.count("/jwks") - before).to.be.at.most(1);
    });

    it("huge, odd and malformed Authorization values: 401 or 431, never a 500, never a provider request", async () => {
      const before = corp.requests.size === 0 ? 0 : [...corp.requests.values()].reduce((a, b) => a + b, 0);
      const values = [
        `Bearer ${"A".repeat(7000)}.${"B".repeat(100)}.${"C".repeat(100)}`,
        `Bearer ${"a".repeat(60_000)}`,
        "Bearer \u00ff\u00fe\u0080",
        "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.",
        "Bearer",
        "bearer  ",
      ];
      for (const auth of values) {
        const res = await server.request("GET", "/v1/notes", { auth });
        expect(res.status, auth.slice(0, 30)).to.be.oneOf([401, 431]);
      }
      expect([...corp.requests.values()].reduce((a, b) => a + b, 0)).to.equal(before);
    });

    it("a burst of invented opaque tokens: 401 or 503 (lookups bounded), never 500", async () => {
      const statuses = await Promise.all(
        Array.from(
          { length: 60 },
          async (_, i) => (await server.request("GET", "/v1/notes", { auth: bearer(`invented-opaque-token-${i}-xxxxxxxx`) })).status,
        ),
      );
      expect(
        statuses.every((s) => s === 401 || s === 503),
        statuses.join(),
      ).to.equal(true);
      expect(statuses).to.include(401);
    });
  });

  it("lets a page of an allowed origin send its bearer token (CORS preflight of the feed)", async () => {
    const preflight = await fetch(`${server.url}/v1/articles`, {
      method: "OPTIONS",
      headers: { Origin: "https://app.example", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization" },
    });
    expect(preflight.status).to.equal(200);
    expect(preflight.headers.get("access-control-allow-origin")).to.equal("https://app.example");
    expect(preflight.headers.get("access-control-allow-headers")?.toLowerCase()).to.include("authorization");
  });

  it("opens the live feed with a bearer token and streams what the token's group may read", async () => {
    const token = await corp.accessToken("alice");
    const feed = await SseClient.open(`${server.url}/v1/articles`, { headers: { Authorization: bearer(token) } });
    try {
      expect(feed.status).to.equal(200);
      expect(feed.headers.get("content-type")).to.match(/^text\/event-stream/);
      const created = await server.request("POST", "/v1/articles", {
        auth: basic("writer:pw"),
        body: { data: { title: "live for editors" }, permissions: { read: ["group:editors"] } },
      });
      const events = await feed.waitFor(1);
      expect(JSON.stringify(events[0]?.data)).to.include(created.body.data.id);
    } finally {
      await feed.close();
    }
    const refused = await SseClient.open(`${server.url}/v1/notes`, { headers: { Authorization: bearer("an-opaque-token-nobody-issued") } });
    expect(refused.status).to.equal(401);
  });
});
