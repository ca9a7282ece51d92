/**
 * The OpenID Connect policy against a real provider (oidc-provider on a loopback port): what it
 * accepts, what it refuses, how it follows key rotation, and how little it asks the provider.
 */
import { expect } from "chai";
import { base64url, importJWK, SignJWT, decodeJwt, decodeProtectedHeader, type JWK } from "jose";
import { Redis } from "ioredis";
import { createMemoryCacheStore, MemoryCache } from "../../src/adapters/memory/memory-cache.js";
import { RedisCache } from "../../src/adapters/redis/redis-cache.js";
import type { Cache } from "../../src/application/ports/cache.js";
import { OpenIdConnectPolicy } from "../../src/adapters/auth/openid/openid-connect-policy.js";
import { openIdSettings } from "../../src/adapters/auth/openid/openid-settings.js";
import { BackendError } from "../../src/domain/errors.js";
import { REDIS_URL, requireService } from "../support/services.js";
import { RESOURCES, signingKey, startProvider, type TestProvider } from "../support/openid-provider.js";

const PEOPLE = { alice: { groups: ["editors", "/staff/paris"] }, bob: {} };
const AUDIENCE = RESOURCES.tessera.audience;
/** With `audience` set, userinfo is off unless asked for. */
const USERINFO = { userinfo: "true" };

function bearer(token: string) {
  return { header: (name: string) => (name === "authorization" ? `Bearer ${token}` : undefined) };
}

/** A token signed with one of the provider's own private keys, with the claims a test needs. */
async function signed(key: JWK, claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid: key.kid, ...header }).sign(await importJWK(key, "ES256"));
}

