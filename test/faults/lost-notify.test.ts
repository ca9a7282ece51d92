/**
 * A NOTIFY lost after its commit is caught up (issue: a lost notification was never retried).
 * Two `serve` processes on one database: the writer reaches PostgreSQL through a TCP proxy that
 * is cut at the exact chunk carrying the writer's NOTIFY, after the write committed; the reader
 * (a direct connection) has a subscriber on the collection. The subscriber still gets the change,
 * from the reader's periodic check of its watched collections' counters.
 */
import { expect } from "chai";
import { databaseUrl } from "../support/postgres.js";
import { startServerProcess, type ServerProcess } from "../support/server-process.js";
import { POSTGRES_URL, requireService } from "../support/services.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import { SseClient } from "../sync/sse-client.js";
import { prepareReliabilityDatabase, RELIABILITY_DATABASE as DATABASE } from "./reliability-database.js";

const USER = `lost-notify-${process.pid}:pw`;
const AUTH = `Basic ${Buffer.from(USER).toString("base64")}`;

function settings(url: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    resources: "notes:user",
    storage_backend: "postgresql",
    storage_url: url,
    permission_backend: "postgresql",
    permission_url: url,
    userid_hmac_secret: "s",
    ...extra,
  };
}

describe("faults: a NOTIFY lost after its commit", function () {
  requireService("postgresql");
  this.timeout(60_000);
  let proxy: TcpProxy;
  let writer: ServerProcess;
  let reader: ServerProcess;
  let stream: SseClient | undefined;

  before(async () => {
    await prepareReliabilityDatabase();
    proxy = await TcpProxy.start(POSTGRES_URL, 5432);
    writer = await startServerProcess(settings(databaseUrl(DATABASE, proxy.port)));
    reader = await startServerProcess(settings(databaseUrl(DATABASE), { feed_catch_up_seconds: "0.5" }));
  });
  after(async () => {
    await stream?.close();
    await writer?.stop();
    await reader?.stop();
    await proxy?.close();
  });

  const create = (n: number) =>
    fetch(`${writer.url}/v1/notes`, {
      method: "POST",
      headers: { Authorization: AUTH, "Content-Type": "application/json" },
      body: JSON.stringify({ data: { n } }),
    });

  it("reaches a subscriber on another process within the catch-up period", async () => {
    stream = await SseClient.open(`${reader.url}/v1/notes`, { user: USER });
    expect(stream.status).to.equal(200);
    expect((await create(1)).status).to.equal(201);
    await stream.waitFor(1, 10_000); // the NOTIFY path works: the subscriber is live

    // The NOTIFY statement's chunk never reaches PostgreSQL, and every connection is cut with it.
    const cut = proxy.cutWhen((chunk) => chunk.includes("tessera_changes_notify"));
    const created = await create(2);
    expect(created.status, "the write committed before its NOTIFY").to.equal(201);
    await cut;
    await proxy.restore();

    const [, second] = await stream.waitFor(2, 15_000);
    expect(JSON.stringify(second?.data)).to.include(`"n":2`);
  });
});
