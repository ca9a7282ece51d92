/**
 * Slow and idle clients against request_timeout_seconds, headers_timeout_seconds and
 * keepalive_timeout_seconds, configured small so each case takes about a second
 * (max_connections and the bounds per address: connection-admission.test.ts).
 */
import { expect } from "chai";
import { connect, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { startTestServer, type TestServer } from "../support/http.js";

interface Connection {
  readonly socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves when the server has closed the connection (or reset it). */
  readonly closed: Promise<void>;
  isClosed(): boolean;
}

async function open(url: string): Promise<Connection> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let data = "";
  let closed = false;
  socket.on("data", (chunk: Buffer) => (data += chunk.toString("latin1")));
  socket.on("error", () => {}); // a reset is a close for these tests
  const closedPromise = new Promise<void>((resolve) => socket.on("close", () => resolve())).then(() => {
    closed = true;
  });
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  return { socket, received: () => data, closed: closedPromise, isClosed: () => closed };
}

/** Writes `text` one byte per `everyMs` until done or the server closes; true when the server closed first. */
async function trickle(connection: Connection, text: string, everyMs: number): Promise<boolean> {
  for (const byte of text) {
    if (connection.isClosed() || connection.socket.destroyed) return true;
    connection.socket.write(byte);
    await sleep(everyMs);
  }
  return connection.isClosed();
}

/** Waits for the close, at most `ms`; true when it closed. */
async function closesWithin(connection: Connection, ms: number): Promise<boolean> {
  await Promise.race([connection.closed, sleep(ms)]);
  return connection.isClosed();
}

const REQUEST = "GET /v1/__lbheartbeat__ HTTP/1.1\r\nHost: localhost\r\n\r\n";

describe("HTTP connection limits", () => {
  describe("timeouts", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ request_timeout_seconds: "1", headers_timeout_seconds: "0.5", keepalive_timeout_seconds: "0.5" });
    });
    after(() => server.stop());

    it("cuts a body sent one byte at a time (request_timeout_seconds) with a 408", async () => {
      const connection = await open(server.url);
      connection.socket.write(
        "PUT /v1/notes/n1 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Basic YWxpY2U6cHc=\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n",
      );
      // 40 bytes at one per 100 ms would take 4 s; the server gives the whole request 1 s.
      const cutFirst = await trickle(connection, `{"data":{"x":"${"a".repeat(23)}"}}`, 100);
      expect(cutFirst).to.equal(true);
      expect(connection.received()).to.match(/^HTTP\/1\.1 408/);
      const stored = await server.request("GET", "/v1/notes/n1", { user: "alice:pw" });
      expect(stored.status).to.equal(404);
    });

    it("cuts headers sent one byte at a time (headers_timeout_seconds)", async () => {
      const connection = await open(server.url);
      const cutFirst = await trickle(connection, `GET /v1/ HTTP/1.1\r\nHost: localhost\r\nX-Slow: ${"b".repeat(40)}\r\n\r\n`, 50);
      expect(cutFirst).to.equal(true);
      expect(connection.received()).to.match(/^HTTP\/1\.1 408/);
    });

    it("closes an idle keep-alive connection (keepalive_timeout_seconds)", async () => {
      const connection = await open(server.url);
      connection.socket.write(REQUEST);
      expect(await closesWithin(connection, 4000)).to.equal(true);
      expect(connection.received()).to.match(/^HTTP\/1\.1 200/);
    });

    it("lets a prompt client keep its connection for several requests", async () => {
      const connection = await open(server.url);
      for (let i = 0; i < 3; i++) {
        connection.socket.write(REQUEST);
        await sleep(100);
      }
      expect(connection.received().match(/HTTP\/1\.1 200/g)).to.have.length(3);
      connection.socket.destroy();
    });
  });
});
