/**
 * Fault injection, PostgreSQL storage with Redis permissions and a Redis cache: a `tessera serve`
 * process behind three TCP proxies (PostgreSQL, Redis for permissions, Redis for the cache), cut
 * one at a time mid-query, mid-transaction, mid-batch and idle. Besides what every fault drill
 * checks, a create refused because storage failed must leave no ACL behind in Redis.
 */
import { randomUUID } from "node:crypto";
import { expect } from "chai";
import { RedisPermissionStore } from "../../src/adapters/redis/redis-permission-store.js";
import { TEST_SECRET, userId } from "../support/http.js";
import { databaseUrl } from "../support/postgres.js";
import { startServerProcess, type ServerProcess } from "../support/server-process.js";
import { POSTGRES_URL, REDIS_URL, requireService } from "../support/services.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import { FaultDrill, isStatement, nthChunkOfTransaction, type Reply } from "./fault-drill.js";
import { prepareReliabilityDatabase, RELIABILITY_DATABASE as DATABASE } from "./reliability-database.js";

const REPETITIONS = 20;
const AUTH = `Basic ${Buffer.from("alice:pw").toString("base64")}`;
const PERMISSION_PREFIX = `tessera-faults-permission-${process.pid}:`;
const CACHE_PREFIX = `tessera-faults-cache-${process.pid}:`;

