/**
 * The server's own origin (its admin page: browsers send `Origin` with writes and module scripts,
 * even same-origin) is never refused, whatever `cors_origins` lists.
 */
import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http.js";

const ALICE = "alice:pw";

describe("HTTP same-origin requests and cors_origins", () => {
  let listed: TestServer;
  before(async () => {
    listed = await startTestServer({ cors_origins: "https://*.example.com http://localhost:3000" });
  });
  after(() => listed.stop());

  it("never refuses a request from the server's own origin, though cors_origins does not list it", async () => {
    const own = new URL(listed.url).origin; // what a browser sends from a page the server served
    const written = await listed.request("PUT", "/v1/notes/own", { user: ALICE, body: { data: { v: 1 } }, headers: { Origin: own } });
    expect(written.status).to.equal(201);
    const read = await listed.request("GET", "/v1/notes/own", { user: ALICE, headers: { Origin: own } });
    expect(read.status).to.equal(200);
    expect(read.body.data).to.include({ v: 1 });
    // The same host with another port, or another host with this port, is another origin.
    const port = new URL(listed.url).port;
    for (const other of [`http://127.0.0.1:${Number(port) + 1}`, `http://localhost:${port}`, "null"]) {
      const res = await listed.request("GET", "/v1/notes/own", { user: ALICE, headers: { Origin: other } });
      expect(res.status, other).to.equal(400);
    }
  });
});
