/**
 * What opaque tokens may cost the provider, counted at a real one (oidc-provider): per client
 * address, at most the budget of refused lookups per window and a share of the concurrent
 * lookups, while tokens the provider accepts cost nothing of the budget.
 */
import { expect } from "chai";
import { MemoryCache } from "../../src/adapters/memory/memory-cache.js";
import { OpenIdConnectPolicy } from "../../src/adapters/auth/openid/openid-connect-policy.js";
import { openIdSettings } from "../../src/adapters/auth/openid/openid-settings.js";
import type { RequestCredentials } from "../../src/application/ports/authentication-policy.js";
import { BackendError } from "../../src/domain/errors.js";
import { signingKey, startProvider, type TestProvider } from "../support/openid-provider.js";

/** The documented defaults (docs/authentication.md): refused lookups per address per minute, slots per address. */
const BUDGET = 10;
const WINDOW_MS = 60_000;
const SLOTS_PER_ADDRESS = 4;

const ATTACKER = "203.0.113.7";
const NEIGHBOUR = "198.51.100.20";

function from(clientAddress: string, token: string): RequestCredentials {
  return { clientAddress, header: (name) => (name === "authorization" ? `Bearer ${token}` : undefined) };
}

const invented = (i: number) => `invented-opaque-token-${i}-${Math.random().toString(36).slice(2)}`;

describe("userinfo lookups of opaque tokens: what they may cost", function () {
  this.timeout(20000);
  let provider: TestProvider;
  let clock = Date.now();
  const asked = () => provider.count("/me");

  function policy(options: Record<string, string> = {}): OpenIdConnectPolicy {
    const settings = openIdSettings("oidc", { issuer: provider.issuer, client_id: "tessera", groups_claim: "groups", ...options });
    return new OpenIdConnectPolicy(settings, { cache: new MemoryCache("u:"), hashKey: "k", now: () => clock });
  }

  before(async () => {
    provider = await startProvider({ keys: [await signingKey("k1")], people: { alice: { groups: ["editors"] }, bob: {} } });
  });
  after(() => provider.stop());

  it("40 invented tokens from one address: the budget's number of requests, then none until the window ends", async () => {
    const p = policy();
    const start = asked();
    for (let i = 0; i < 40; i += 1) expect(await p.identify(from(ATTACKER, invented(i)))).to.equal(undefined);
    expect(asked() - start).to.equal(BUDGET);

    // Another address has a budget of its own.
    expect(await p.identify(from(NEIGHBOUR, await provider.opaqueToken("alice")))).to.deep.include({ subject: "alice" });
    expect(asked() - start).to.equal(BUDGET + 1);

    // The spent address is refused unasked, real token included, until its window ends; the refusal is not remembered.
    const bobs = await provider.opaqueToken("bob");
    expect(await p.identify(from(ATTACKER, bobs))).to.equal(undefined);
    expect(asked() - start).to.equal(BUDGET + 1);
    clock += WINDOW_MS;
    expect(await p.identify(from(ATTACKER, bobs))).to.deep.include({ subject: "bob" });
    expect(asked() - start).to.equal(BUDGET + 2);
  });

  it("tokens the provider accepts cost nothing of the budget: many users behind one address", async () => {
    const p = policy();
    const start = asked();
    const users = await Promise.all(Array.from({ length: 15 }, () => provider.opaqueToken("alice")));
    for (const token of users) expect(await p.identify(from(ATTACKER, token))).to.deep.include({ subject: "alice" });
    expect(asked() - start).to.equal(15);
    for (let i = 0; i < 20; i += 1) await p.identify(from(ATTACKER, invented(i)));
    expect(asked() - start).to.equal(15 + BUDGET);
  });

  it("takes the budget and its window from userinfo_refusals_per_address and userinfo_refusal_window_seconds", async () => {
    const p = policy({ userinfo_refusals_per_address: "3", userinfo_refusal_window_seconds: "5" });
    const start = asked();
    for (let i = 0; i < 10; i += 1) await p.identify(from(ATTACKER, invented(i)));
    expect(asked() - start).to.equal(3);
    clock += 4_000;
    await p.identify(from(ATTACKER, invented(10)));
    expect(asked() - start).to.equal(3);
    clock += 1_000;
    for (let i = 0; i < 10; i += 1) await p.identify(from(ATTACKER, invented(20 + i)));
    expect(asked() - start).to.equal(6);
  });

  it("a slow provider: 60 invented tokens at once from one address hold a few slots; a user elsewhere is answered", async () => {
    const p = policy();
    const real = await provider.opaqueToken("alice");
    const start = asked();
    provider.slowDown("/me", 1000);
    try {
      const burst = Promise.allSettled(Array.from({ length: 60 }, (_, i) => p.identify(from(ATTACKER, invented(i)))));
      while (asked() - start < SLOTS_PER_ADDRESS) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await p.identify(from(NEIGHBOUR, real))).to.deep.include({ subject: "alice" });
      const outcomes = await burst;
      // Each invented token is refused, or turned away with a 503 while the address holds its share.
      for (const outcome of outcomes)
        if (outcome.status === "fulfilled") expect(outcome.value).to.equal(undefined);
        else expect(outcome.reason).to.be.instanceOf(BackendError);
      expect(asked() - start).to.equal(SLOTS_PER_ADDRESS + 1);
    } finally {
      provider.slowDown("/me", 0);
    }
  });
});
