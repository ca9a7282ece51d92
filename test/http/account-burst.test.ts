/**
 * A burst of concurrent wrong passwords from one address while someone else signs in: the
 * guesses beyond the bound are refused before any hash, the address's hashes run one at a time,
 * and the other user is answered before the last hashed guess (its hash starts at once). Ten wrong
 * passwords for an account throttle the guesser's address, never the owner. The cost is raised so
 * that a hash takes tens of milliseconds and the order is plain.
 */
import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http.js";

const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString("base64")}`;

describe("accounts: a burst of guesses from one address while another user signs in", function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      "multiauth.policies": "account",
      account_scrypt_cost: "14",
      trusted_proxies: "127.0.0.1 ::1",
    });
    for (const id of ["victim", "owner"])
      expect((await server.request("PUT", `/v1/accounts/${id}`, { body: { data: { password: `pw-${id}` } } })).status).to.equal(201);
  });
  after(() => server.stop());

  const signIn = async (credentials: string, address: string) => {
    const response = await fetch(`${server.url}/v1/accounts/${credentials.split(":")[0]}`, {
      headers: { Authorization: basic(credentials), "X-Forwarded-For": address },
    });
    await response.arrayBuffer();
    return { status: response.status, at: performance.now() };
  };

  it("hashes at most the bound of 30 guesses, and answers the other user before the hashed guesses", async () => {
    const burst = Array.from({ length: 30 }, (_, i) => signIn(`victim:guess-${i}`, "203.0.113.66"));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const owner = await signIn("owner:pw-owner", "198.51.100.7");
    const guesses = await Promise.all(burst);
    expect(owner.status).to.equal(200);
    const hashed = guesses.filter((g) => g.status === 401);
    expect(guesses.filter((g) => g.status !== 401 && g.status !== 429)).to.deep.equal([]);
    expect(hashed.length).to.be.within(1, 10);
    // Hashed one at a time for that address, the other slot kept free: the owner does not wait for
    // them all. With fewer than three hashed (a loaded machine let the owner in among the first
    // guesses), the last of them may finish with the owner's: nothing to tell then.
    if (hashed.length >= 3) expect(owner.at).to.be.lessThan(Math.max(...hashed.map((g) => g.at)));
    // The victim, from an address of its own, is not locked out by the burst.
    expect((await signIn("victim:pw-victim", "192.0.2.44")).status).to.equal(200);
  });

  it("takes sign-ups' hashes in their address's turn: a flood of sign-ups holds no one's sign-in back", async () => {
    const signUp = async (id: string) => {
      const response = await fetch(`${server.url}/v1/accounts/${id}`, {
        method: "PUT",
        headers: { "Content-Type": "application/json", "X-Forwarded-For": "203.0.113.77" },
        body: JSON.stringify({ data: { password: `pw-${id}` } }),
      });
      await response.arrayBuffer();
      return { status: response.status, at: performance.now() };
    };
    // A credential never verified: its sign-in needs a hash too.
    expect((await server.request("PUT", "/v1/accounts/newcomer", { body: { data: { password: "pw-newcomer" } } })).status).to.equal(201);
    const flood = Array.from({ length: 12 }, (_, i) => signUp(`flood-${i}`));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const owner = await signIn("newcomer:pw-newcomer", "198.51.100.8");
    const signUps = await Promise.all(flood);
    expect(owner.status).to.equal(200);
    expect(signUps.filter((r) => r.status !== 201 && r.status !== 429)).to.deep.equal([]);
    const created = signUps.filter((r) => r.status === 201);
    expect(created.length).to.be.within(1, 5); // one running, four waiting; the rest refused before any hash
    expect(owner.at).to.be.lessThan(Math.max(...created.map((r) => r.at)));
  });

  it("lets no one lock an account out: ten wrong passwords from anywhere, and the owner still signs in from home", async () => {
    expect((await server.request("PUT", "/v1/accounts/dave", { body: { data: { password: "pw-dave" } } })).status).to.equal(201);
    for (let i = 0; i < 10; i += 1) expect((await signIn(`dave:guess-${i}`, "203.0.113.99")).status).to.equal(401);
    expect((await signIn("dave:pw-dave", "203.0.113.99")).status).to.equal(429);
    expect((await signIn("dave:pw-dave", "198.51.100.20")).status).to.equal(200);
    // The throttled address's further tries, for anyone, cost its victims nothing.
    for (const victim of ["dave", "owner", "victim"]) expect((await signIn(`${victim}:guess`, "203.0.113.99")).status).to.equal(429);
    expect((await signIn("owner:typo", "198.51.100.21")).status).to.equal(401);
    expect((await signIn("owner:pw-owner", "198.51.100.21")).status).to.equal(200);
  });
});
