/**
 * Live-feed streams under abuse: bounds per client address and per user (invented credentials
 * and forged X-Forwarded-For included), a trusted proxy's X-Forwarded-For, a subscriber that
 * never reads (its connection is destroyed), and the streams' maximum lifetime.
 */
import { expect } from "chai";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { startTestServer, type TestServer } from "../support/http.js";
import {
  headerOf,
  jsonBody,
  kernelSockets,
  metricValue,
  rawStream,
  requestFrom,
  until,
  type RawConnection,
} from "../support/client-sockets.js";

function portOf(server: TestServer): number {
  return Number(new URL(server.url).port);
}

async function answered(connection: RawConnection): Promise<number | undefined> {
  await until(() => connection.status() !== undefined || connection.isClosed(), "an answer");
  return connection.status();
}

/** A refused stream: a JSON error with Retry-After, and no event. */
function expectRefused(connection: RawConnection, message: RegExp): void {
  const raw = connection.received();
  expect(connection.status(), raw.slice(0, 300)).to.equal(429);
  expect(headerOf(raw, "content-type")).to.match(/^application\/json/);
  expect(headerOf(raw, "retry-after")).to.equal("30");
  const body = jsonBody(raw) as { errno: number; message: string };
  expect(body).to.deep.include({ code: 429, errno: 117, error: "Too Many Requests" });
  expect(body.message).to.match(message);
}

describe("event streams per address and per user", function () {
  this.timeout(20_000);
  let server: TestServer;
  const opened: RawConnection[] = [];
  before(async () => {
    server = await startTestServer({
      feed_max_streams_per_address: "3",
      feed_max_streams_per_user: "2",
      metrics_listen_port: "0",
      articles_read_principals: "system.Authenticated",
    });
  });
  afterEach(() => {
    for (const connection of opened.splice(0)) connection.socket.destroy();
  });
  after(() => server.stop());

  const open = async (address: string, options: Parameters<typeof rawStream>[2]) => {
    const connection = await rawStream(portOf(server), address, options);
    opened.push(connection);
    await answered(connection);
    return connection;
  };

  it("keeps invented Basic credentials within the bound of their address", async () => {
    const first = [];
    for (let i = 0; i < 3; i += 1) first.push(await open("127.0.0.50", { credentials: `invented${i}:x` }));
    for (const connection of first) expect(connection.status()).to.equal(200);
    expectRefused(await open("127.0.0.50", { credentials: "invented3:x" }), /address/);
    expectRefused(await open("127.0.0.50", {}), /address/); // anonymous: the same bound
    // A stream that ends gives its place back.
    first[0]!.socket.destroy();
    await until(async () => (await open("127.0.0.50", { credentials: "invented4:x" })).status() === 200, "a place given back");
    const metrics = await (await fetch(`${server.running.metricsUrl}/metrics`)).text();
    expect(metricValue(metrics, "tessera_http_refused_total", 'reason="streams_per_address"')).to.be.at.least(2);
  });

  it("bounds one user's streams whatever the addresses", async () => {
    expect((await open("127.0.0.51", { credentials: "carol:pw" })).status()).to.equal(200);
    expect((await open("127.0.0.52", { credentials: "carol:pw" })).status()).to.equal(200);
    expectRefused(await open("127.0.0.53", { credentials: "carol:pw" }), /user/);
    expect((await open("127.0.0.53", { credentials: "dave:pw" })).status()).to.equal(200);
  });

  it("ignores X-Forwarded-For from a client that is not a trusted proxy", async () => {
    for (let i = 1; i <= 3; i += 1)
      expect((await open("127.0.0.54", { credentials: `x${i}:pw`, headers: { "X-Forwarded-For": `10.0.0.${i}` } })).status()).to.equal(200);
    expectRefused(await open("127.0.0.54", { credentials: "x4:pw", headers: { "X-Forwarded-For": "10.0.0.4" } }), /address/);
  });
});

describe("event streams behind a trusted proxy", function () {
  this.timeout(20_000);
  const PROXY = "127.0.0.60";
  let server: TestServer;
  const opened: RawConnection[] = [];
  before(async () => {
    server = await startTestServer({
      trusted_proxies: `${PROXY} 127.0.1.0/24`,
      max_connections_per_address: "5",
      feed_max_streams_per_address: "3",
      articles_read_principals: "system.Authenticated",
    });
  });
  after(async () => {
    for (const connection of opened.splice(0)) connection.socket.destroy();
    await server.stop();
  });

  const open = async (forwardedFor: string, user: string) => {
    const connection = await rawStream(Number(new URL(server.url).port), PROXY, {
      credentials: `${user}:pw`,
      headers: { "X-Forwarded-For": forwardedFor },
    });
    opened.push(connection);
    await answered(connection);
    return connection;
  };

  it("counts each client the proxy names, by the right-most address no trusted proxy added", async () => {
    // Four clients through the proxy: more streams than one address may hold, and more
    // connections from the proxy than max_connections_per_address.
    for (let i = 1; i <= 4; i += 1) expect((await open(`10.0.0.${i}`, `u${i}`)).status()).to.equal(200);
    // 10.0.0.9 writes addresses of its own on the left; a second trusted proxy adds one on the right.
    expect((await open("1.2.3.1, 10.0.0.9", "v1")).status()).to.equal(200);
    expect((await open("1.2.3.2, 10.0.0.9, 127.0.1.7", "v2")).status()).to.equal(200);
    expect((await open("10.0.0.9", "v3")).status()).to.equal(200);
    expectRefused(await open("1.2.3.4, 10.0.0.9", "v4"), /address/);
  });

  it("counts a header that names no address (odd bytes, thousands of hops) under the proxy itself", async () => {
    const odd = `${",".repeat(4000)}garbage\u00ff, 10.0.0.300`;
    for (let i = 0; i < 3; i += 1) expect((await open(odd, `w${i}`)).status()).to.equal(200);
    expectRefused(await open(", ,", "w3"), /address/);
  });
});

