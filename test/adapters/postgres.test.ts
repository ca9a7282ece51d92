/**
 * The shared contracts against the PostgreSQL adapters, in a dedicated database (`tessera_test`)
 * so that other suites using `test` are not disturbed. PostgreSQL-only behaviour lives in
 * postgres-*.test.ts.
 */
import pg from "pg";
import { PostgresCache } from "../../src/adapters/postgres/postgres-cache.js";
import { PostgresDatabase } from "../../src/adapters/postgres/postgres-database.js";
import { PostgresPermissionStore } from "../../src/adapters/postgres/postgres-permission-store.js";
import { PostgresRecordStore } from "../../src/adapters/postgres/postgres-record-store.js";
import { cacheContract } from "../contract/cache.contract.js";
import { permissionStoreContract } from "../contract/permission-store.contract.js";
import { recordStoreContract } from "../contract/record-store.contract.js";
import { POSTGRES_URL, requireService } from "../support/services.js";

const TEST_DATABASE = "tessera_test";

/** The test server's URL with another database name. */
function databaseUrl(name: string): string {
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Creates the database if missing (or afresh), tolerating a parallel run creating it too. */
async function ensureDatabase(name: string, fresh = false): Promise<void> {
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  try {
    if (fresh) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.rowCount === 0) {
      await admin.query(`CREATE DATABASE "${name}"`).catch((err: { code?: string }) => {
        if (err.code !== "42P04" && err.code !== "23505") throw err;
      });
    }
  } finally {
    await admin.end();
  }
}


/**
 * Test runs of several developers share one server: each run of the PostgreSQL suites holds this
 * advisory lock (on its own connection) so that they take turns instead of flushing each other's data.
 */
const SUITE_LOCK_KEY = 7_364_211_094;

async function lockSuite(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query("SELECT pg_advisory_lock($1)", [SUITE_LOCK_KEY]);
  return client;
}

async function unlockSuite(client: pg.Client | undefined): Promise<void> {
  await client?.end(); // ending the session releases its advisory lock
}

describe("PostgreSQL adapters", function () {
  requireService("postgresql");
  let suiteLock: pg.Client | undefined;
  let database: PostgresDatabase;

  before(async function () {
    this.timeout(180_000);
    suiteLock = await lockSuite();
    await ensureDatabase(TEST_DATABASE);
    database = new PostgresDatabase({ url: databaseUrl(TEST_DATABASE), poolSize: 5, maxOverflow: 5 });
    await database.migrate();
  });
  after(async () => {
    await database?.close();
    await unlockSuite(suiteLock);
  });

  recordStoreContract("postgresql", async () => {
    const port = new PostgresRecordStore(database);
    return { port, reset: () => port.flush(), close: () => port.close() };
  });

  permissionStoreContract("postgresql", async () => {
    const port = new PostgresPermissionStore(database);
    return { port, reset: () => port.flush(), close: () => port.close() };
  });

  cacheContract("postgresql", async (options) => {
    const port = new PostgresCache(database, options?.prefix !== undefined ? { prefix: options.prefix } : {});
    return { port, reset: () => port.flush(), close: () => port.close() };
  });
});
