/**
 * No answer (any endpoint, errors, listings, batch, the root view, the API document) and no log
 * line ever holds a password, its Basic Auth encoding or its hash.
 */
import { expect } from "chai";
import { pino } from "pino";
import { startServer, type RunningServer } from "../../src/bootstrap/server.js";
import { settingsFrom } from "../support/http.js";

const PASSWORDS = ["Pw-Admin-7f3e", "Pw-Alice-91ac", "Pw-Alice-new-55d0", "Pw-Bob-0b1e", "Pw-Bad-\u0001-x", "Qz9x"];
const FORBIDDEN = [...PASSWORDS, ...PASSWORDS.map((p) => Buffer.from(p).toString("base64").slice(0, 12)), "scrypt", "password_hash"];

describe("accounts: no password or hash in any answer or log line", () => {
  let running: RunningServer;
  const seen: string[] = [];
  const logs: string[] = [];

  before(async () => {
    const settings = settingsFrom({
      "multiauth.policies": "account basicauth",
      account_scrypt_cost: "4",
      account_max_failed_sign_ins: "2",
      account_write_principals: "account:admin",
    });
    running = await startServer(settings, { logger: pino({ level: "debug" }, { write: (line: string) => logs.push(line) }) });
  });
  after(() => running.stop());

  async function call(method: string, path: string, options: { user?: string; body?: unknown; raw?: string } = {}) {
    const headers: Record<string, string> = {};
    if (options.user) headers.Authorization = `Basic ${Buffer.from(options.user).toString("base64")}`;
    if (options.body !== undefined || options.raw !== undefined) headers["Content-Type"] = "application/json";
    const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    const response = await fetch(`${running.url}${path}`, { method, headers, body });
    const text = await response.text();
    seen.push(`${method} ${path} → ${response.status} ${JSON.stringify([...response.headers])} ${text}`);
    return { status: response.status, text };
  }

  it("exercises every account route, the errors, the batch and the utility views", async () => {
    const [admin, alice, aliceNew, bob, bad, short] = PASSWORDS as [string, string, string, string, string, string];
    expect((await call("PUT", "/v1/accounts/admin", { body: { data: { password: admin } } })).status).to.equal(201);
    expect((await call("PUT", "/v1/accounts/alice", { body: { data: { id: "alice", password: alice } } })).status).to.equal(201);
    expect((await call("POST", "/v1/accounts", { body: { data: { id: "bob", password: bob } } })).status).to.equal(201);
    await call("POST", "/v1/accounts", { body: { data: { id: "bob", password: bob } } }); // 403 taken
    await call("PUT", "/v1/accounts/carol", { body: { data: { password: bad } } }); // 400 control character
    // 400 invalid JSON around a password (V8 quotes a few characters around the fault: a short one fits)
    await call("PUT", "/v1/accounts/carol", { raw: `{"data": {"password": ${short}}}` });
    await call("PUT", "/v1/accounts/carol", { raw: `{"data": {"password": "${alice}" x}}` });
    await call("PUT", "/v1/accounts/alice", { body: { data: { id: "mallory", password: alice } }, user: `alice:${alice}` }); // 400 id
    await call("GET", "/v1/", { user: `alice:${alice}` });
    await call("GET", "/v1/accounts", { user: `admin:${admin}` });
    await call("GET", "/v1/accounts", { user: `alice:${alice}` });
    await call("GET", "/v1/accounts/alice", { user: `alice:${alice}` });
    await call("HEAD", "/v1/accounts/alice", { user: `alice:${alice}` });
    await call("GET", "/v1/accounts/alice", { user: `bob:${bob}` }); // 403
    await call("PATCH", "/v1/accounts/alice", { user: `alice:${alice}`, body: { data: { password: aliceNew } } });
    await call("GET", "/v1/accounts/alice", { user: `alice:${alice}` }); // 401 old password (basicauth off for it: wrong pw falls to basicauth)
    for (let i = 0; i < 3; i += 1) await call("GET", "/v1/accounts/bob", { user: `bob:${bad}${i}` }); // to 429
    await call("GET", "/v1/accounts/bob", { user: `bob:${bob}` });
    await call("POST", "/v1/batch", {
      body: {
        requests: [
          { method: "PUT", path: "/accounts/dave", body: { data: { password: alice } } },
          { method: "GET", path: "/accounts/dave", headers: { Authorization: `Basic ${Buffer.from(`dave:${alice}`).toString("base64")}` } },
          { method: "PATCH", path: "/accounts/dave", body: { data: { password: bad } } },
          { method: "GET", path: "/accounts", headers: { Authorization: `Basic ${Buffer.from(`admin:${admin}`).toString("base64")}` } },
        ],
      },
    });
    await call("POST", "/v1/batch", {
      body: { requests: [{ method: "PUT", path: "/accounts/erin", body: { password: alice } }], x: alice },
    });
    await call("POST", "/v1/articles", { user: `alice:${aliceNew}`, body: { data: { t: 1 }, permissions: { read: ["account:bob"] } } });
    await call("GET", "/v1/articles", { user: `bob:${bob}` });
    for (const path of ["/v1/__api__", "/v1/__heartbeat__", "/v1/__version__", "/v1/__lbheartbeat__", "/v1/__metrics__"])
      await call("GET", path);
    await call("DELETE", "/v1/accounts/alice", { user: `admin:${admin}` });
    await call("DELETE", "/v1/accounts", { user: `admin:${admin}` }); // 405
    expect(seen.length).to.be.greaterThan(25);
  });

  it("finds none of them in what was answered or logged", () => {
    const answered = seen.join("\n");
    const logged = logs.join("");
    for (const secret of FORBIDDEN) {
      expect(answered, `answers hold ${secret}`).to.not.contain(secret);
      expect(logged, `logs hold ${secret}`).to.not.contain(secret);
    }
    expect(answered).to.contain("account:alice"); // the answers were read at all
  });
});
