/**
 * The `userinfo` switch against a real provider (oidc-provider): off, an opaque token yields no
 * user and costs not one userinfo request; its default, `auto`, is off once an audience is set
 * (JWT access tokens expected) and on without one, as in Kinto.
 */
import { expect } from "chai";
import { MemoryCache } from "../../src/adapters/memory/memory-cache.js";
import { OpenIdConnectPolicy } from "../../src/adapters/auth/openid/openid-connect-policy.js";
import { openIdSettings } from "../../src/adapters/auth/openid/openid-settings.js";
import type { RequestCredentials } from "../../src/application/ports/authentication-policy.js";
import { RESOURCES, signingKey, startProvider, type TestProvider } from "../support/openid-provider.js";

const AUDIENCE = RESOURCES.tessera.audience;

function from(clientAddress: string, token: string): RequestCredentials {
  return { clientAddress, header: (name) => (name === "authorization" ? `Bearer ${token}` : undefined) };
}

const invented = (i: number) => `invented-opaque-token-${i}-${Math.random().toString(36).slice(2)}`;

describe("userinfo on or off", function () {
  this.timeout(20000);
  let provider: TestProvider;
  const asked = () => provider.count("/me");

  function policy(options: Record<string, string> = {}): OpenIdConnectPolicy {
    const settings = openIdSettings("oidc", { issuer: provider.issuer, client_id: "tessera", ...options });
    return new OpenIdConnectPolicy(settings, { cache: new MemoryCache("s:"), hashKey: "k" });
  }

  before(async () => {
    provider = await startProvider({ keys: [await signingKey("k1")], people: { alice: {} } });
  });
  after(() => provider.stop());

  it("userinfo = false: not one request, even for a token the provider issued; JWTs still verified", async () => {
    const p = policy({ userinfo: "false" });
    const start = asked();
    for (let i = 0; i < 40; i += 1) expect(await p.identify(from(`192.0.2.${i}`, invented(i)))).to.equal(undefined);
    expect(await p.identify(from("198.51.100.20", await provider.opaqueToken("alice")))).to.equal(undefined);
    expect(asked() - start).to.equal(0);
    const jwt = await provider.accessToken("alice");
    expect(await policy({ userinfo: "false", audience: AUDIENCE }).identify(from("198.51.100.20", jwt))).to.deep.include({
      subject: "alice",
    });
  });

  it("by default once an audience is set (JWT access tokens expected); on without one, or when asked for", async () => {
    const start = asked();
    expect(await policy({ audience: AUDIENCE }).identify(from("198.51.100.20", await provider.opaqueToken("alice")))).to.equal(undefined);
    expect(asked() - start).to.equal(0);
    const cases: Record<string, string>[] = [
      {},
      { userinfo: "auto" },
      { audience: AUDIENCE, userinfo: "true" },
      { audience: AUDIENCE, userinfo: "TRUE" },
    ];
    for (const options of cases) {
      const identity = await policy(options).identify(from("198.51.100.20", await provider.opaqueToken("alice")));
      expect(identity, JSON.stringify(options)).to.deep.include({ subject: "alice" });
    }
    expect(asked() - start).to.equal(4);
  });
});
