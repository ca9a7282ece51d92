/**
 * PostgreSQL-only behaviour: schema file vs migrations, upgrades, timestamps across processes,
 * shared-record listings through the ACE join, units of work, pool limits, outages and recovery.
 */
import { expect } from "chai";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataSource } from "typeorm";
import type { ListQuery } from "../../src/application/listing.js";
import type { JoinedGrants as Grants } from "../../src/adapters/postgres/joined-grants.js";
import { PostgresCache } from "../../src/adapters/postgres/postgres-cache.js";
import { postgresDataSourceOptions, POSTGRES_MIGRATIONS } from "../../src/adapters/postgres/postgres-data-source.js";
import { PostgresDatabase, type PostgresDatabaseOptions } from "../../src/adapters/postgres/postgres-database.js";
import { PostgresDatabases } from "../../src/adapters/postgres/postgres-databases.js";
import { PostgresPermissionStore } from "../../src/adapters/postgres/postgres-permission-store.js";
import { PostgresRecordStore } from "../../src/adapters/postgres/postgres-record-store.js";
import { PostgresUnitOfWork } from "../../src/adapters/postgres/postgres-unit-of-work.js";
import { urlWithPassword } from "../../src/adapters/postgres/postgres-url.js";
import { projectRoot } from "../../src/bootstrap/project-root.js";
import { BackendError, ValidationError } from "../../src/domain/errors.js";
import { JsonTextRecord } from "../../src/domain/json-text-record.js";
import type { Tombstone } from "../../src/domain/records.js";
import { databaseUrl, ensureDatabase, withAdmin } from "../support/postgres.js";
import { POSTGRES_URL, requireService } from "../support/services.js";
import { track } from "../support/settling.js";

const MAIN = "tessera_test";
const MIGRATED = "tessera_test_migrated";
const FROM_FILE = "tessera_test_sqlfile";
const SCHEMA_FILE = join(projectRoot(), "sql/schema.sql");

/** Everything that defines a schema, in a stable order, for comparing two databases. */
function schemaDump(url: string): Promise<unknown> {
  return withAdmin(url, async (client) => {
    const q = async (sql: string) => (await client.query(sql)).rows;
    return {
      columns: await q(`SELECT table_name, column_name, ordinal_position, data_type, is_nullable, column_default, collation_name
        FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`),
      indexes: await q(`SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`),
      constraints: await q(`SELECT conrelid::regclass::text AS "table", conname, pg_get_constraintdef(oid) AS def
        FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY conname`),
      sequences: await q(
        `SELECT sequence_name, data_type FROM information_schema.sequences WHERE sequence_schema = 'public' ORDER BY sequence_name`,
      ),
      storageOptions: await q(
        `SELECT relname, reloptions FROM pg_class WHERE relnamespace = 'public'::regnamespace AND reloptions IS NOT NULL ORDER BY relname`,
      ),
      migrations: await q(`SELECT "timestamp", name FROM tessera_migrations ORDER BY "timestamp"`),
    };
  });
}

async function indexNames(url: string): Promise<string[]> {
  return withAdmin(url, async (client) =>
    (await client.query("SELECT indexname FROM pg_indexes WHERE schemaname = 'public'")).rows.map(
      (r: { indexname: string }) => r.indexname,
    ),
  );
}

async function rejection(promise: Promise<unknown>): Promise<BackendError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(BackendError);
    return error as BackendError;
  }
  expect.fail("expected a BackendError");
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A TCP hop in front of PostgreSQL that a test can take down and bring back on the same port. */
class TcpProxy {
  port = 0;
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();

