/** Accounts under abuse: throttled guessing (429 + Retry-After), invented ids, odd bytes, huge inputs, races. */
import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http.js";

const ACCOUNTS = {
  "multiauth.policies": "account",
  account_scrypt_cost: "4",
  account_max_failed_sign_ins: "3",
  trusted_proxies: "127.0.0.1 ::1", // requests without X-Forwarded-For stay the peer's
};
const basic = (credentials: string | Buffer) =>
  `Basic ${(typeof credentials === "string" ? Buffer.from(credentials) : credentials).toString("base64")}`;

describe("accounts under abuse", () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer(ACCOUNTS);
  });
  afterEach(() => server.stop());
  const signUp = (id: string, password: string) => server.request("PUT", `/v1/accounts/${id}`, { body: { data: { password } } });

  it("throttles an account after failed sign-ins: 429 JSON with Retry-After, for the right password too", async () => {
    await signUp("alice", "pw-a");
    for (let i = 0; i < 3; i += 1)
      expect((await server.request("GET", "/v1/accounts/alice", { user: `alice:guess${i}` })).status).to.equal(401);
    const throttled = await server.request("GET", "/v1/accounts/alice", { user: "alice:pw-a" });
    expect(throttled.status).to.equal(429);
    expect(throttled.body).to.deep.include({ code: 429, errno: 117, error: "Too Many Requests" });
    const retryAfter = Number(throttled.headers.get("retry-after"));
    expect(retryAfter).to.be.within(1, 300);
  });

  it("throttles a client address guessing across accounts, and inside a batch", async () => {
    for (const id of ["a1", "a2", "a3", "a4"]) await signUp(id, `pw-${id}`);
    const batch = await server.request("POST", "/v1/batch", {
      body: {
        requests: ["a1", "a2", "a3"].map((id) => ({
          method: "GET",
          path: `/accounts/${id}`,
          headers: { Authorization: basic(`${id}:guess`) },
        })),
      },
    });
    expect(batch.body.responses.map((r: { status: number }) => r.status)).to.deep.equal([401, 401, 401]);
    expect((await server.request("GET", "/v1/accounts/a4", { user: "a4:pw-a4" })).status).to.equal(429);
  });

  it("answers many concurrent failed sign-ins with 401 or 429, never an error", async () => {
    await signUp("bob", "pw-b");
    const statuses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => server.request("GET", "/v1/accounts/bob", { user: `bob:wrong-${i}` }).then((r) => r.status)),
    );
    expect(new Set(statuses)).to.satisfy((set: Set<number>) => [...set].every((s) => s === 401 || s === 429));
    expect(statuses).to.include(429);
  });

  it("creates an id once under concurrent sign-ups", async () => {
    // Each from an address of its own: ten from one address would rightly meet its bound of
    // waiting password checks (429) before they could race for the id.
    const signUpFrom = (i: number) =>
      server.request("PUT", "/v1/accounts/race", {
        body: { data: { password: `pw-${i}` } },
        headers: { "X-Forwarded-For": `198.51.100.${i + 1}` },
      });
    const statuses = await Promise.all(Array.from({ length: 10 }, (_, i) => signUpFrom(i).then((r) => r.status)));
    expect(statuses.filter((s) => s === 201)).to.have.length(1);
    expect(statuses.every((s) => s === 201 || s === 401 || s === 403)).to.equal(true);
  });

  it("refuses odd ids with 400 and never answers 500 to them", async () => {
    for (const id of ["%00", "a%0Ab", "%C3%A9t%C3%A9", "-lead", "_lead", ".hidden", "a:b", "x".repeat(129), "%F0%9F%92%A9", "a%20b"]) {
      const response = await signUp(id, "pw");
      expect(response.status, id).to.equal(400);
      expect(response.body.errno, id).to.equal(107);
    }
    expect((await server.request("POST", "/v1/accounts", { body: { data: { id: 42, password: "pw" } } })).status).to.equal(400);
  });

  it("refuses odd and huge passwords with 400, and an oversized body with 413", async () => {
    for (const password of ["", "a\u0000b", "tab\there", "\ud800", 12, null, ["pw"], "x".repeat(1025)]) {
      const response = await signUp("carol", password as string);
      expect(response.status, JSON.stringify(password)).to.equal(400);
      expect(response.body.details[0].name).to.equal("data.password");
    }
    expect((await signUp("carol", "é-ünïcødé-💩")).status).to.equal(201);
    expect((await server.request("GET", "/v1/", { user: "carol:é-ünïcødé-💩" })).body.user.id).to.equal("account:carol");
    expect((await signUp("dave", "x".repeat(2_000_000))).status).to.equal(413);
    expect((await server.request("PUT", "/v1/accounts/erin", { body: { password: "no data" } })).status).to.equal(400);
  });

  it("takes odd Authorization headers as no identity, never as an error", async () => {
    await signUp("frank", "pw-f");
    const headers = [
      basic(Buffer.from([0x66, 0x72, 0x61, 0x6e, 0x6b, 0x3a, 0xff, 0xfe])),
      basic(":pw-f"),
      basic("frank"),
      "Basic !!!",
      `Basic ${"A".repeat(10_000)}`,
      basic(`frank:${"x".repeat(5000)}`),
      "Bearer frank:pw-f",
    ];
    for (const authorization of headers) {
      const response = await server.request("GET", "/v1/", { headers: { Authorization: authorization } });
      expect(response.status, authorization.slice(0, 40)).to.equal(200);
      expect(response.body.user, authorization.slice(0, 40)).to.equal(undefined);
    }
  });

  it("answers invented ids as for anyone else's: 401 anonymous, 403 signed in (no account enumeration by reads)", async () => {
    await signUp("gina", "pw-g");
    for (const id of ["nobody", "gina2", "GINA"]) {
      expect((await server.request("GET", `/v1/accounts/${id}`)).status).to.equal(401);
      expect((await server.request("GET", `/v1/accounts/${id}`, { user: "gina:pw-g" })).status).to.equal(403);
      expect((await server.request("DELETE", `/v1/accounts/${id}`, { user: "gina:pw-g" })).status).to.equal(403);
    }
  });
});
