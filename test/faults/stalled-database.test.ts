/**
 * A silently dead database (issue: the process hung and SIGTERM could not stop it): a `serve`
 * process reaches PostgreSQL through a TCP proxy that starts swallowing every byte, both ways,
 * on its live connections and on new ones, closing nothing. With its timeouts set low the process
 * keeps answering: 503 for what needs the database, an unhealthy heartbeat within the heartbeat
 * timeout, 200 for the load balancer's heartbeat; and SIGTERM ends it within its shutdown deadline.
 * The bounds below are the mocha timeout's guards against a hang, not speed measurements.
 */
import { expect } from "chai";
import { databaseUrl } from "../support/postgres.js";
import { startServerProcess, type ServerProcess } from "../support/server-process.js";
import { POSTGRES_URL, requireService } from "../support/services.js";
import { settlesWithin } from "../support/settling.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import { SseClient } from "../sync/sse-client.js";
import { prepareReliabilityDatabase, RELIABILITY_DATABASE as DATABASE } from "./reliability-database.js";

const USER = "stalled:pw";
const AUTH = `Basic ${Buffer.from(USER).toString("base64")}`;
const HANG_GUARD_MS = 20_000;

describe("faults: the database connection stalls without closing", function () {
  requireService("postgresql");
  this.timeout(90_000);
  let proxy: TcpProxy;
  let server: ServerProcess;
  let stream: SseClient | undefined;

  before(async () => {
    await prepareReliabilityDatabase();
    proxy = await TcpProxy.start(POSTGRES_URL, 5432);
    const url = databaseUrl(DATABASE, proxy.port);
    server = await startServerProcess({
      resources: "notes:user",
      storage_backend: "postgresql",
      storage_url: url,
      permission_backend: "postgresql",
      permission_url: url,
      cache_backend: "postgresql",
      cache_url: url,
      userid_hmac_secret: "s",
      storage_statement_timeout_seconds: "1",
      storage_pool_timeout: "2",
      heartbeat_timeout_seconds: "2",
      shutdown_timeout_seconds: "3",
    });
  });
  after(async () => {
    await stream?.close();
    if (server?.alive()) await server.stop();
    await proxy?.close();
  });

  const send = (path: string, init: RequestInit = {}) =>
    settlesWithin(fetch(`${server.url}${path}`, { ...init, headers: { Authorization: AUTH, ...init.headers } }), HANG_GUARD_MS, `${path}`);

  it("keeps answering (503 where the database is needed), reports it unhealthy, and exits on SIGTERM", async () => {
    const created = await send("/v1/notes", { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"data":{}}' });
    expect(created.status).to.equal(201);
    stream = await SseClient.open(`${server.url}/v1/notes`, { user: USER });
    expect(stream.status).to.equal(200);

    proxy.stall();
    expect((await send("/v1/notes")).status, "a listing").to.equal(503);
    expect((await send("/v1/notes", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" })).status).to.equal(503);
    const heartbeat = await send("/__heartbeat__");
    expect(heartbeat.status).to.equal(503);
    expect(await heartbeat.json()).to.deep.include({ storage: false });
    expect((await send("/__lbheartbeat__")).status).to.equal(200);

    await settlesWithin(server.stop(), HANG_GUARD_MS, "the process after SIGTERM");
    expect(server.alive()).to.equal(false);
  });
});
