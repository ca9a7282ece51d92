/**
 * One client must not take the connections away from the others: bounds per client address,
 * idle connections giving way at capacity, and a clear answer (429/503 in JSON, with
 * Retry-After) when a bound is reached. Clients are told apart by their loopback address
 * (127.0.0.2, 127.0.0.3…). ABUSE_COUNT (env TESSERA_ABUSE_COUNT, default 1,000) is the number of
 * event streams and of idle connections one address opens.
 */
import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http.js";
import {
  headerOf,
  jsonBody,
  metricValue,
  rawConnect,
  rawStream,
  requestFrom,
  until,
  type RawConnection,
} from "../support/client-sockets.js";

const ABUSE_COUNT = Number(process.env.TESSERA_ABUSE_COUNT ?? 1000);
/** Connections opened together: fewer than the listen backlog (511), so that the kernel drops none. */
const BATCH = 200;
/** Every connection a test opens, closed after it whatever happened. */
const opened: RawConnection[] = [];

/**
 * Opens `count` connections, BATCH at a time. After each batch `between` runs: a request on a
 * connection opened after the batch is accepted after it (the accept queue is in order), so
 * once answered, the server has decided on every connection of the batch, and the accept queue
 * never holds more than a batch (a connection the kernel dropped there and that never sends a
 * byte would wait for the server's SYN-ACK retries).
 */
async function openMany(
  count: number,
  open: (i: number) => Promise<RawConnection>,
  between: () => Promise<void>,
): Promise<RawConnection[]> {
  const all: RawConnection[] = [];
  for (let start = 0; start < count; start += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, count - start) }, (_, k) => open(start + k));
    all.push(...(await Promise.all(batch)));
    opened.push(...all.slice(start));
    await between();
  }
  return all;
}

async function scrape(server: TestServer): Promise<string> {
  const response = await fetch(`${server.running.metricsUrl}/metrics`);
  return response.text();
}

async function openConnections(server: TestServer): Promise<number> {
  const text = await scrape(server);
  return metricValue(text, "tessera_http_connections", 'state="busy"') + metricValue(text, "tessera_http_connections", 'state="idle"');
}

function portOf(server: TestServer): number {
  return Number(new URL(server.url).port);
}

function expectRefusal(connection: RawConnection, status: number, errno: number): void {
  expect(connection.status(), connection.received().slice(0, 200)).to.equal(status);
  expect(headerOf(connection.received(), "retry-after")).to.equal("30");
  expect(headerOf(connection.received(), "content-type")).to.match(/^application\/json/);
  expect(jsonBody(connection.received())).to.deep.include({ code: status, errno });
}

describe("connections per client address", function () {
  this.timeout(60_000);
  const ATTACKER = "127.0.0.2";
  const VICTIM = "127.0.0.3";
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      max_connections: "300",
      max_connections_per_address: "100",
      feed_max_streams_per_address: "50",
      // Nothing closes by a timeout during the test (the count of connections turned away is exact).
      request_timeout_seconds: "120",
      headers_timeout_seconds: "120",
      keepalive_timeout_seconds: "120",
      metrics_listen_port: "0",
      articles_read_principals: "system.Authenticated",
    });
  });
  afterEach(() => {
    for (const connection of opened.splice(0)) connection.socket.destroy();
  });
  after(() => server.stop());

  it(`serves another client while one address opens ${ABUSE_COUNT} event streams (invented users) and ${ABUSE_COUNT} idle connections`, async () => {
    const port = portOf(server);
    // While the attack goes on, another client's requests are answered.
    const heartbeats: number[] = [];
    const heartbeat = async () => {
      heartbeats.push((await requestFrom(server.url, VICTIM, "GET", "/v1/__lbheartbeat__")).status);
    };
    const streams = await openMany(ABUSE_COUNT, (i) => rawStream(port, ATTACKER, { credentials: `intruder${i}:x` }), heartbeat);
    const idle = await openMany(ABUSE_COUNT, () => rawConnect(port, ATTACKER), heartbeat);
    expect(heartbeats).to.deep.equal(Array<number>(2 * Math.ceil(ABUSE_COUNT / BATCH)).fill(200));
    await until(() => streams.every((s) => s.status() !== undefined || s.isClosed()), "an answer or a close for every stream");
    await until(async () => (await openConnections(server)) <= 100, "the attacker's connections within its bound");

    const open = streams.filter((s) => s.status() === 200 && !s.isClosed());
    expect(open.length).to.be.at.most(50);
    for (const connection of open) expect(headerOf(connection.received(), "content-type")).to.match(/^text\/event-stream/);
    // The others got a 429 in JSON, or were closed (idle, to make room for the address's newer ones).
    const refused = [...streams, ...idle].filter((s) => s.status() !== undefined && s.status() !== 200);
    for (const connection of refused) expectRefusal(connection, 429, 117);
    expect(refused.length).to.be.at.least(1);

    // And reads, writes and follows the feed.
    const follower = await rawStream(port, VICTIM, { credentials: "bob:pw" });
    opened.push(follower);
    await until(() => follower.received().includes(": live"), "the victim's stream to go live");
    const write = await requestFrom(server.url, VICTIM, "PUT", "/v1/articles/a1", { credentials: "alice:pw", body: { data: { t: 1 } } });
    expect(write.status).to.equal(201);
    await until(() => follower.received().includes('"id":"a1"'), "the victim's event");
    const read = await requestFrom(server.url, VICTIM, "GET", "/v1/articles/a1", { credentials: "bob:pw" });
    expect(read.status).to.equal(200);

    const exposition = await scrape(server);
    const turnedAway =
      metricValue(exposition, "tessera_http_refused_total", 'reason="connections_per_address"') +
      metricValue(exposition, "tessera_http_idle_connections_reclaimed_total");
    expect(turnedAway).to.be.at.least(2 * ABUSE_COUNT - 100);
    expect(metricValue(exposition, "tessera_http_refused_total", 'reason="max_connections"')).to.equal(0);
  });
});

