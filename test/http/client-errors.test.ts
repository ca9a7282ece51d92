/**
 * Requests Node's HTTP parser refuses never reach the application: they are still answered as
 * Node answers them, logged (info, with the parser's code) and counted in the metrics.
 */
import { connect } from "node:net";
import { Writable } from "node:stream";
import { expect } from "chai";
import { pino } from "pino";
import { startServer, type RunningServer } from "../../src/bootstrap/server.js";
import { settingsFrom } from "../support/http.js";

/** Sends raw bytes on a new connection; resolves with everything the server sent until it closed. */
function raw(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => socket.end(bytes));
    let received = "";
    socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
    socket.on("error", () => undefined); // the server may close while the client still writes
    socket.on("close", () => resolve(received));
  });
}

describe("HTTP requests refused by Node's parser", () => {
  let server: RunningServer;
  let lines: Record<string, unknown>[];

  before(async () => {
    lines = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const text of chunk.toString().split("\n")) if (text.trim()) lines.push(JSON.parse(text));
        done();
      },
    });
    server = await startServer(settingsFrom(), { logger: pino({ level: "info" }, sink) });
  });
  after(() => server.stop());

  const refusals = async () => {
    const text = await (await fetch(`${server.url}/v1/__metrics__`)).text();
    return Object.fromEntries(
      [...text.matchAll(/^tessera_http_client_errors_total\{code="([^"]+)"\} (\d+)$/gm)].map((m) => [m[1], Number(m[2])]),
    );
  };

  it("answers, logs and counts a request line that is not HTTP", async () => {
    expect(await refusals()).to.deep.equal({});
    const answer = await raw(server.url, "NOT HTTP AT ALL\r\n\r\n");
    expect(answer).to.match(/^HTTP\/1\.1 400 Bad Request\r\n/);
    const answer2 = await raw(server.url, "GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n");
    expect(answer2).to.match(/^HTTP\/1\.1 400 Bad Request\r\n/);
    const logged = lines.filter((line) => line.msg === "request refused by the HTTP parser");
    expect(logged.map((line) => [line.level, line.code])).to.deep.equal([
      [30, "HPE_INVALID_METHOD"],
      [30, "HPE_INVALID_HEADER_TOKEN"],
    ]);
    expect(logged[0]).to.include({ remote_address: "127.0.0.1" });
    expect(await refusals()).to.deep.equal({ HPE_INVALID_METHOD: 1, HPE_INVALID_HEADER_TOKEN: 1 });
  });

  it("answers headers too large with 431, as Node does, and counts it", async () => {
    const answer = await raw(server.url, `GET /v1/ HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(64 * 1024)}\r\n\r\n`);
    expect(answer).to.match(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect((await refusals()).HPE_HEADER_OVERFLOW).to.equal(1);
  });
});