describe("a subscriber that stops reading", function () {
  this.timeout(30_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      feed_buffer_bytes: "1024",
      keepalive_timeout_seconds: "1",
      metrics_listen_port: "0",
      articles_read_principals: "system.Authenticated",
    });
  });
  after(() => server.stop());

  it("has its connection destroyed (reset), not ended, once past feed_buffer_bytes", async () => {
    const feed = await server.running.container.getAsync(TOKENS.LiveFeed);
    const reader = await rawStream(portOf(server), "127.0.0.80", { credentials: "bob:pw" });
    await until(() => reader.received().includes(": live"), "the stream to go live");
    reader.socket.pause(); // reads no more: the server's unread output grows
    const big = "x".repeat(64 * 1024);
    for (let i = 0; i < 400 && feed.subscriberCount > 0; i += 1) {
      const write = await server.request("PUT", `/v1/articles/big${i}`, { user: "alice:pw", body: { data: { big } } });
      expect(write.status).to.equal(201);
    }
    expect(feed.subscriberCount).to.equal(0);
    // Still not reading: the server's side of the connection is gone from the kernel, with the
    // bytes it had queued (an ended stream stays established, a closed one lingers in FIN-WAIT-1
    // holding its send queue, for as long as the client does not read).
    const [port, peerPort] = [portOf(server), reader.socket.localPort ?? 0];
    await until(() => kernelSockets(port, peerPort).length === 0, "the server's socket to leave the kernel");
    reader.socket.resume();
    await reader.closed;
    // An ended stream would finish with HTTP's last chunk after the queued events.
    expect(reader.received()).to.not.match(/\r\n0\r\n\r\n$/);
    const metrics = await (await fetch(`${server.running.metricsUrl}/metrics`)).text();
    expect(metricValue(metrics, "tessera_feed_streams_ended_total", 'reason="buffer"')).to.equal(1);
  });
});

describe("the lifetime of an event stream", function () {
  this.timeout(20_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      feed_max_lifetime_seconds: "1",
      metrics_listen_port: "0",
      articles_read_principals: "system.Authenticated",
    });
  });
  after(() => server.stop());

  it("ends cleanly with the id to resume from, and the client resumes with Last-Event-ID", async () => {
    const port = portOf(server);
    const stream = await rawStream(port, "127.0.0.90", { credentials: "bob:pw" });
    await until(() => stream.received().includes(": live"), "the stream to go live");
    const first = await requestFrom(server.url, "127.0.0.91", "PUT", "/v1/articles/before", {
      credentials: "alice:pw",
      body: { data: {} },
    });
    expect(first.status).to.equal(201);
    // Keep-alive: the connection stays open after the response's clean end.
    await until(() => /\r\n0\r\n\r\n$/.test(stream.received()), "the end of the stream's lifetime", 5000);
    // The last chunk of HTTP: a clean end, just after an `id:` line on its own.
    const ending = /id: (\d+)\n\n\r\n0\r\n\r\n$/.exec(stream.received());
    expect(ending, stream.received()).to.not.equal(null);
    const resumeFrom = Number(ending![1]);
    expect(resumeFrom).to.be.at.least(first.body.data.last_modified as number);

    const missed = await requestFrom(server.url, "127.0.0.91", "PUT", "/v1/articles/after", {
      credentials: "alice:pw",
      body: { data: {} },
    });
    const resumed = await rawStream(port, "127.0.0.90", { credentials: "bob:pw", headers: { "Last-Event-ID": String(resumeFrom) } });
    await until(() => resumed.received().includes(": live"), "the resumed stream to go live");
    expect(resumed.received()).to.include(`"id":"after","last_modified":${missed.body.data.last_modified}`);
    expect(resumed.received()).to.not.include('"id":"before"');
    resumed.socket.destroy();
    const metrics = await (await fetch(`${server.running.metricsUrl}/metrics`)).text();
    expect(metricValue(metrics, "tessera_feed_streams_ended_total", 'reason="lifetime"')).to.be.at.least(1);
  });
});
