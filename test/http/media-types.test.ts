/**
 * Media types are case-insensitive (RFC 9110 §8.3.1), parameters included, in `Content-Type` and
 * `Accept`; `HEAD` of the live feed answers what `GET` would, without a body.
 */
import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http.js";
import { SseClient } from "../sync/sse-client.js";

const ALICE = "alice:pw";

describe("HTTP media types", () => {
  let server: TestServer;
  const clients: SseClient[] = [];
  before(async () => {
    server = await startTestServer();
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
    await server.request("DELETE", "/v1/notes", { user: ALICE });
  });
  after(() => server.stop());

  it("reads JSON bodies whatever the case of the type and its parameters", async () => {
    for (const [i, type] of ["APPLICATION/JSON", "Application/Json; Charset=UTF-8", "application/json ; charset=utf-8"].entries()) {
      const res = await server.request("PUT", `/v1/notes/n${i}`, {
        user: ALICE,
        body: { data: { v: i } },
        headers: { "Content-Type": type },
      });
      expect(res.status, type).to.equal(201);
      expect(res.body.data, type).to.include({ id: `n${i}`, v: i });
    }
  });

  it("tells the PATCH dialects apart whatever their case", async () => {
    await server.request("PUT", "/v1/notes/p", { user: ALICE, body: { data: { a: { b: 1, c: 2 } } } });
    const merge = await server.request("PATCH", "/v1/notes/p", {
      user: ALICE,
      body: { data: { a: { b: null } } },
      headers: { "Content-Type": "Application/Merge-Patch+JSON; Charset=utf-8" },
    });
    expect(merge.status).to.equal(200);
    expect(merge.body.data.a).to.deep.equal({ c: 2 }); // merge patch: null removes, siblings stay
    const jsonPatch = await server.request("PATCH", "/v1/notes/p", {
      user: ALICE,
      body: [{ op: "add", path: "/data/a/d", value: 4 }],
      headers: { "Content-Type": "APPLICATION/JSON-PATCH+JSON" },
    });
    expect(jsonPatch.status).to.equal(200);
    expect(jsonPatch.body.data.a).to.deep.equal({ c: 2, d: 4 });
  });

  it("still refuses other types with 415", async () => {
    const res = await server.request("PUT", "/v1/notes/t", { user: ALICE, rawBody: "{}", headers: { "Content-Type": "TEXT/PLAIN" } });
    expect(res.status).to.equal(415);
  });

  it("streams the feed for Accept: TEXT/EVENT-STREAM", async () => {
    const client = await SseClient.open(`${server.url}/v1/notes`, { user: ALICE, headers: { Accept: "TEXT/EVENT-STREAM" } });
    clients.push(client);
    expect(client.status).to.equal(200);
    expect(client.headers.get("content-type")).to.match(/^text\/event-stream/);
  });

  it("answers HEAD of the feed as GET, with the stream's headers and no body", async () => {
    const head = (user: string | undefined, headers: Record<string, string> = {}) =>
      server.request("HEAD", "/v1/notes", { user, headers: { Accept: "text/event-stream", ...headers } });
    const ok = await head(ALICE);
    expect(ok.status).to.equal(200);
    expect(ok.headers.get("content-type")).to.match(/^text\/event-stream/);
    expect(ok.headers.get("cache-control")).to.equal("no-cache, no-store");
    expect(ok.body).to.equal(undefined);
    // The checks of GET: anonymous 401, a bad Last-Event-ID 400 (both JSON, as for GET).
    expect((await head(undefined)).status).to.equal(401);
    expect((await head(ALICE, { "Last-Event-ID": "x" })).status).to.equal(400);
  });
});