describe("faults: PostgreSQL storage with Redis permissions and cache lose their connections", function () {
  requireService("postgresql");
  requireService("redis");
  this.timeout(60_000);
  let postgres: TcpProxy;
  let permissionRedis: TcpProxy;
  let cacheRedis: TcpProxy;
  let server: ServerProcess;
  let drill: FaultDrill;
  let permissions: RedisPermissionStore;

  before(async () => {
    await prepareReliabilityDatabase();
    [postgres, permissionRedis, cacheRedis] = await Promise.all([
      TcpProxy.start(POSTGRES_URL, 5432),
      TcpProxy.start(REDIS_URL, 6379),
      TcpProxy.start(REDIS_URL, 6379),
    ]);
    server = await startServerProcess({
      resources: "notes:user articles:shareable",
      storage_backend: "postgresql",
      storage_url: databaseUrl(DATABASE, postgres.port),
      permission_backend: "redis",
      permission_url: permissionRedis.rewrite(REDIS_URL),
      permission_prefix: PERMISSION_PREFIX,
      cache_backend: "redis",
      cache_url: cacheRedis.rewrite(REDIS_URL),
      cache_prefix: CACHE_PREFIX,
      userid_hmac_secret: TEST_SECRET,
      articles_create_principals: "system.Authenticated",
    });
    drill = new FaultDrill(server.url, AUTH);
    permissions = new RedisPermissionStore({ url: REDIS_URL, prefix: PERMISSION_PREFIX });
  });
  afterEach(() => {
    expect(server.alive(), "the server process is still running").to.equal(true);
  });
  after(async () => {
    await server?.stop();
    await Promise.all([postgres?.close(), permissionRedis?.close(), cacheRedis?.close()]);
    await permissions?.flush();
    await permissions?.close();
  });

  const read = () => drill.send({ method: "GET", path: "/v1/articles" });
  const heartbeat = () => drill.send({ method: "GET", path: "/__heartbeat__" });
  const ids = (count: number) => Array.from({ length: count }, () => randomUUID());

  describe("PostgreSQL away", () => {
    it("mid-query", async () => {
      for (let repetition = 0; repetition < REPETITIONS; repetition++) {
        await drill.outage({
          proxy: postgres,
          cut: () => postgres.cutWhen(isStatement),
          traffic: () => Promise.all([drill.create("notes"), drill.create("articles", randomUUID()), read()]),
          probes: [() => drill.create("articles", randomUUID()), read],
          recovered: () => drill.create("articles"),
        });
      }
    });

    it("mid-transaction (a record write and its ACL in Redis)", async () => {
      for (let repetition = 0; repetition < REPETITIONS; repetition++) {
        await drill.outage({
          proxy: postgres,
          // BEGIN, the record statement(s), COMMIT: a different step each time.
          cut: () => postgres.cutWhen(nthChunkOfTransaction(repetition % 3)),
          traffic: () => Promise.all([drill.create("articles", randomUUID()), drill.create("articles", randomUUID())]),
          probes: [() => drill.create("articles", randomUUID()), read],
          recovered: () => drill.create("articles"),
        });
      }
    });

    it("mid-batch", async () => {
      for (let repetition = 0; repetition < REPETITIONS; repetition++) {
        await drill.outage({
          proxy: postgres,
          cut: () => postgres.cutWhen(nthChunkOfTransaction(1 + (repetition % 6))),
          traffic: () => drill.batchCreate("articles", 4, ids(4)),
          probes: [() => drill.batchCreate("articles", 2, ids(2)), read],
          recovered: () => drill.batchCreate("articles", 2),
        });
      }
    });

    it("idle pool", async () => {
      for (let repetition = 0; repetition < REPETITIONS; repetition++) {
        await drill.outage({
          proxy: postgres,
          cut: () => postgres.cut(),
          traffic: () => Promise.resolve(),
          probes: [() => drill.create("articles", randomUUID()), read],
          recovered: () => drill.create("articles"),
        });
      }
    });
  });

  describe("Redis (permissions) away", () => {
    it("mid-query", async () => {
      for (let repetition = 0; repetition < REPETITIONS; repetition++) {
        await drill.outage({
          proxy: permissionRedis,
          cut: () => permissionRedis.cutWhen(() => true),
          traffic: () => Promise.all([drill.create("articles"), drill.create("articles"), read()]),
          probes: [() => drill.create("articles"), read],
          recovered: () => drill.create("articles"),
        });
      }
    });

    it("idle connections", async () => {
      for (let repetition = 0; repetition < REPETITIONS; repetition++) {
        await drill.outage({
          proxy: permissionRedis,
          cut: () => permissionRedis.cut(),
          traffic: () => Promise.resolve(),
          probes: [() => drill.create("articles"), read],
          recovered: () => drill.create("articles"),
        });
      }
    });
  });

  describe("Redis (cache) away", () => {
    const cacheDown = (reply: Reply) =>
      reply.status === 503 && /^\d+$/.test(reply.retryAfter ?? "") && (reply.body as { cache: boolean }).cache === false;
    for (const [name, cut] of [
      ["mid-query", () => cacheRedis.cutWhen(() => true)],
      ["idle connections", () => cacheRedis.cut()],
    ] as const) {
      // The cache serves no record request: the heartbeat is what must report it (503 with
      // Retry-After, the failing backend false) and then recover.
      it(`${name}: the heartbeat reports it and recovers, records are still served`, async () => {
        for (let repetition = 0; repetition < REPETITIONS; repetition++) {
          const cutting = cut();
          const during = await heartbeat();
          await drill.expectCut(cutting);
          expect(during.status, JSON.stringify(during.body)).to.be.oneOf([200, 503]);
          const down = await heartbeat();
          expect(cacheDown(down), JSON.stringify(down.body)).to.equal(true);
          expect((await drill.create("articles")).status).to.equal(201);
          await drill.recovery(cacheRedis, heartbeat, (reply) => reply.status === 200);
        }
      });
    }
  });

  // After every outage above (mocha runs a suite's own tests before its nested suites).
  describe("afterwards", () => {
    it("keeps every acknowledged write, with its creator as writer", async () => {
      await drill.expectAllAcknowledgedPresent();
      for (const path of drill.acknowledged.keys()) {
        if (!path.startsWith("/v1/articles/")) continue;
        const acl = await permissions.objectPermissions(path.slice("/v1".length));
        expect([...(acl.write ?? [])], path).to.include(userId("alice:pw"));
      }
    });

    it("leaves no ACL in Redis for a create refused because storage failed", async () => {
      expect(drill.refused.size).to.be.greaterThan(0);
      for (const path of drill.refused) {
        // Without a leftover `write` ACE the creator may not even learn whether it exists.
        expect((await drill.send({ method: "GET", path })).status, path).to.equal(403);
        expect(await permissions.objectPermissions(path.slice("/v1".length)), path).to.deep.equal({});
      }
    });
  });
});
