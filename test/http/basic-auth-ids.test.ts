/**
 * Known answers for Basic Auth user ids: `basicauth:` + hex HMAC-SHA256 of "user:pass" keyed with
 * `userid_hmac_secret`. The literals were computed outside the product
 * (`printf 'alice:pw' | openssl dgst -sha256 -hmac test-secret`), so a policy that ignores the
 * configured secret or hashes something else cannot agree with them.
 */
import { expect } from "chai";
import { createHmac } from "node:crypto";
import { startTestServer, userId, type TestServer } from "../support/http.js";

const KNOWN = {
  "test-secret": "basicauth:b7b1d37e7856e34654bcdea01e1414196a9f6908dc2415147b5f8ad616301ce9",
  "another-secret": "basicauth:fd64e2a8318ba9e7f3277e5386e5f8cb0ab5449af3e0610ca8339d7839360e55",
};

describe("Basic Auth user ids (known answers)", () => {
  /** One server per secret, started on first use in a run and stopped (and forgotten) after it. */
  const servers = new Map<string, TestServer>();
  after(async () => {
    const started = [...servers.values()];
    servers.clear();
    await Promise.all(started.map((s) => s.stop()));
  });

  async function idOf(secret: string, credentials: string): Promise<string> {
    let server = servers.get(secret);
    if (!server) servers.set(secret, (server = await startTestServer({ userid_hmac_secret: secret })));
    const root = await server.request("GET", "/v1/", { user: credentials });
    expect(root.status).to.equal(200);
    return root.body.user.id as string;
  }

  it("the test helper agrees with the literals (so every test using it checks real ids)", () => {
    expect(userId("alice:pw")).to.equal(KNOWN["test-secret"]);
    expect(userId("alice:pw", "another-secret")).to.equal(KNOWN["another-secret"]);
  });

  for (const [secret, expected] of Object.entries(KNOWN)) {
    it(`the server derives alice:pw's id from userid_hmac_secret="${secret}"`, async () => {
      expect(await idOf(secret, "alice:pw")).to.equal(expected);
    });
  }

  it("hashes the whole user:pass, password and unicode included", async () => {
    for (const credentials of ["alice:other", "bob:pw", "rémy:mot de passe:avec:deux-points"]) {
      const expected = `basicauth:${createHmac("sha256", "test-secret").update(credentials, "utf8").digest("hex")}`;
      expect(await idOf("test-secret", credentials), credentials).to.equal(expected);
    }
  });
});
