/**
 * Fault injection, PostgreSQL for storage, permissions and cache: a `tessera serve` process
 * behind a TCP proxy whose live sockets are destroyed mid-query, mid-transaction, mid-batch and
 * while the pool is idle. The process must stay up, answer 503 + Retry-After while PostgreSQL is
 * away, serve again within RECOVERY_BOUND_MS once it is back, and keep every acknowledged write.
 */
import { expect } from "chai";
import { databaseUrl } from "../support/postgres.js";
import { startServerProcess, type ServerProcess } from "../support/server-process.js";
import { POSTGRES_URL, requireService } from "../support/services.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import { FaultDrill, isStatement, nthChunkOfTransaction } from "./fault-drill.js";
import { prepareReliabilityDatabase, RELIABILITY_DATABASE as DATABASE } from "./reliability-database.js";

const REPETITIONS = 20;
const AUTH = `Basic ${Buffer.from("alice:pw").toString("base64")}`;

describe("faults: PostgreSQL storage, permissions and cache lose their connections", function () {
  requireService("postgresql");
  this.timeout(60_000);
  let proxy: TcpProxy;
  let server: ServerProcess;
  let drill: FaultDrill;

  before(async () => {
    await prepareReliabilityDatabase();
    proxy = await TcpProxy.start(POSTGRES_URL, 5432);
    const url = databaseUrl(DATABASE, proxy.port);
    server = await startServerProcess({
      resources: "notes:user articles:shareable",
      storage_backend: "postgresql",
      storage_url: url,
      permission_backend: "postgresql",
      permission_url: url,
      cache_backend: "postgresql",
      cache_url: url,
      userid_hmac_secret: "s",
      articles_create_principals: "system.Authenticated",
    });
    drill = new FaultDrill(server.url, AUTH);
  });
  afterEach(() => {
    expect(server.alive(), "the server process is still running").to.equal(true);
  });
  after(async () => {
    await server?.stop();
    await proxy?.close();
  });

  const unavailableWrite = () => drill.create("articles");
  const unavailableRead = () => drill.send({ method: "GET", path: "/v1/articles" });

  it("mid-query: a statement's connection dies under it", async () => {
    for (let repetition = 0; repetition < REPETITIONS; repetition++) {
      await drill.outage({
        proxy,
        cut: () => proxy.cutWhen(isStatement),
        traffic: () => Promise.all([drill.create("notes"), drill.create("notes"), drill.send({ method: "GET", path: "/v1/notes" })]),
        probes: [() => drill.create("notes"), unavailableRead],
        recovered: () => drill.create("notes"),
      });
    }
  });

  it("mid-transaction: the connection dies at each step of a record + ACL write", async () => {
    for (let repetition = 0; repetition < REPETITIONS; repetition++) {
      await drill.outage({
        proxy,
        // BEGIN, the ACL statement, the record statement(s), COMMIT: a different step each time.
        cut: () => proxy.cutWhen(nthChunkOfTransaction(repetition % 4)),
        traffic: () => Promise.all([drill.create("articles"), drill.create("articles"), drill.create("notes")]),
        probes: [unavailableWrite, unavailableRead],
        recovered: () => drill.create("articles"),
      });
    }
  });

  it("mid-batch: the connection dies inside a batch's transaction", async () => {
    for (let repetition = 0; repetition < REPETITIONS; repetition++) {
      await drill.outage({
        proxy,
        cut: () => proxy.cutWhen(nthChunkOfTransaction(1 + (repetition % 10))),
        traffic: () => Promise.all([drill.batchCreate("articles", 4), drill.create("articles")]),
        probes: [() => drill.batchCreate("articles", 2), unavailableRead],
        recovered: () => drill.batchCreate("articles", 2),
      });
    }
  });

  it("idle pool: every pooled connection dies while none is in use", async () => {
    for (let repetition = 0; repetition < REPETITIONS; repetition++) {
      await drill.outage({
        proxy,
        cut: async () => {
          expect(proxy.liveConnections).to.be.greaterThan(0);
          await proxy.cut();
        },
        traffic: () => Promise.resolve(),
        probes: [unavailableWrite, unavailableRead, () => drill.create("notes")],
        recovered: () => drill.create("articles"),
      });
    }
  });

  it("heartbeat: reports the outage and recovers", async () => {
    const heartbeat = () => drill.send({ method: "GET", path: "/__heartbeat__" });
    for (let repetition = 0; repetition < REPETITIONS; repetition++) {
      await drill.outage({
        proxy,
        cut: () => proxy.cutWhen(isStatement),
        traffic: async () => {
          const reply = await heartbeat();
          if (reply.status !== 200) expect(reply.status).to.equal(503);
          if (reply.status === 503) expect(reply.retryAfter).to.match(/^\d+$/);
        },
        probes: [unavailableWrite, heartbeat],
        recovered: heartbeat,
        isRecovered: (reply) => reply.status === 200,
      });
    }
  });

  it("keeps every acknowledged write", async () => {
    await drill.expectAllAcknowledgedPresent();
  });
});
