/** The Redis adapters: both shared contracts, then what only Redis can show (outages, backlog, key hygiene). */
import { expect } from "chai";
import net from "node:net";
import { Redis } from "ioredis";
import { RedisCache } from "../../src/adapters/redis/redis-cache.js";
import type { RedisConnectionOptions } from "../../src/adapters/redis/redis-connection.js";
import { DELETE_BATCH, RedisPermissionStore } from "../../src/adapters/redis/redis-permission-store.js";
import type { Cache } from "../../src/application/ports/cache.js";
import type { PermissionStore } from "../../src/application/ports/permission-store.js";
import { BackendError } from "../../src/domain/errors.js";
import { defaultBoundPermissions } from "../../src/domain/permissions.js";
import { cacheContract } from "../contract/cache.contract.js";
import { permissionStoreContract } from "../contract/permission-store.contract.js";
import { monitorRedis } from "../support/redis-monitor.js";
import { REDIS_URL, requireService } from "../support/services.js";
import { settlesWithin, track } from "../support/settling.js";

/** A prefix no other run (or developer) shares, so tests never touch foreign keys. */
const RUN = `tessera-test:${process.pid}-${Date.now().toString(36)}:`;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Resolves to the error a promise rejects with, failing the test if it resolves. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

async function expectBackendError(promise: Promise<unknown>, backend: string): Promise<void> {
  const error = await rejection(promise);
  expect(error, String(error)).to.be.instanceOf(BackendError);
  expect((error as BackendError).backend).to.equal(backend);
}

/**
 * A TCP proxy in front of Redis that a test can freeze (requests held, like a paused server, without
 * pausing the Redis other test runs share), cut (every socket closed, port refused) and restore.
 */
class Proxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private frozen = false;
  private readonly held: (() => void)[] = [];
  port = 0;

  async start(): Promise<void> {
    const upstream = new URL(REDIS_URL);
    this.server = net.createServer((inbound) => {
      const outbound = net.connect(Number(upstream.port) || 6379, upstream.hostname);
      for (const socket of [inbound, outbound]) {
        this.sockets.add(socket);
        socket.on("error", () => socket.destroy());
        socket.on("close", () => this.sockets.delete(socket));
      }
      inbound.on("data", (chunk) => {
        if (this.frozen) this.held.push(() => outbound.write(chunk));
        else outbound.write(chunk);
      });
      outbound.pipe(inbound);
      inbound.on("close", () => outbound.destroy());
      outbound.on("close", () => inbound.destroy());
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, "127.0.0.1", resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  url(): string {
    return `redis://127.0.0.1:${this.port}${new URL(REDIS_URL).pathname}`;
  }

  freeze(): void {
    this.frozen = true;
  }

  thaw(): void {
    this.frozen = false;
    for (const forward of this.held.splice(0)) forward();
  }

  async close(): Promise<void> {
    await this.cut();
  }

  async cut(): Promise<void> {
    this.thaw();
    const closed = new Promise<void>((resolve) => this.server?.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}

/** Retries `attempt` until it succeeds or `ms` elapse. */
async function eventually<T>(ms: number, attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(50);
    }
  }
}

describe("Redis adapters", function () {
  requireService("redis");

  permissionStoreContract("redis", (options) => {
    const port = new RedisPermissionStore({ url: REDIS_URL, prefix: `${RUN}perm:`, poolSize: 4 }, options?.groupMaxDepth);
    return Promise.resolve({ port, reset: () => port.flush(), close: () => port.close() });
  });

  cacheContract("redis", (options) => {
    const port = new RedisCache({ url: REDIS_URL, prefix: `${RUN}cache:${options?.prefix ?? ""}`, poolSize: 4 });
    return Promise.resolve({ port, reset: () => port.flush(), close: () => port.close() });
  });

  describe("Redis specifics", function () {
    let admin: Redis;
    const opened: { close(): Promise<void> }[] = [];

    function permissionStore(options: Partial<RedisConnectionOptions> = {}): RedisPermissionStore {
      const store = new RedisPermissionStore({ url: REDIS_URL, prefix: `${RUN}specific:perm:`, poolSize: 2, ...options });
      opened.push(store);
      return store;
    }

    function cache(options: Partial<RedisConnectionOptions> = {}): RedisCache {
      const port = new RedisCache({ url: REDIS_URL, prefix: `${RUN}specific:cache:`, poolSize: 2, ...options });
      opened.push(port);
      return port;
    }

    async function proxy(): Promise<Proxy> {
      const started = new Proxy();
      await started.start();
      opened.push(started);
      return started;
    }

    async function keysUnder(prefix: string): Promise<string[]> {
      const keys: string[] = [];
      let cursor = "0";
      let rounds = 0;
      do {
        const [next, batch] = await admin.scan(cursor, "MATCH", `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`, "COUNT", 1000);
        keys.push(...batch);
        cursor = next;
        rounds += 1;
      } while (cursor !== "0" && rounds < 10_000);
      expect(cursor, "SCAN ended").to.equal("0");
      return keys.sort();
    }

    before(() => {
      admin = new Redis(REDIS_URL, { lazyConnect: true });
    });
    afterEach(async () => {
      for (const port of opened.splice(0).reverse()) await port.close();
      const leftovers = await keysUnder(`${RUN}specific:`);
      if (leftovers.length > 0) await admin.unlink(...leftovers);
    });
    after(async () => {
      // Leave nothing of this run behind.
      const leftovers = await keysUnder(RUN);
      if (leftovers.length > 0) await admin.unlink(...leftovers);
      await admin.quit();
    });

    describe("key layout and hygiene", () => {
      it("stores an ACE with its indexes under the prefix, in the documented layout", async () => {
        const store = permissionStore({ prefix: `${RUN}layout:` });
        await store.addPrincipalToAce("/articles/r1", "read", "alice");
        await store.addUserPrincipal("alice", "team|a");
        const keys = await keysUnder(`${RUN}layout:`);
        expect(keys.map((k) => k.slice(`${RUN}layout:`.length))).to.deep.equal([
          "a:/articles/r1|read",
          "d:",
          "d:/",
          "d:/articles/",
          "g:",
          "i:alice|read|",
          "i:alice|read|/",
          "i:alice|read|/articles/",
          "o:/articles/r1",
          "pu:team\\|a",
          "pz:team\\|a",
          "u:alice",
        ]);
        await store.deleteObjectPermissions("/articles/r1");
        await store.removeUserPrincipal("alice", "team|a");
        expect(await keysUnder(`${RUN}layout:`)).to.deep.equal([]);
      });

      it("gives memberships written before the ordered holders their pz: and g: keys on initializeSchema", async () => {
        const prefix = `${RUN}backfill:`;
        const store = permissionStore({ prefix });
        // The layout of an older version: u: and pu: only.
        for (const [user, principal] of <[string, string][]>[
          ["bob", "team|a"],
          ["alice", "team|a"],
          ["team|a", "group:top"],
        ])
          await admin
            .multi()
            .sadd(`${prefix}u:${user.replace("|", "\\|")}`, principal)
            .sadd(`${prefix}pu:${principal.replace("|", "\\|")}`, user)
            .exec();
        expect(await store.holdersPage(["team|a"], undefined, 5)).to.deep.equal([]);
        await store.initializeSchema();
        await store.initializeSchema(); // idempotent
        expect((await store.holdersPage(["team|a"], undefined, 5)).map((m) => m.id)).to.deep.equal(["alice", "bob"]);
        expect([...((await store.subgroupsOf(["group:top"])).get("group:top") ?? [])]).to.deep.equal(["team|a"]);
        expect((await store.membersPage(["group:top"], "alice", 5)).map((m) => m.id)).to.deep.equal(["bob", "team|a"]);
      });

      it("flushes only keys under its prefix, glob characters in it included", async () => {
        const prefix = `${RUN}we*i?rd[1]:`;
        const store = permissionStore({ prefix });
        const sameDbCache = cache({ prefix });
        const foreign = [`${RUN}weXi!rd1:a:/x|read`, `${RUN}we*i?rd[1]`, `${RUN}other:a`, `${RUN}we`];
        for (const key of foreign) await admin.set(key, "foreign");
        await store.addPrincipalToAce("/x", "read", "u");
        await sameDbCache.set("k", 1, 60);
        await store.flush();
        expect(await keysUnder(prefix)).to.deep.equal([]);
        for (const key of foreign) expect(await admin.get(key), key).to.equal("foreign");
        await store.addPrincipalToAce("/x", "read", "u");
        await sameDbCache.flush();
        expect(await keysUnder(prefix)).to.deep.equal([]);
        for (const key of foreign) expect(await admin.get(key), key).to.equal("foreign");
        await admin.unlink(...foreign);
      });

      it("never runs KEYS, SCAN or FLUSHDB outside flush (checked with MONITOR)", async () => {
        const prefix = `${RUN}monitor:`;
        const store = permissionStore({ prefix });
        const port = cache({ prefix });
        const monitor = await monitorRedis(REDIS_URL);
        try {
          await sleep(50);
          await store.addUserPrincipal("alice", "team");
          await store.userPrincipals("alice");
          await store.removePrincipal("team");
          await store.addPrincipalToAce("/articles/r1", "read", "alice");
          await store.replaceObjectPermissions("/articles/r2", { read: ["alice"], write: ["bob"] });
          await store.checkPermission("/articles/r1", "read", ["alice"], defaultBoundPermissions);
          await store.principalsAccessibleObjects(["alice", "bob"], "read", "/articles/*", defaultBoundPermissions);
          await store.principalsAccessibleObjects(["alice"], "read", "*le*", defaultBoundPermissions);
          await store.objectPermissionAuthorizedPrincipals("/articles/r1", "read", defaultBoundPermissions);
          await store.objectPermissions("/articles/r1");
          await store.removePrincipalFromAce("/articles/r1", "read", "alice");
          await store.deleteObjectPermissions("/articles/r2", "/articles/*", "/art*les/*");
          await port.set("k", { a: 1 }, 10);
          await port.get("k");
          await port.ttl("k");
          await port.expire("k", 5);
          await port.delete("k");
          await sleep(100);
        } finally {
          monitor.stop();
        }
        // Our connections are those that touched our prefix; other runs on this server are ignored.
        const ours = new Set(monitor.commands.filter(({ args }) => args.some((arg) => arg.includes(prefix))).map(({ client }) => client));
        const seen = monitor.commands.filter(({ client }) => ours.has(client));
        expect(seen.length).to.be.greaterThan(20);
        const names = new Set(seen.map(({ args }) => (args[0] ?? "").toLowerCase()));
        for (const forbidden of ["keys", "scan", "flushdb", "flushall"]) expect(names).not.to.include(forbidden);
      });

      it("deletes a wildcard subtree larger than one delete batch", async () => {
        const store = permissionStore({ prefix: `${RUN}batch:` });
        const count = 2 * DELETE_BATCH + 7;
        for (let i = 0; i < count; i += 100) {
          await Promise.all(
            Array.from({ length: Math.min(100, count - i) }, (_, j) =>
              store.replaceObjectPermissions(`/c/r${i + j}`, { read: ["u"], write: ["w"] }),
            ),
          );
        }
        await store.addPrincipalToAce("/cc/1", "read", "u");
        expect((await store.principalsAccessibleObjects(["u"], "read", "/c/*")).size).to.equal(count);
        await store.deleteObjectPermissions("/c", "/c/*");
        expect([...(await store.principalsAccessibleObjects(["u", "w"], "read", undefined, defaultBoundPermissions))]).to.deep.equal([
          "/cc/1",
        ]);
        await store.deleteObjectPermissions("/cc/1");
        expect(await keysUnder(`${RUN}batch:`)).to.deep.equal([]);
      });

      it("lists accessible objects in one round trip", async () => {
        const store = permissionStore({ poolSize: 1 });
        await store.addPrincipalToAce("/articles/r1", "read", "alice");
        await store.addPrincipalToAce("/articles", "write", "team");
        // eslint-disable-next-line @typescript-eslint/unbound-method -- re-applied with its `this` below
        const original = Redis.prototype.sendCommand;
        const repliesBeforeEachSend: number[] = [];
        let replies = 0;
        Redis.prototype.sendCommand = function (this: Redis, ...args: Parameters<Redis["sendCommand"]>) {
          repliesBeforeEachSend.push(replies);
          const result = original.apply(this, args);
          void Promise.resolve(result)
            .finally(() => replies++)
            .catch(() => {});
          return result;
        };
        let ids: Set<string>;
        try {
          ids = await store.principalsAccessibleObjects(
            ["alice", "team", "system.Everyone"],
            "read",
            "/articles/*",
            defaultBoundPermissions,
          );
        } finally {
          Redis.prototype.sendCommand = original;
        }
        expect([...ids].sort()).to.deep.equal(["/articles", "/articles/r1"]);
        // Four bound pairs → four commands, all sent before the first reply arrived.
        expect(repliesBeforeEachSend).to.deep.equal([0, 0, 0, 0]);
      });
    });

    describe("outages", function () {
      this.timeout(20_000);

      it("fails fast with BackendError when Redis pauses mid-request, then recovers", async () => {
        const paused = await proxy();
        const store = permissionStore({ url: paused.url(), commandTimeoutMs: 200 });
        const port = cache({ url: paused.url(), commandTimeoutMs: 200 });
        await store.addPrincipalToAce("/a", "read", "u");
        await port.set("k", "v", 60);
        paused.freeze();
        // Each call ends by the 200 ms command timeout while Redis is still paused (bound: 10×).
        await expectBackendError(settlesWithin(store.checkPermission("/a", "read", ["u"]), 2_000, "checkPermission"), "permission");
        await expectBackendError(
          settlesWithin(store.principalsAccessibleObjects(["u"], "read", "/*"), 2_000, "principalsAccessibleObjects"),
          "permission",
        );
        await expectBackendError(settlesWithin(port.get("k"), 2_000, "cache get"), "cache");
        expect(await store.heartbeat()).to.equal(false);
        paused.thaw();
        expect(await store.checkPermission("/a", "read", ["u"])).to.equal(true);
        expect(await port.get("k")).to.equal("v");
        expect(await store.heartbeat()).to.equal(true);
      });

      it("fails every operation fast with BackendError while Redis is gone, and reconnects by itself", async () => {
        const gone = await proxy();
        const store = permissionStore({ url: gone.url(), commandTimeoutMs: 1_000, connectTimeoutMs: 300 });
        const port = cache({ url: gone.url(), commandTimeoutMs: 1_000, connectTimeoutMs: 300 });
        await store.addPrincipalToAce("/a", "read", "u");
        await port.set("k", "v", 60);

        await gone.cut();
        const permissionCalls: (() => Promise<unknown>)[] = [
          () => store.flush(),
          () => store.initializeSchema(),
          () => store.addUserPrincipal("", ""),
          () => store.removeUserPrincipal("", ""),
          () => store.removePrincipal(""),
          () => store.userPrincipals(""),
          () => store.addPrincipalToAce("", "", ""),
          () => store.removePrincipalFromAce("", "", ""),
          () => store.objectPermissionPrincipals("", ""),
          () => store.principalsAccessibleObjects(["u"], "read", "/*", defaultBoundPermissions),
          () => store.objectPermissionAuthorizedPrincipals("/a", "read"),
          () => store.checkPermission("/a", "read", ["u"], defaultBoundPermissions),
          () => store.objectPermissions(""),
          () => store.objectPermissions("", ["read"]),
          () => store.replaceObjectPermissions("", { write: [] }),
          () => store.deleteObjectPermissions(""),
        ];
        // Every call fails without waiting for its 1 s command timeout (bound: that timeout).
        for (const call of permissionCalls) await expectBackendError(settlesWithin(call(), 1_000, call.toString()), "permission");
        const cacheCalls: (() => Promise<unknown>)[] = [
          () => port.flush(),
          () => port.initializeSchema(),
          () => port.ttl(""),
          () => port.expire("", 0),
          () => port.get(""),
          () => port.set("", "", 42),
          () => port.delete(""),
        ];
        for (const call of cacheCalls) await expectBackendError(settlesWithin(call(), 1_000, call.toString()), "cache");
        expect(await store.heartbeat()).to.equal(false);
        expect(await port.heartbeat()).to.equal(false);

        await gone.start();
        expect(await eventually(5_000, () => store.checkPermission("/a", "read", ["u"]))).to.equal(true);
        expect(await eventually(5_000, () => port.get("k"))).to.equal("v");
        expect(await store.heartbeat()).to.equal(true);
      });

      it("fails with BackendError, not a hang, when Redis accepts connections but never answers", async () => {
        const silent = await proxy();
        silent.freeze();
        const store = permissionStore({ url: silent.url(), commandTimeoutMs: 300, connectTimeoutMs: 300 });
        await expectBackendError(
          settlesWithin(store.checkPermission("/a", "read", ["u"]), 3_000, "checkPermission (300 ms timeouts)"),
          "permission",
        );
        silent.thaw();
        expect(await eventually(5_000, () => store.checkPermission("/a", "read", ["u"]))).to.equal(false);
      });

      it("fails with BackendError, not a hang, when Redis was never there", async () => {
        const server = net.createServer();
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
        const deadPort = (server.address() as net.AddressInfo).port;
        await new Promise<void>((resolve) => server.close(() => resolve()));
        const store = permissionStore({ url: `redis://127.0.0.1:${deadPort}/15`, connectTimeoutMs: 300 });
        const port = cache({ url: `redis://127.0.0.1:${deadPort}/15`, connectTimeoutMs: 300 });
        // Bound: 10× the 300 ms connect timeout.
        await expectBackendError(settlesWithin(store.checkPermission("/a", "read", ["u"]), 3_000, "checkPermission"), "permission");
        await expectBackendError(settlesWithin(port.get("k"), 3_000, "cache get"), "cache");
        expect(await settlesWithin(store.heartbeat(), 3_000, "heartbeat")).to.equal(false);
      });
    });

    describe("pool limits", function () {
      this.timeout(10_000);

      it("refuses at once beyond max_backlog, and serves the waiting ones", async () => {
        const slow = await proxy();
        const store = permissionStore({ url: slow.url(), poolSize: 1, maxBacklog: 1, commandTimeoutMs: 3_000 });
        await store.addPrincipalToAce("/a", "read", "u");
        slow.freeze();
        const inFlight = track(store.checkPermission("/a", "read", ["u"]));
        const waiting = track(store.checkPermission("/a", "read", ["u"]));
        await expectBackendError(store.checkPermission("/a", "read", ["u"]), "permission");
        // Refused at once: while the others still wait for the frozen Redis.
        expect([inFlight.settled, waiting.settled]).to.deep.equal([false, false]);
        slow.thaw();
        expect(await inFlight.promise).to.equal(true);
        expect(await waiting.promise).to.equal(true);
      });

      it("with max_backlog 0 never queues for a connection", async () => {
        const slow = await proxy();
        const port = cache({ url: slow.url(), poolSize: 1, maxBacklog: 0, commandTimeoutMs: 3_000 });
        await port.set("k", "v", 60);
        slow.freeze();
        const inFlight = track(port.get("k"));
        await expectBackendError(port.get("k"), "cache");
        expect(inFlight.settled, "refused while the only connection was busy").to.equal(false);
        slow.thaw();
        expect(await inFlight.promise).to.equal("v");
      });

      it("queues without limit by default and runs every operation", async () => {
        const store = permissionStore({ poolSize: 2 });
        await Promise.all(Array.from({ length: 50 }, (_, i) => store.addPrincipalToAce(`/b/${i}`, "read", "u")));
        const granted = [...(await store.principalsAccessibleObjects(["u"], "read", "/b/*"))].sort();
        expect(granted).to.deep.equal(Array.from({ length: 50 }, (_, i) => `/b/${i}`).sort());
      });
    });

    describe("values and expiry", () => {
      it("keeps millisecond precision in ttl", async () => {
        const port = cache();
        await port.set("k", 1, 2.5);
        const ttl = await port.ttl("k");
        expect(ttl).to.be.greaterThan(2.4).and.at.most(2.5);
        expect(Number.isInteger(ttl)).to.equal(false);
      });

      it("wraps an undecodable value in BackendError", async () => {
        const port = cache();
        await admin.set(`${RUN}specific:cache:broken`, "{not json");
        await expectBackendError(port.get("broken"), "cache");
      });

      it("never answers 'allowed' on failure", async () => {
        const store: PermissionStore = permissionStore({ url: "redis://127.0.0.1:1/15", connectTimeoutMs: 200 });
        const port: Cache = cache({ url: "redis://127.0.0.1:1/15", connectTimeoutMs: 200 });
        await expectBackendError(store.checkPermission("/a", "read", ["system.Everyone"]), "permission");
        await expectBackendError(port.get("x"), "cache");
      });
    });
  });
});