  async start(): Promise<void> {
    const target = new URL(POSTGRES_URL);
    this.server = net.createServer((client) => {
      const upstream = net.connect(Number(target.port) || 5432, target.hostname || "127.0.0.1");
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on("close", () => this.sockets.delete(socket));
        socket.on("error", () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, "127.0.0.1", resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }
}

const articles = { collection: "articles", parentId: "" };
const newestFirst: ListQuery = { filters: [], sort: [{ field: "last_modified", descending: true }], limit: 100, includeDeleted: false };

describe("PostgreSQL specifics", function () {
  requireService("postgresql");
  this.timeout(20_000);
  const opened: PostgresDatabase[] = [];
  /** A database closed after the suite. */
  const open = (options: Partial<PostgresDatabaseOptions> = {}): PostgresDatabase => {
    const database = new PostgresDatabase({ url: databaseUrl(MAIN), ...options });
    opened.push(database);
    return database;
  };

  before(async function () {
    this.timeout(180_000);
    await ensureDatabase(MAIN);
    await open().migrate();
  });
  after(async () => {
    await Promise.all(opened.map((database) => database.close()));
  });

  describe("schema", () => {
    before(async function () {
      this.timeout(60_000);
      await ensureDatabase(MIGRATED, true);
      await ensureDatabase(FROM_FILE, true);
    });

    it("upgrades a version-1 database to version 2, keeping its data", async () => {
      const v1 = open({ url: databaseUrl(MIGRATED), migrations: POSTGRES_MIGRATIONS.slice(0, 1) });
      expect(await v1.migrate()).to.deep.equal(["InitialSchema1763769600000"]);
      await new PostgresRecordStore(v1).create(articles, "kept", { v: 1 });
      expect(await indexNames(databaseUrl(MIGRATED))).to.not.include("idx_records_tombstones");

      const v2 = open({ url: databaseUrl(MIGRATED), migrations: POSTGRES_MIGRATIONS.slice(0, 2) });
      expect(await v2.migrate()).to.deep.equal(["PurgeIndexes1763769600001"]);
      expect(await v2.migrate()).to.deep.equal([]);
      expect(await open({ url: databaseUrl(MIGRATED) }).migrate()).to.deep.equal([
        "PlansWithoutStatistics1763856000000",
        "LostAccess1763942400000",
        "LostAccessScopeIndex1764028800000",
        "FeedFence1764115200000",
        "Accounts1764201600000",
        "GroupChanges1764288000000",
        "RetiredAccounts1764374400000",
        "HoldersInOrder1764504000000",
      ]);
      expect(await indexNames(databaseUrl(MIGRATED))).to.include.members(["idx_records_tombstones", "idx_cache_expires"]);
      expect((await new PostgresRecordStore(v2).get(articles, "kept"))?.data).to.deep.equal({ v: 1 });
    });

    it("builds from sql/schema.sql exactly the schema the migrations build, and migrate then has nothing to do", async () => {
      await open({ url: databaseUrl(MIGRATED) }).migrate();
      const sql = readFileSync(SCHEMA_FILE, "utf8");
      await withAdmin(databaseUrl(FROM_FILE), async (client) => {
        await client.query(sql);
        await client.query(sql); // applying it twice is harmless
      });
      expect(await schemaDump(databaseUrl(FROM_FILE))).to.deep.equal(await schemaDump(databaseUrl(MIGRATED)));
      expect(await open({ url: databaseUrl(FROM_FILE) }).migrate()).to.deep.equal([]);
    });

    it("declares entities that match the migrated schema (no TypeORM drift)", async () => {
      const dataSource = new DataSource(postgresDataSourceOptions(databaseUrl(MIGRATED), { max: 1 }));
      await dataSource.initialize();
      try {
        const drift = await dataSource.driver.createSchemaBuilder().log();
        expect(drift.upQueries.map((q) => q.query)).to.deep.equal([]);
      } finally {
        await dataSource.destroy();
      }
    });

    it("serialises concurrent migrations of several processes", async () => {
      const runs = await Promise.all([open().migrate(), open().migrate(), open().migrate()]);
      expect(runs.flat()).to.deep.equal([]);
    });
  });

  describe("timestamps across processes", () => {
    let first: PostgresRecordStore;
    let second: PostgresRecordStore;

    before(() => {
      // Two pools: two processes writing one collection.
      first = new PostgresRecordStore(open({ poolSize: 4, maxOverflow: 0 }));
      second = new PostgresRecordStore(open({ poolSize: 4, maxOverflow: 0 }));
    });
    beforeEach(() => first.flush());

    it("gives every write of two concurrent writers a unique timestamp, in order per writer, losing none", async () => {
      const writer = async (store: PostgresRecordStore, name: string) => {
        const stamps: number[] = [];
        for (let i = 0; i < 60; i += 1) stamps.push((await store.create(articles, `${name}${i}`, { i })).lastModified);
        return stamps;
      };
      const burst = (store: PostgresRecordStore, name: string) =>
        Promise.all(Array.from({ length: 90 }, (_, i) => store.create(articles, `${name}${i}`, { i }).then((r) => r.lastModified)));
      const [a, b, c, d] = await Promise.all([writer(first, "a"), writer(second, "b"), burst(first, "c"), burst(second, "d")]);
      for (const sequence of [a, b]) for (let i = 1; i < sequence.length; i += 1) expect(sequence[i]).to.be.greaterThan(sequence[i - 1]!);
      const all = [...a, ...b, ...c, ...d];
      expect(new Set(all).size).to.equal(300);
      expect(await first.count(articles, { filters: [] })).to.equal(300);
      expect(await second.collectionTimestamp(articles)).to.equal(Math.max(...all));
      const listed = await second.list(articles, { ...newestFirst, limit: 1000 });
      expect(listed.map((r) => r.lastModified)).to.deep.equal([...all].sort((x, y) => y - x));
    });

    it("keeps updates, deletes and deleteMany of two writers strictly ordered in one scope", async () => {
      await Promise.all(Array.from({ length: 40 }, (_, i) => first.create(articles, `r${i}`, { i })));
      const results = await Promise.all([
        ...Array.from({ length: 20 }, (_, i) => second.update(articles, `r${i}`, { i, v: 2 }).then((r) => r.lastModified)),
        ...Array.from({ length: 10 }, (_, i) => first.delete(articles, `r${20 + i}`).then((t) => t.lastModified)),
        second
          .deleteMany(articles, { filters: [{ field: "i", operator: "min", value: 30 }] })
          .then((ts: Tombstone[]) => ts.map((t) => t.lastModified)),
      ]);
      const stamps = results.flat();
      expect(new Set(stamps).size).to.equal(stamps.length);
      expect(await first.collectionTimestamp(articles)).to.equal(Math.max(...stamps));
    });
  });

  describe("shared records through the ACE join", () => {
    let databases: PostgresDatabases;
    let records: PostgresRecordStore;
    let permissions: PostgresPermissionStore;
    let unitOfWork: PostgresUnitOfWork;
    const alice = ["alice", "system.Everyone"];
    const access = (principals: string[], permissions = ["read", "write"]): Grants => ({
      principals,
      permissions,
      objectIdPrefix: "/articles/",
    });

    before(() => {
      databases = new PostgresDatabases({ storage: { url: databaseUrl(MAIN) }, permission: { url: databaseUrl(MAIN) } });
      if (!databases.storage || !databases.permission) throw new Error("both databases are configured");
      records = new PostgresRecordStore(databases.storage);
      permissions = new PostgresPermissionStore(databases.permission);
      unitOfWork = new PostgresUnitOfWork(databases.storage);
    });
    after(() => databases.close());
    beforeEach(async () => {
      await records.flush();
      await permissions.flush();
      for (let i = 0; i < 8; i += 1) await records.create(articles, `r${i}`, { i });
      await records.create(articles, "a_b", { i: 100 });
      await records.create(articles, "axb", { i: 101 });
      await permissions.addPrincipalToAce("/articles/r1", "read", "alice");
      await permissions.addPrincipalToAce("/articles/r3", "write", "alice");
      await permissions.addPrincipalToAce("/articles/r5", "read", "system.Everyone");
      await permissions.addPrincipalToAce("/articles/r6", "read", "bob");
      await permissions.addPrincipalToAce("/articles/r7", "create", "alice");
      await permissions.addPrincipalToAce("/articles/a_b", "read", "alice");
      await permissions.addPrincipalToAce("/articlesx/r2", "read", "alice");
      await permissions.addPrincipalToAce("/articles/r4/sub", "read", "alice");
      await permissions.addPrincipalToAce("/other/r0", "read", "alice");
    });

    it("lists, counts and pages only the records whose ACEs grant a principal the permission", async () => {
      const listed = await records.list(articles, newestFirst, access(alice));
      expect(listed.map((r) => r.id)).to.deep.equal(["a_b", "r5", "r3", "r1"]);
      expect(await records.count(articles, { filters: [] }, access(alice))).to.equal(4);
      expect(await records.count(articles, { filters: [] }, access(alice, ["read"]))).to.equal(3);
      expect(await records.count(articles, { filters: [] }, access(["nobody"]))).to.equal(0);
      const page = await records.list(
        articles,
        {
          ...newestFirst,
          filters: [{ field: "i", operator: "lt", value: 10 }],
          limit: 2,
          after: { values: [listed[1]!.lastModified] },
        },
        access(alice),
      );
      expect(page.map((r) => r.id)).to.deep.equal(["r3", "r1"]);
    });

    it("hands a listing each record's data as the text PostgreSQL printed, for the answer to reuse as it is", async () => {
      const [first] = await records.list(articles, newestFirst, access(alice));
      expect(first?.id).to.equal("a_b");
      expect(first && JsonTextRecord.bodyJson(first)).to.equal(`{"i": 100,"id":"a_b","last_modified":${first?.lastModified}}`);
      expect(first).to.deep.include({ data: { i: 100 } });
    });

    it("deletes only the records the principals may write", async () => {
      const tombstones = await records.deleteMany(articles, { filters: [] }, access(alice, ["write"]));
      expect(tombstones.map((t) => t.id)).to.deep.equal(["r3"]);
    });

    it("commits a record and its ACEs together, and rolls both back together", async () => {
      const before = await records.collectionTimestamp(articles);
      const failed = unitOfWork.run(async () => {
        await records.create(articles, "doomed", { v: 1 });
        await unitOfWork.run(() => permissions.replaceObjectPermissions("/articles/doomed", { write: ["alice"] }));
        throw new Error("veto");
      });
      let vetoed: unknown;
      try {
        await failed;
      } catch (error) {
        vetoed = error;
      }
      expect((vetoed as Error | undefined)?.message, "the unit of work rethrows the veto").to.equal("veto");
      expect(await records.get(articles, "doomed")).to.equal(undefined);
      expect(await permissions.objectPermissions("/articles/doomed")).to.deep.equal({});
      expect(await records.collectionTimestamp(articles)).to.equal(before);

      await unitOfWork.run(async () => {
        await records.create(articles, "kept", { v: 1 });
        await permissions.replaceObjectPermissions("/articles/kept", { write: ["alice"] });
      });
      expect((await records.get(articles, "kept"))?.data).to.deep.equal({ v: 1 });
      expect(await permissions.checkPermission("/articles/kept", "write", ["alice"])).to.equal(true);
    });

    it("reads a page of changes with each entry's ACL, in the asked permissions only, from one statement", async () => {
      const since = (await records.list(articles, { ...newestFirst, limit: 1 }))[0]!.lastModified;
      await records.update(articles, "r1", { i: 1, v: 2 });
      await records.delete(articles, "r6");
      await records.update(articles, "r3", { i: 3, v: 2 });
      const upTo = await records.collectionTimestamp(articles);
      const page = await records.changesWithAcls(
        articles,
        { after: since, upTo, limit: 2 },
        { objectIdPrefix: "/articles/", permissions: ["read"] },
      );
      expect(page.entries.map((e) => `${e.id}${e.deleted ? "-" : ""}`)).to.deep.equal(["r1", "r6-"]);
      expect(
        [...page.acls].map(([id, acl]) => [id, Object.fromEntries(Object.entries(acl).map(([p, set]) => [p, [...set]]))]),
      ).to.deep.equal([
        ["r1", { read: ["alice"] }],
        ["r6", { read: ["bob"] }],
      ]);
      const rest = await records.changesWithAcls(
        articles,
        { after: page.entries[1]!.lastModified, upTo, limit: 10 },
        { objectIdPrefix: "/articles/", permissions: ["read", "write"] },
      );
      expect([...rest.acls]).to.deep.equal([["r3", { write: new Set(["alice"]) }]]);
    });

    it("shares one pool between backends on one URL and migrates idempotently", async () => {
      expect(databases.storage).to.equal(databases.permission);
      expect(databases.holdsRecordsAndAces).to.equal(true);
      await databases.migrate();
      expect(await records.heartbeat()).to.equal(true);
      expect(await permissions.heartbeat()).to.equal(true);
    });
  });

  describe("pool limits", () => {
    /** Keeps the only connection busy for `ms` inside a unit of work. */
    async function occupy(database: PostgresDatabase, ms: number): Promise<{ busy: Promise<unknown> }> {
      const busy = database.transaction("storage", () => database.query("storage", `SELECT pg_sleep(${ms / 1000})`));
      for (let i = 0; i < 100 && (await database.poolStatus()).idle !== 0; i += 1) await sleep(5);
      await sleep(20);
      return { busy }; // wrapped: an async function returning a promise would wait for it
    }

    it("fails at once with max_backlog 0 when the pool is exhausted", async () => {
      const database = open({ poolSize: 1, maxOverflow: 0, maxBacklog: 0 });
      const store = new PostgresRecordStore(database);
      expect(await store.heartbeat()).to.equal(true);
      const { busy } = await occupy(database, 400);
      const occupied = track(busy);
      const error = await rejection(store.get(articles, "x"));
      expect(occupied.settled, "refused while the only connection was still busy: it did not wait").to.equal(false);
      expect(error.backend).to.equal("storage");
      await busy;
      expect(await store.get(articles, "x")).to.equal(undefined);
    });

    it("lets max_backlog requests wait and refuses the next one at once", async () => {
      const database = open({ poolSize: 1, maxOverflow: 0, maxBacklog: 1 });
      const cache = new PostgresCache(database, { prefix: "backlog:" });
      await cache.heartbeat();
      const { busy } = await occupy(database, 300);
      const waiting = cache.get("k");
      const error = await rejection(cache.get("k"));
      expect(error.backend).to.equal("cache");
      expect(await waiting).to.equal(undefined);
      await busy;
    });

    it("fails a request that waits longer than pool_timeout", async () => {
      const database = open({ poolSize: 1, maxOverflow: 0, poolTimeoutSeconds: 0.2 });
      await database.heartbeat("storage");
      const { busy } = await occupy(database, 800);
      const occupied = track(busy);
      const order: string[] = [];
      const halfway = sleep(100).then(() => order.push("half of pool_timeout"));
      await rejection(new PostgresPermissionStore(database).userPrincipals("u"));
      order.push("refused");
      await halfway;
      // It waited (past half the timeout), and gave up before the connection came free.
      expect(order).to.deep.equal(["half of pool_timeout", "refused"]);
      expect(occupied.settled).to.equal(false);
      await busy;
    });

    it("opens size + overflow connections at most", async () => {
      const database = open({ poolSize: 2, maxOverflow: 1 });
      await Promise.all(Array.from({ length: 6 }, () => database.query("storage", "SELECT pg_sleep(0.05)")));
      expect((await database.poolStatus()).total).to.be.at.most(3);
    });

    it("recycles connections older than pool_recycle", async () => {
      const database = open({ poolSize: 1, maxOverflow: 0, poolRecycleSeconds: 1 });
      const pid = async () => (await database.query<{ pid: number }>("storage", "SELECT pg_backend_pid() AS pid"))[0]!.pid;
      const firstPid = await pid();
      expect(await pid()).to.equal(firstPid);
      await sleep(1200);
      expect(await pid()).to.not.equal(firstPid);
    });

    it("applies the statement timeout", async () => {
      const database = open({ statementTimeoutMs: 50 });
      await rejection(database.query("storage", "SELECT pg_sleep(1)"));
    });

    it("turns JIT and parallel workers off and keeps generic plans, with the session options of the URL", async () => {
      const url = new URL(databaseUrl(MAIN));
      url.searchParams.set("options", "-c synchronous_commit=off");
      const database = open({ url: url.toString() });
      const setting = async (name: string) =>
        (await database.query<{ value: string }>("storage", "SELECT current_setting($1) AS value", [name]))[0]!.value;
      expect(await setting("jit")).to.equal("off");
      expect(await setting("max_parallel_workers_per_gather")).to.equal("0");
      expect(await setting("plan_cache_mode")).to.equal("force_generic_plan");
      expect(await setting("synchronous_commit")).to.equal("off");
    });

    it("reads the password from a file", async () => {
      const dir = mkdtempSync(join(tmpdir(), "tessera-pg-"));
      const file = join(dir, "password");
      writeFileSync(file, "p@ss:w/rd\n");
      expect(decodeURIComponent(new URL(urlWithPassword("postgresql://u@h:5432/db", file)).password)).to.equal("p@ss:w/rd");
      // Trust authentication ignores the password: the connection still works with it.
      expect(await open({ passwordFile: file }).heartbeat("storage")).to.equal(true);
    });
  });

  describe("outages", () => {
    it("turns an unreachable database into BackendError for every port, and heartbeats into false", async () => {
      const database = open({ url: databaseUrl(MAIN, 1), poolTimeoutSeconds: 2 });
      const records = new PostgresRecordStore(database);
      const permissions = new PostgresPermissionStore(database);
      const cache = new PostgresCache(database);
      expect((await rejection(records.get(articles, "x"))).backend).to.equal("storage");
      expect((await rejection(records.create(articles, "x", {}))).backend).to.equal("storage");
      expect((await rejection(permissions.checkPermission("/a", "read", ["u"]))).backend).to.equal("permission");
      expect((await rejection(cache.get("k"))).backend).to.equal("cache");
      await rejection(records.initializeSchema());
      expect(await records.heartbeat()).to.equal(false);
      expect(await permissions.heartbeat()).to.equal(false);
      expect(await cache.heartbeat()).to.equal(false);
    });

    it("fails while the database is away and recovers by itself when it is back", async () => {
      const proxy = new TcpProxy();
      await proxy.start();
      try {
        const records = new PostgresRecordStore(open({ url: databaseUrl(MAIN, proxy.port), poolTimeoutSeconds: 2 }));
        await records.flush();
        await records.create(articles, "before", {});
        await proxy.stop();
        await rejection(records.get(articles, "before"));
        expect(await records.heartbeat()).to.equal(false);
        await proxy.start();
        expect((await records.get(articles, "before"))?.id).to.equal("before");
        expect((await records.create(articles, "after", {})).id).to.equal("after");
      } finally {
        await proxy.stop();
      }
    });

    it("starts while the database is away and works once it comes", async () => {
      const proxy = new TcpProxy();
      await proxy.start();
      await proxy.stop();
      try {
        const records = new PostgresRecordStore(open({ url: databaseUrl(MAIN, proxy.port), poolTimeoutSeconds: 2 }));
        await rejection(records.collectionTimestamp(articles));
        await proxy.start();
        expect(await records.heartbeat()).to.equal(true);
      } finally {
        await proxy.stop();
      }
    });

    it("refuses a NUL character in stored strings as bad input, not as an outage", async () => {
      const records = new PostgresRecordStore(open());
      const error = await records.create(articles, "nul", { text: "a\u0000b" }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).to.be.instanceOf(ValidationError);
      expect(await records.heartbeat()).to.equal(true);
    });

    it("rolls back a unit of work whose connection is terminated, then serves the next request", async () => {
      const database = open({ applicationName: "tessera-terminate-test" });
      const records = new PostgresRecordStore(database);
      await records.flush();
      const terminate = () =>
        withAdmin(databaseUrl(MAIN), (admin) =>
          admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'tessera-terminate-test'"),
        );
      await rejection(
        database.transaction("storage", async () => {
          await records.create(articles, "lost", {});
          await terminate();
          await records.create(articles, "never", {});
        }),
      );
      await terminate(); // idle connections of the pool die too
      expect(await records.get(articles, "lost")).to.equal(undefined);
      expect((await records.create(articles, "next", {})).id).to.equal("next");
    });
  });
});
