/**
 * The live feed across `serve` processes on one PostgreSQL database (LISTEN/NOTIFY): a write on
 * one process reaches subscribers on the other; a cut listener connection is reopened without
 * crashing the process; SIGTERM ends the streams and the process exits 0.
 */
import { expect } from "chai";
import { databaseUrl, withAdmin } from "../support/postgres.js";
import { startServerProcess, type ServerProcess } from "../support/server-process.js";
import { requireService } from "../support/services.js";
import { migratedDatabase, sharedPostgresSettings } from "../support/shared-postgres.js";
import { SseClient } from "./sse-client.js";

const DATABASE = "tessera_feed_processes_test";
const SECRET = "feed-secret";
const ALICE = `Basic ${Buffer.from("alice:pw").toString("base64")}`;

describe("live feed across two server processes", function () {
  requireService("postgresql");
  this.timeout(60_000);
  let servers: ServerProcess[] = [];
  const clients: SseClient[] = [];
  const server = (index: 0 | 1): ServerProcess => {
    const started = servers[index];
    if (!started) throw new Error(`server ${index} did not start`);
    return started;
  };

  before(async () => {
    const settings = {
      resources: "articles:shareable",
      ...sharedPostgresSettings(await migratedDatabase(DATABASE, true)),
      userid_hmac_secret: SECRET,
      articles_create_principals: "system.Authenticated",
    };
    servers = await Promise.all([startServerProcess(settings), startServerProcess(settings)]);
  });
  after(async () => {
    for (const client of clients) await client.close();
    await Promise.all(servers.map((s) => s.stop()));
  });

  const put = async (server: ServerProcess, id: string, reader: string) => {
    const res = await fetch(`${server.url}/v1/articles/${id}`, {
      method: "PUT",
      headers: { Authorization: ALICE, "Content-Type": "application/json" },
      body: JSON.stringify({ data: { id }, permissions: { read: [reader] } }),
    });
    expect(res.status).to.be.oneOf([200, 201]);
  };

  it("delivers a write made on one process to a subscriber of the other, both ways", async () => {
    // The test helpers' userId() uses another secret: ask the server for Bob's id.
    const root = (await (
      await fetch(`${server(0).url}/v1/`, { headers: { Authorization: `Basic ${Buffer.from("bob:pw").toString("base64")}` } })
    ).json()) as { user: { id: string } };
    const bob = root.user.id;
    const onFirst = await SseClient.open(`${server(0).url}/v1/articles`, { user: "bob:pw" });
    const onSecond = await SseClient.open(`${server(1).url}/v1/articles`, { user: "bob:pw" });
    clients.push(onFirst, onSecond);
    expect([onFirst.status, onSecond.status]).to.deep.equal([200, 200]);
    await put(server(1), "p1", bob);
    await put(server(0), "p2", bob);
    // A process knows the action of its own writes; another process's write may be read (woken
    // by an earlier signal) before its own signal arrives, and then shows as `update` (docs/api.md).
    const seen = async (client: SseClient) => (await client.waitFor(2)).map((e) => [e.event, e.data.id]);
    const [first, second] = [await seen(onFirst), await seen(onSecond)];
    expect(first.map(([, id]) => id)).to.deep.equal(["p1", "p2"]);
    expect(second.map(([, id]) => id)).to.deep.equal(["p1", "p2"]);
    expect(first[1]).to.deep.equal(["create", "p2"]);
    expect(second[0]).to.deep.equal(["create", "p1"]);
    for (const pair of [first[0], second[1]]) expect(pair?.[0]).to.be.oneOf(["create", "update"]);
  });

  it("reopens a cut listener connection without crashing, and still delivers what was written meanwhile", async () => {
    const root = (await (
      await fetch(`${server(0).url}/v1/`, { headers: { Authorization: `Basic ${Buffer.from("bob:pw").toString("base64")}` } })
    ).json()) as { user: { id: string } };
    const subscriber = await SseClient.open(`${server(0).url}/v1/articles`, { user: "bob:pw" });
    clients.push(subscriber);
    const cut = await withAdmin(databaseUrl(DATABASE), async (client) => {
      const result = await client.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'tessera-listen' AND datname = current_database()",
      );
      return result.rowCount;
    });
    expect(cut).to.be.at.least(2);
    await put(server(1), "c1", root.user.id);
    const [event] = await subscriber.waitFor(1, 15_000);
    if (!event) throw new Error("no event arrived");
    // Written while nobody listened (or just after): read back by the resync that follows the
    // reconnection, where the action is not known any more, or by the signal itself.
    expect(event.data.id).to.equal("c1");
    expect(event.event).to.be.oneOf(["create", "update"]);
    const health = await fetch(`${server(0).url}/v1/__heartbeat__`);
    expect(health.status).to.equal(200);
  });

  it("ends the streams on SIGTERM and exits 0", async () => {
    const subscriber = await SseClient.open(`${server(1).url}/v1/articles`, { user: "bob:pw" });
    clients.push(subscriber);
    expect(subscriber.status).to.equal(200);
    const code = await server(1).stop();
    expect(code).to.equal(0);
    await subscriber.waitUntil(() => subscriber.ended);
    expect(subscriber.endedCleanly).to.equal(true);
  });
});