describe("a server at max_connections", function () {
  this.timeout(30_000);
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer({
      max_connections: "40",
      max_connections_per_address: "10",
      feed_max_streams_per_address: "10",
      keepalive_timeout_seconds: "30",
      metrics_listen_port: "0",
      articles_read_principals: "system.Authenticated",
    });
  });
  afterEach(async () => {
    for (const connection of opened.splice(0)) connection.socket.destroy();
    await server.stop();
  });

  it("closes the longest idle connection to serve a new client", async () => {
    const port = portOf(server);
    // 30 keep-alive connections idle after one answer, then 10 that never send a byte: full.
    const used: RawConnection[] = [];
    for (const address of ["127.0.0.11", "127.0.0.12", "127.0.0.13"])
      for (let i = 0; i < 10; i += 1) {
        const connection = await rawConnect(port, address);
        opened.push(connection);
        connection.socket.write("GET /v1/__lbheartbeat__ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        await until(() => connection.status() === 200, "a keep-alive answer");
        used.push(connection);
      }
    const silent = await openMany(
      10,
      () => rawConnect(port, "127.0.0.14"),
      async () => {},
    );
    await until(async () => (await openConnections(server)) === 40, "40 open connections");

    const answer = await requestFrom(server.url, "127.0.0.20", "GET", "/v1/__lbheartbeat__");
    expect(answer.status).to.equal(200);
    await until(() => used[0]!.isClosed(), "the longest idle connection to be closed");
    expect(used.slice(1).some((c) => c.isClosed()) || silent.some((c) => c.isClosed())).to.equal(false);
    const exposition = await scrape(server);
    expect(metricValue(exposition, "tessera_http_idle_connections_reclaimed_total")).to.equal(1);
    expect(metricValue(exposition, "tessera_http_refused_total", 'reason="max_connections"')).to.equal(0);
  });

  it("answers 503 with Retry-After when every connection serves an event stream", async () => {
    const port = portOf(server);
    const streams: RawConnection[] = [];
    for (const address of ["127.0.0.31", "127.0.0.32", "127.0.0.33", "127.0.0.34"])
      for (let i = 0; i < 10; i += 1) streams.push(await rawStream(port, address, { credentials: `reader${address}-${i}:pw` }));
    opened.push(...streams);
    await until(() => streams.every((s) => s.received().includes(": connected")), "40 open streams");

    const refused = await rawConnect(port, "127.0.0.40");
    opened.push(refused);
    refused.socket.write("GET /v1/__lbheartbeat__ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await refused.closed;
    expectRefusal(refused, 503, 201);
    // An ordinary HTTP client reads the same answer.
    const answer = await requestFrom(server.url, "127.0.0.40", "GET", "/v1/__lbheartbeat__");
    expect(answer.status).to.equal(503);
    expect(answer.headers["retry-after"]).to.equal("30");
    expect(answer.body).to.deep.include({ code: 503, errno: 201, error: "Service Unavailable" });
    expect(metricValue(await scrape(server), "tessera_http_refused_total", 'reason="max_connections"')).to.equal(2);
  });
});
