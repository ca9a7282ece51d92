/**
 * A standard EventSource never reconnects after an answer other than a 200 event stream, so a
 * process never gives one to a stream it cannot serve now. PostgreSQL behind a proxy: while the
 * database is away a stream request is answered 200 with `retry:` (one to two times
 * `feed_retry_seconds`) and an end, without `id:` (the client keeps its Last-Event-ID); once the
 * database is back the stream is served. A graceful stop hands every open stream over: a
 * `retry:` under a second, the `id:` it has everything up to, a clean end; the stop waits for no
 * client. A stream asked for while the process drains gets `retry` and `Connection: close`.
 */
import http from "node:http";
import { expect } from "chai";
import { pino } from "pino";
import { startServer, type RunningServer } from "../../src/bootstrap/server.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { settingsFrom } from "../support/http.js";
import { POSTGRES_URL, requireService } from "../support/services.js";
import { migratedDatabase } from "../support/shared-postgres.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import { SseClient } from "./sse-client.js";

const QUIET = pino({ level: "silent" });
const ALICE = "alice:pw";
const AUTH = `Basic ${Buffer.from(ALICE).toString("base64")}`;
const FEED = {
  resources: "articles:shareable",
  articles_create_principals: "system.Authenticated",
  articles_read_principals: "system.Authenticated",
  feed_retry_seconds: "1",
};

async function put(url: string, id: string): Promise<void> {
  const res = await fetch(`${url}/v1/articles/${id}`, {
    method: "PUT",
    headers: { Authorization: AUTH, "Content-Type": "application/json" },
    body: JSON.stringify({ data: { id } }),
  });
  expect(res.status).to.be.oneOf([200, 201]);
}

/** A stream request on a connection of its own: status, headers and the whole body (the answer ends). */
function rawStream(url: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${url}/v1/articles`, { headers: { Accept: "text/event-stream", Authorization: AUTH } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    request.on("error", reject);
  });
}

describe("live feed: a stream this process cannot serve now is answered `retry`, never a final status", function () {
  requireService("postgresql");
  this.timeout(30_000);
  let proxy: TcpProxy;
  let running: RunningServer;

  before(async () => {
    const direct = await migratedDatabase("tessera_feed_handover_test", true);
    proxy = await TcpProxy.start(POSTGRES_URL, 5432);
    const url = proxy.rewrite(direct);
    running = await startServer(
      settingsFrom({
        ...FEED,
        storage_backend: "postgresql",
        storage_url: url,
        permission_backend: "postgresql",
        permission_url: url,
        storage_pool_timeout_seconds: "0.5",
      }),
      { logger: QUIET },
    );
  });
  after(async () => {
    await proxy.restore();
    await running?.stop();
    await proxy?.close();
  });

  it("while PostgreSQL is away: 200 with a retry and an end, no id; served again once it is back", async () => {
    await proxy.cut();
    const away = await SseClient.open(`${running.url}/v1/articles`, { user: ALICE, headers: { "Last-Event-ID": "5" } });
    expect(away.status).to.equal(200);
    expect(away.headers.get("content-type")).to.match(/^text\/event-stream/);
    await away.waitUntil(() => away.ended);
    expect(away.endedCleanly).to.equal(true);
    expect(away.retries).to.have.length(1);
    expect(away.retries[0]).to.be.within(1000, 2000);
    expect(away.lastId, "the client keeps the Last-Event-ID it sent").to.equal(undefined);
    expect(away.events).to.deep.equal([]);
    // Only streams are answered so: a listing still says 503.
    expect((await fetch(`${running.url}/v1/articles`, { headers: { Authorization: AUTH } })).status).to.equal(503);

    await proxy.restore();
    let back: SseClient | undefined;
    for (let attempt = 0; attempt < 50 && back === undefined; attempt += 1) {
      const client = await SseClient.open(`${running.url}/v1/articles`, { user: ALICE });
      await client.waitUntil(() => client.ended || client.comments.includes("connected"));
      if (client.comments.includes("connected") && !client.ended) back = client;
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(back, "a stream served once the database is back").to.not.equal(undefined);
    await put(running.url, "after");
    const [event] = await back!.waitFor(1);
    expect(event?.data.id).to.equal("after");
    expect(back!.retries).to.deep.equal([1000]);
    await back!.close();
  });
});

describe("live feed: a graceful stop hands every stream over", function () {
  this.timeout(20_000);
  let running: RunningServer;

  beforeEach(async () => {
    running = await startServer(settingsFrom(FEED), { logger: QUIET });
  });
  afterEach(async () => {
    await running.stop();
  });

  it("ends each open stream with a retry under a second and the id it has everything up to, without waiting for its client", async () => {
    const clients = [
      await SseClient.open(`${running.url}/v1/articles`, { user: ALICE }),
      await SseClient.open(`${running.url}/v1/articles`, { user: "bob:pw" }),
    ];
    await put(running.url, "one");
    for (const client of clients) await client.waitFor(1);
    const newest = Number(clients[0]!.events[0]!.id);
    const started = performance.now();
    await running.stop();
    expect(performance.now() - started, "the stop waited for no client").to.be.below(2000);
    for (const client of clients) {
      await client.waitUntil(() => client.ended);
      expect(client.endedCleanly).to.equal(true);
      expect(client.retries.at(-1)).to.be.within(0, 999);
      expect(Number(client.lastId)).to.be.at.least(newest);
    }
  });

  it("answers a request in flight when the stop begins with Connection: close, and closes its connection once answered", async () => {
    await put(running.url, "held");
    const store = await running.container.getAsync(TOKENS.RecordStore);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    const list = store.list.bind(store);
    store.list = async (...args) => {
      arrived();
      await gate;
      return list(...args);
    };
    const agent = new http.Agent({ keepAlive: true });
    const answered = new Promise<http.IncomingMessage>((resolve, reject) =>
      http.get(`${running.url}/v1/articles`, { agent, headers: { Authorization: AUTH } }, resolve).on("error", reject),
    );
    await reached;
    const started = performance.now();
    const stopped = running.stop();
    release();
    const res = await answered;
    res.resume();
    expect(res.statusCode).to.equal(200);
    expect(res.headers.connection).to.equal("close");
    await stopped;
    expect(performance.now() - started, "the stop did not wait for the 5 s cut").to.be.below(2000);
    agent.destroy();
  });

  it("answers a stream asked for while the process drains with a retry, and closes the connection", async () => {
    const services = await running.container.getAsync(TOKENS.HttpServices);
    services.feedStreams.drain();
    const answer = await rawStream(running.url);
    expect(answer.status).to.equal(200);
    expect(answer.headers["content-type"]).to.match(/^text\/event-stream/);
    expect(answer.headers.connection).to.equal("close");
    expect(answer.body).to.match(/^retry: \d{1,3}\n: this process is stopping\n\n$/);
  });
});
