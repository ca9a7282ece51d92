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

  /**
   * Kinto (Pyramid) decodes the credentials as UTF-8, else as Latin-1, then hashes the UTF-8 of the text.
   * Computed in Python: `b.decode("utf-8")`, falling back to `b.decode("latin-1")` on UnicodeDecodeError,
   * then `"basicauth:" + hmac.new(b"test-secret", s.encode("utf-8"), hashlib.sha256).hexdigest()`.
   */
  const RAW_KNOWN: [label: string, hex: string, id: string][] = [
    [
      'victim: + Latin-1 "ÄÖÜßäöü"',
      "76696374696d3ac4d6dcdfe4f6fc",
      "basicauth:24489cc724e0e331fa67f2397dd9f40c619299d46f74d0230de5087d3ce40be0",
    ],
    [
      "victim: + seven 0xFF bytes",
      "76696374696d3affffffffffffff",
      "basicauth:150fab39202a96b7187b81954cadf821226ab25393c679cf6945a812a8323327",
    ],
    ["victim: + 0x80..0x86", "76696374696d3a80818283848586", "basicauth:1920eb79c7aab0ae8e7451d12c61dff91ab96cd11e19a79a36911401d133ba3e"],
    [
      'victim: + UTF-8 "ÄÖÜßäöü"',
      "76696374696d3ac384c396c39cc39fc3a4c3b6c3bc",
      "basicauth:24489cc724e0e331fa67f2397dd9f40c619299d46f74d0230de5087d3ce40be0",
    ],
    [
      "a UTF-8 byte order mark is kept",
      "efbbbf616c6963653a7077",
      "basicauth:c601af70af98e3ffd77727df0ab632a04b926f07c4345a489820b4e115ddfad2",
    ],
  ];

  async function idOfBytes(hex: string): Promise<string> {
    let server = servers.get("test-secret");
    if (!server) servers.set("test-secret", (server = await startTestServer({ userid_hmac_secret: "test-secret" })));
    const authorization = `Basic ${Buffer.from(hex, "hex").toString("base64")}`;
    const root = await server.request("GET", "/v1/", { headers: { Authorization: authorization } });
    expect(root.status).to.equal(200);
    return root.body.user.id as string;
  }

  for (const [label, hex, expected] of RAW_KNOWN) {
    it(`decodes credentials as UTF-8, else Latin-1, as Kinto does: ${label}`, async () => {
      expect(await idOfBytes(hex)).to.equal(expected);
    });
  }

  it("invalid UTF-8 bytes never share an id with other bytes (no lossy decoding)", async () => {
    const ids = await Promise.all(RAW_KNOWN.slice(0, 3).map(([, hex]) => idOfBytes(hex)));
    expect(new Set(ids).size).to.equal(3);
  });
});