describe("OpenID Connect policy against a real provider", function () {
  this.timeout(20000);
  let key1: JWK;
  let provider: TestProvider;
  const store = createMemoryCacheStore();
  const policies: OpenIdConnectPolicy[] = [];

  function policy(
    extra: Record<string, string> = {},
    now?: () => number,
    issuer = provider.issuer,
    cache: Cache = new MemoryCache("t:", undefined, store),
  ): OpenIdConnectPolicy {
    const settings = openIdSettings("oidc", { issuer, client_id: "tessera", audience: AUDIENCE, groups_claim: "groups", ...extra });
    const created = new OpenIdConnectPolicy(settings, { cache, hashKey: "k", now });
    policies.push(created);
    return created;
  }

  before(async () => {
    key1 = await signingKey("key-1");
    provider = await startProvider({ keys: [key1], people: PEOPLE });
  });
  after(() => provider.stop());

  describe("accepts", () => {
    it("a token the provider issued: the subject and the groups claim as group: principals", async () => {
      const token = await provider.accessToken("alice");
      const identity = await policy().identify(bearer(token));
      expect(identity).to.deep.equal({ subject: "alice", groups: ["group:editors", "group:/staff/paris"] });
      expect(await policy().authenticate(bearer(token))).to.deep.equal({
        userId: "alice",
        principals: ["group:editors", "group:/staff/paris"],
      });
    });

    it("another claim as user id with userid_field, and no groups without groups_claim", async () => {
      const token = await provider.accessToken("bob");
      expect(await policy({ userid_field: "client_id", groups_claim: "" }).identify(bearer(token))).to.deep.equal({
        subject: "bob",
        groups: [],
      });
    });

    it("its own header type only (header_type), case-insensitive as HTTP schemes are", async () => {
      const token = await provider.accessToken("bob");
      const p = policy({ header_type: "Token" });
      expect(await p.identify(bearer(token))).to.equal(undefined);
      expect(await p.identify({ header: () => `token ${token}` })).to.deep.include({ subject: "bob" });
    });

    it("a token just expired or not yet valid within the clock skew, not beyond it", async () => {
      const token = await provider.accessToken("bob", "shortLived");
      const exp = decodeJwt(token).exp ?? 0;
      const at = (seconds: number) => () => seconds * 1000;
      expect(await policy({ clock_skew_seconds: "5" }, at(exp + 3)).identify(bearer(token))).to.deep.include({ subject: "bob" });
      expect(await policy({ clock_skew_seconds: "5" }, at(exp + 6)).identify(bearer(token))).to.equal(undefined);
      expect(await policy({ clock_skew_seconds: "0" }, at(exp + 1)).identify(bearer(token))).to.equal(undefined);

      const now = Math.floor(Date.now() / 1000);
      const early = await signed(key1, { iss: provider.issuer, aud: AUDIENCE, sub: "carol", exp: now + 600, nbf: now + 20 });
      expect(await policy({ clock_skew_seconds: "30" }).identify(bearer(early))).to.deep.include({ subject: "carol" });
      expect(await policy({ clock_skew_seconds: "5" }).identify(bearer(early))).to.equal(undefined);
    });
  });

  describe("refuses", () => {
    const now = () => Math.floor(Date.now() / 1000);

    it("an expired token the provider issued", async () => {
      const token = await provider.accessToken("bob", "shortLived");
      const p = policy({ clock_skew_seconds: "0" });
      await new Promise((resolve) => setTimeout(resolve, 2100));
      expect(await p.identify(bearer(token))).to.equal(undefined);
    });

    it("a token issued for another audience", async () => {
      const token = await provider.accessToken("alice", "other");
      expect(decodeJwt(token).aud).to.equal(RESOURCES.other.audience);
      expect(await policy().identify(bearer(token))).to.equal(undefined);
    });

    it("a token of another issuer, even signed with the same keys, without asking anyone", async () => {
      const impostor = await startProvider({ keys: [key1], people: PEOPLE });
      try {
        const token = await impostor.accessToken("alice");
        const p = policy();
        const before = provider.count("/jwks");
        expect(await p.identify(bearer(token))).to.equal(undefined);
        expect(provider.count("/jwks")).to.equal(before);
        expect(impostor.count("/jwks")).to.equal(0);
      } finally {
        await impostor.stop();
      }
    });

    it("a tampered token: claims changed, or signature changed", async () => {
      const token = await provider.accessToken("bob");
      const [header, payload, signature] = token.split(".") as [string, string, string];
      const claims = { ...decodeJwt(token), sub: "alice", groups: ["admins"] };
      const forgedClaims = `${header}.${base64url.encode(JSON.stringify(claims))}.${signature}`;
      const sig = Buffer.from(signature, "base64url");
      sig[10] = (sig[10] ?? 0) ^ 1;
      const forgedSignature = `${header}.${payload}.${sig.toString("base64url")}`;
      const p = policy();
      expect(await p.identify(bearer(token))).to.deep.include({ subject: "bob" });
      expect(await p.identify(bearer(forgedClaims))).to.equal(undefined);
      expect(await p.identify(bearer(forgedSignature))).to.equal(undefined);
    });

    it("a token signed with a key the provider never published", async () => {
      const intruder = await signingKey("intruder");
      const token = await signed(intruder, { iss: provider.issuer, aud: AUDIENCE, sub: "alice", exp: now() + 600 });
      const sameKid = await signed({ ...intruder, kid: "key-1" }, { iss: provider.issuer, aud: AUDIENCE, sub: "alice", exp: now() + 600 });
      const p = policy();
      expect(await p.identify(bearer(token))).to.equal(undefined);
      expect(await p.identify(bearer(sameKid))).to.equal(undefined);
    });

    it("alg none, and HS256 keyed with the provider's public key", async () => {
      const claims = { iss: provider.issuer, aud: AUDIENCE, sub: "alice", exp: now() + 600 };
      const unsigned = `${base64url.encode(JSON.stringify({ alg: "none", kid: "key-1" }))}.${base64url.encode(JSON.stringify(claims))}.`;
      const { d: _d, ...publicJwk } = key1;
      const jwks = (await (await fetch(`${provider.issuer}/jwks`)).json()) as { keys: JWK[] };
      let confused = 0;
      const p = policy();
      for (const secret of [JSON.stringify(publicJwk), JSON.stringify(jwks.keys[0]), publicJwk.x ?? ""]) {
        const hs = await new SignJWT(claims).setProtectedHeader({ alg: "HS256", kid: "key-1" }).sign(new TextEncoder().encode(secret));
        if ((await p.identify(bearer(hs))) !== undefined) confused += 1;
      }
      expect(await p.identify(bearer(unsigned))).to.equal(undefined);
      expect(confused).to.equal(0);
    });

    it("a token without expiry, or without the user id claim", async () => {
      const p = policy();
      const noExp = await signed(key1, { iss: provider.issuer, aud: AUDIENCE, sub: "alice" });
      const noSub = await signed(key1, { iss: provider.issuer, aud: AUDIENCE, exp: now() + 600 });
      const valid = await signed(key1, { iss: provider.issuer, aud: AUDIENCE, sub: "alice", exp: now() + 600 });
      expect(await p.identify(bearer(valid))).to.deep.include({ subject: "alice" });
      expect(await p.identify(bearer(noExp))).to.equal(undefined);
      expect(await p.identify(bearer(noSub))).to.equal(undefined);
    });

    it("garbage and huge values without a single request to the provider", async () => {
      const p = policy();
      const before = [...provider.requests.values()].reduce((a, b) => a + b, 0);
      const values = [
        "Bearer",
        "Bearer ",
        "Bearer a.b.c",
        "Bearer ....",
        "Bearer ~~~~~~~~~~~~~~~~~~~~~~~~~",
        "Bearer abc",
        "Bearer e30.e30.",
        `Bearer ${"x".repeat(100_000)}`,
        `Bearer ${"eyJ".repeat(5000)}.e30.e30`,
        "Bearer \u0000\u00ff\uffff",
        'Bearer "quoted"',
        "Basic YWxpY2U6cHc=",
      ];
      for (const value of values) expect(await p.identify({ header: () => value }), value.slice(0, 30)).to.equal(undefined);
      expect([...provider.requests.values()].reduce((a, b) => a + b, 0)).to.equal(before);
    });
  });

  describe("keys", () => {
    it("follows a key rotation at the provider without a restart", async () => {
      let rotated: TestProvider | undefined;
      const p = policy({ jwks_cooldown_seconds: "0" });
      const old = await provider.accessToken("alice");
      expect(await p.identify(bearer(old))).to.deep.include({ subject: "alice" });
      const key2 = await signingKey("key-2");
      const port = provider.port;
      await provider.stop();
      try {
        rotated = await startProvider({ keys: [key2, key1], people: PEOPLE, port });
        const fresh = await rotated.accessToken("alice");
        expect(decodeProtectedHeader(fresh).kid).to.equal("key-2");
        expect(await p.identify(bearer(fresh))).to.deep.include({ subject: "alice" });
        expect(rotated.count("/jwks")).to.equal(1);
        expect(await p.identify(bearer(old))).to.deep.include({ subject: "alice" });
      } finally {
        await rotated?.stop();
        provider = await startProvider({ keys: [key1], people: PEOPLE, port });
      }
    });

    it("fetches the keys again once they are older than jwks_max_age_seconds, old keys serving meanwhile", async () => {
      let clock = Date.now();
      const p = policy({ jwks_max_age_seconds: "60" }, () => clock);
      const token = await provider.accessToken("alice");
      const start = provider.count("/jwks");
      expect(await p.identify(bearer(token))).to.deep.include({ subject: "alice" });
      expect(provider.count("/jwks")).to.equal(start + 1);
      const other = await provider.accessToken("bob");
      clock += 61_000;
      expect(await p.identify(bearer(other))).to.deep.include({ subject: "bob" });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(provider.count("/jwks")).to.equal(start + 2);
    });

    it("is not made to hammer the provider by invented kids: one fetch per cooldown", async () => {
      let clock = Date.now();
      const p = policy({ jwks_cooldown_seconds: "30" }, () => clock);
      expect(await p.identify(bearer(await provider.accessToken("alice")))).to.deep.include({ subject: "alice" });
      const start = provider.count("/jwks");
      const intruder = await signingKey("x");
      const tokens = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          signed(
            { ...intruder, kid: `invented-${i}` },
            { iss: provider.issuer, aud: AUDIENCE, sub: "alice", exp: Math.floor(clock / 1000) + 600 },
          ),
        ),
      );
      clock += 31_000;
      const verdicts = await Promise.all(tokens.map((t) => p.identify(bearer(t))));
      expect(verdicts.every((v) => v === undefined)).to.equal(true);
      expect(provider.count("/jwks") - start).to.equal(1);
      for (const token of tokens.slice(0, 50)) expect(await p.identify(bearer(token))).to.equal(undefined);
      expect(provider.count("/jwks") - start).to.equal(1);
      clock += 31_000;
      expect(await p.identify(bearer(tokens[0] ?? ""))).to.equal(undefined);
      expect(provider.count("/jwks") - start).to.equal(2);
    });
  });

  describe("opaque tokens", () => {
    it("asks the userinfo endpoint once, then the shared cache, keyed by a hash, never the token", async () => {
      const token = await provider.opaqueToken("alice");
      expect(token.split(".")).to.have.length(1);
      const start = provider.count("/me");
      expect(await policy(USERINFO).identify(bearer(token))).to.deep.equal({
        subject: "alice",
        groups: ["group:editors", "group:/staff/paris"],
      });
      expect(await policy(USERINFO).identify(bearer(token))).to.deep.equal({
        subject: "alice",
        groups: ["group:editors", "group:/staff/paris"],
      });
      expect(provider.count("/me") - start).to.equal(1);
      const stored = JSON.stringify([...store.keys()]) + JSON.stringify([...store.values()]);
      expect(stored).to.not.include(token);
    });

    it("refuses a token the provider does not know, asking it once per cache period", async () => {
      const p = policy(USERINFO);
      const start = provider.count("/me");
      expect(await p.identify(bearer("not-a-token-the-provider-issued"))).to.equal(undefined);
      expect(await p.identify(bearer("not-a-token-the-provider-issued"))).to.equal(undefined);
      expect(provider.count("/me") - start).to.equal(1);
    });
  });

  describe("opaque tokens with the Redis cache backend", () => {
    requireService("redis");
    const prefix = `tessera-test:${process.pid}-${Date.now().toString(36)}:openid:`;
    let caches: RedisCache[] = [];
    after(async () => {
      for (const cache of caches) await cache.flush();
      for (const cache of caches) await cache.close();
    });

    it("shares a userinfo answer between processes through Redis, under a hash of the token", async () => {
      caches = [new RedisCache({ url: REDIS_URL, prefix }), new RedisCache({ url: REDIS_URL, prefix })];
      const token = await provider.opaqueToken("alice");
      const start = provider.count("/me");
      const [first, second] = caches.map((cache) => policy(USERINFO, undefined, provider.issuer, cache));
      expect(await first?.identify(bearer(token))).to.deep.include({ subject: "alice" });
      expect(await second?.identify(bearer(token))).to.deep.include({ subject: "alice" });
      expect(provider.count("/me") - start).to.equal(1);
      const redis = new Redis(REDIS_URL);
      try {
        const keys = await redis.keys(`${prefix}*`);
        expect(keys).to.have.length(1);
        expect(keys[0]).to.match(/userinfo:[0-9a-f]{64}$/);
        expect(keys.join() + (await redis.get(keys[0] ?? ""))).to.not.include(token);
        expect(await redis.ttl(keys[0] ?? "")).to.be.within(1, 300);
      } finally {
        redis.disconnect();
      }
    });
  });

  describe("a discovery document naming another issuer", () => {
    it("is not used: tokens claiming the configured issuer get a BackendError (503), not a verdict", async () => {
      const configured = `${provider.issuer}/`; // the document at this address names the issuer without the slash
      const token = await signed(key1, { iss: configured, aud: AUDIENCE, sub: "alice", exp: Math.floor(Date.now() / 1000) + 600 });
      const failure = await policy({}, undefined, configured)
        .identify(bearer(token))
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(failure).to.be.instanceOf(BackendError);
      expect(String((failure as BackendError).cause)).to.include("discovery names issuer");
    });
  });

  describe("an unreachable provider", () => {
    it("fails with a BackendError (503), then serves once the provider answers", async () => {
      const port = provider.port;
      const token = await provider.accessToken("alice");
      await provider.stop();
      const p = policy({ jwks_cooldown_seconds: "0", provider_timeout_seconds: "1" });
      try {
        const failure = await p.identify(bearer(token)).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(failure).to.be.instanceOf(BackendError);
        expect((failure as BackendError).backend).to.equal("openid:oidc");
      } finally {
        provider = await startProvider({ keys: [key1], people: PEOPLE, port });
      }
      expect(await p.identify(bearer(token))).to.deep.include({ subject: "alice" });
    });
  });
});
