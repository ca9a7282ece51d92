/**
 * Live feed limits: a subscriber that stops reading is dropped once its unread output passes
 * `feed_buffer_bytes` (writers go on), and idle streams get a keep-alive comment line.
 */
import net from "node:net";
import { expect } from "chai";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { startTestServer, type TestServer } from "../support/http.js";
import { SseClient } from "./sse-client.js";

const BOB = "bob:pw";

describe("live feed limits", function () {
  this.timeout(30_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer({
      feed_buffer_bytes: "1024",
      feed_keepalive_seconds: "1",
      articles_read_principals: "system.Authenticated",
    });
  });
  after(() => server?.stop());

  it("drops a subscriber that stops reading, while every write still succeeds", async () => {
    const feed = await server.running.container.getAsync(TOKENS.LiveFeed);
    const { port } = new URL(server.url);
    const socket = net.connect(Number(port), "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(
      `GET /v1/articles HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nAuthorization: Basic ${Buffer.from(BOB).toString("base64")}\r\n\r\n`,
    );
    socket.pause(); // never reads: the server's unread output grows
    const reading = await SseClient.open(`${server.url}/v1/articles`, { user: BOB });
    for (let i = 0; i < 100 && feed.subscriberCount < 2; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(feed.subscriberCount).to.equal(2);
    const big = "x".repeat(64 * 1024);
    let writes = 0;
    for (let i = 0; i < 400 && feed.subscriberCount === 2; i += 1) {
      const res = await server.request("PUT", `/v1/articles/big${i}`, { user: "alice:pw", body: { data: { big } } });
      expect(res.status).to.equal(201);
      writes += 1;
    }
    expect(feed.subscriberCount).to.equal(1);
    // The subscriber that reads gets every write.
    expect((await reading.waitFor(writes, 15_000)).map((e) => e.data.id)).to.deep.equal(
      Array.from({ length: writes }, (_, i) => `big${i}`),
    );
    await reading.close();
    socket.destroy();
  });

  /** What a raw HTTP client reads from the feed: the head, then the body bytes, until `done` says enough. */
  async function rawFeed(version: string, done: (body: string) => boolean): Promise<{ head: string; body: string }> {
    const { port } = new URL(server.url);
    const socket = net.connect(Number(port), "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    let received = "";
    // Decoded across reads: a character split between two TCP reads must not become U+FFFD.
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (received += chunk));
    socket.write(
      `GET /v1/articles ${version}\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nAuthorization: Basic ${Buffer.from(BOB).toString("base64")}\r\n\r\n`,
    );
    const body = () => received.slice(received.indexOf("\r\n\r\n") + 4);
    for (let i = 0; i < 500 && !body().includes(": live"); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    const res = await server.request("PUT", "/v1/articles/framed", { user: "alice:pw", body: { data: { text: "é ✓" } } });
    expect(res.status).to.be.oneOf([200, 201]);
    for (let i = 0; i < 500 && !done(body()); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    socket.destroy();
    return { head: received.slice(0, received.indexOf("\r\n\r\n")), body: body() };
  }

  /** Decodes a chunked body (RFC 9112 §7.1), byte lengths and all; throws on a malformed chunk. */
  function dechunk(raw: string): string {
    let rest = Buffer.from(raw, "utf8");
    let out = "";
    while (rest.length > 0) {
      const lineEnd = rest.indexOf("\r\n");
      const size = parseInt(rest.subarray(0, lineEnd).toString("latin1"), 16);
      if (lineEnd < 0 || Number.isNaN(size)) throw new Error(`bad chunk header in ${JSON.stringify(rest.toString())}`);
      const data = rest.subarray(lineEnd + 2, lineEnd + 2 + size);
      if (rest.subarray(lineEnd + 2 + size, lineEnd + 4 + size).toString("latin1") !== "\r\n")
        throw new Error("chunk longer than its size");
      out += data.toString("utf8");
      rest = rest.subarray(lineEnd + 4 + size);
    }
    return out;
  }

  it("frames the stream as HTTP/1.1 chunks, and as plain bytes to an HTTP/1.0 client", async () => {
    const event = /id: \d+\nevent: (create|update)\ndata: \{"text":"é ✓","id":"framed","last_modified":\d+\}\n\n$/;
    const chunked = await rawFeed("HTTP/1.1", (body) => /framed.*\n\n\r\n$/s.test(body));
    expect(chunked.head.toLowerCase()).to.include("transfer-encoding: chunked");
    expect(dechunk(chunked.body))
      .to.match(/^: connected\nretry: 3000\n\n: live\n\n/)
      .and.to.match(event);
    const plain = await rawFeed("HTTP/1.0", (body) => /framed.*\n\n$/s.test(body));
    expect(plain.head.toLowerCase()).to.not.include("transfer-encoding");
    expect(plain.body)
      .to.match(/^: connected\nretry: 3000\n\n: live\n\n/)
      .and.to.match(event);
  });

  it("sends a keep-alive comment line on an idle stream", async () => {
    const idle = await SseClient.open(`${server.url}/v1/articles`, { user: BOB });
    await idle.waitUntil(() => idle.comments.includes("keep-alive"));
    expect(idle.events).to.deep.equal([]);
    await idle.close();
  });
});

describe("live feed authorization", function () {
  this.timeout(20_000);
  let server: TestServer;

  before(async () => {
    // Nobody may create: a caller who may read no record is refused, as by the listing.
    server = await startTestServer({ articles_create_principals: undefined });
  });
  after(() => server?.stop());

  it("answers 403 in JSON where the listing answers 403, and 401 to anonymous callers", async () => {
    const listing = await server.request("GET", "/v1/articles", { user: BOB });
    expect(listing.status).to.equal(403);
    const feed = await SseClient.open(`${server.url}/v1/articles`, { user: BOB });
    expect(feed.status).to.equal(403);
    expect(feed.body).to.deep.include({ code: 403, errno: listing.body.errno });
    expect((await SseClient.open(`${server.url}/v1/articles`)).status).to.equal(401);
  });

  it("keeps 406 for an event stream asked of a record URL", async () => {
    const res = await server.request("GET", "/v1/articles/a1", { user: BOB, headers: { Accept: "text/event-stream" } });
    expect(res.status).to.equal(406);
  });
});
