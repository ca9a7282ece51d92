/**
 * Invented opaque bearer tokens over HTTP, behind a trusted proxy naming each client's address:
 * they cannot take the userinfo lookups that real users of other addresses need, they cost the
 * provider at most the per-address budget, and nothing at all where userinfo is off.
 */
import { expect } from "chai";
import { signingKey, startProvider, type TestProvider } from "../support/openid-provider.js";
import { startIniServer, type IniServer } from "../support/openid-server.js";

/** The documented default of `userinfo_refusals_per_address` (docs/authentication.md). */
const BUDGET = 10;

describe("HTTP: invented opaque tokens against the userinfo endpoint", function () {
  this.timeout(30000);
  let provider: TestProvider;
  let server: IniServer;
  const asked = () => provider.count("/me");

  before(async () => {
    provider = await startProvider({ keys: [await signingKey("k1")], people: { alice: {} } });
    server = await startIniServer(
      [
        "userid_hmac_secret = s3cret",
        "listen_port = 0",
        "resources = notes:user",
        "trusted_proxies = 127.0.0.1 ::1",
        "multiauth.policies = sso wide api",
        // No audience: opaque tokens are asked to userinfo, as in Kinto.
        "multiauth.policy.sso.use = openid",
        `multiauth.policy.sso.issuer = ${provider.issuer}`,
        "multiauth.policy.sso.client_id = tessera",
        // A budget too large to matter: the share of the slots alone keeps the burst to a few of them.
        "multiauth.policy.wide.use = openid",
        `multiauth.policy.wide.issuer = ${provider.issuer}`,
        "multiauth.policy.wide.client_id = tessera",
        "multiauth.policy.wide.header_type = Wide",
        "multiauth.policy.wide.userinfo_refusals_per_address = 1000",
        // An audience: JWT access tokens expected, userinfo off by default.
        "multiauth.policy.api.use = openid",
        `multiauth.policy.api.issuer = ${provider.issuer}`,
        "multiauth.policy.api.client_id = tessera",
        "multiauth.policy.api.audience = tessera-api",
        "multiauth.policy.api.header_type = Token",
      ].join("\n"),
    );
  });
  after(async () => {
    await server.stop();
    await provider.stop();
  });

  /** GET /v1/notes as a client at `address` (the proxy's X-Forwarded-For) with this Authorization. */
  async function get(address: string, authorization: string): Promise<{ status: number; body: { user?: { id: string } } }> {
    const response = await fetch(`${server.url}/v1/notes`, { headers: { Authorization: authorization, "X-Forwarded-For": address } });
    return { status: response.status, body: (await response.json()) as { user?: { id: string } } };
  }

  const invented = (i: number) => `invented-opaque-token-${i}-${Math.random().toString(36).slice(2)}`;

  for (const scheme of ["Bearer", "Wide"])
    it(`a slow provider, 60 invented tokens at once from one address: a real user at another address gets 200 (${scheme})`, async () => {
      const real = await provider.opaqueToken("alice");
      provider.slowDown("/me", 1500);
      try {
        let answered = 0;
        const burst = Promise.all(
          Array.from({ length: 60 }, async (_, i) => {
            const { status } = await get("203.0.113.7", `${scheme} ${invented(i)}`);
            answered += 1;
            return status;
          }),
        );
        // Those turned away answer at once: then every lookup of the burst has started or been refused.
        while (answered < 40) await new Promise((resolve) => setTimeout(resolve, 5));
        const user = await get("198.51.100.20", `${scheme} ${real}`);
        const statuses = await burst;
        expect(user.status).to.equal(200);
        expect(
          statuses.filter((s) => s !== 401 && s !== 503),
          statuses.join(),
        ).to.deep.equal([]);
      } finally {
        provider.slowDown("/me", 0);
      }
    });

  it("40 invented tokens from one address: all 401, at most the budget's number of userinfo requests", async () => {
    const start = asked();
    for (let i = 0; i < 40; i += 1) expect((await get("203.0.113.99", `Bearer ${invented(i)}`)).status).to.equal(401);
    expect(asked() - start).to.be.at.most(BUDGET);
  });

  it("where userinfo is off: 401 and not one userinfo request", async () => {
    const start = asked();
    for (let i = 0; i < 40; i += 1) expect((await get(`192.0.2.${i}`, `Token ${invented(i)}`)).status).to.equal(401);
    expect((await get("192.0.2.200", `Token ${await provider.opaqueToken("alice")}`)).status).to.equal(401);
    expect(asked() - start).to.equal(0);
  });
});
