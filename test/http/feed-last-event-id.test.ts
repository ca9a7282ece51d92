/**
 * `Last-Event-ID` is a client timestamp like `_since`: an integer at most 24 h ahead of the server
 * clock. A later one would be accepted as a start that no write reaches for a day or more, and
 * the stream would stay silent.
 */
import { expect } from "chai";
import type { Clock } from "../../src/application/ports/clock.js";
import { startTestServer, type TestServer } from "../support/http.js";
import { SseClient } from "../sync/sse-client.js";

const ALICE = "alice:pw";
const NOW = 1_800_000_000_000;
const DAY = 24 * 3600 * 1000;
const fixedClock: Clock = { now: () => NOW };

describe("HTTP live feed Last-Event-ID bounds", () => {
  let server: TestServer;
  const clients: SseClient[] = [];
  before(async () => {
    server = await startTestServer({}, [], fixedClock);
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
  });
  after(() => server.stop());

  const open = async (lastEventId: string) => {
    const client = await SseClient.open(`${server.url}/v1/notes`, { user: ALICE, headers: { "Last-Event-ID": lastEventId } });
    clients.push(client);
    return client;
  };

  it("refuses what _since refuses, with a 400 naming the header", async () => {
    for (const value of [String(NOW + DAY + 1), "4102444800000", "-1", "1.5", "abc", "9007199254740993"]) {
      const since = await server.request("GET", `/v1/notes?_since=${value}`, { user: ALICE });
      expect(since.status, `_since=${value}`).to.equal(400);
      const client = await open(value);
      expect(client.status, value).to.equal(400);
      expect((client.body as { details: unknown[] }).details, value).to.deep.equal([
        {
          location: "header",
          name: "Last-Event-ID",
          description: "Last-Event-ID must be a timestamp: an integer of milliseconds, at most 24 hours ahead of the server clock",
        },
      ]);
    }
  });

  it("accepts what _since accepts, up to 24 hours ahead", async () => {
    for (const value of [String(NOW + DAY), "0", String(NOW)]) {
      expect((await server.request("GET", `/v1/notes?_since=${value}`, { user: ALICE })).status, value).to.equal(200);
      const client = await open(value);
      expect(client.status, value).to.equal(200);
      expect(client.headers.get("content-type")).to.match(/^text\/event-stream/);
    }
  });
});
