/**
 * What the composition root calls: PostgreSQL backends from settings, one pool per distinct URL
 * (storage, permission and cache on one URL share it, and so share the unit of work's transaction).
 */
import type { UnitOfWork } from "../../application/ports/unit-of-work.js";
import { PostgresChangeBroadcast } from "./postgres-change-broadcast.js";
import { PostgresCache, type PostgresCacheOptions } from "./postgres-cache.js";
import { PostgresDatabase, type PostgresDatabaseOptions } from "./postgres-database.js";
import { PostgresPermissionStore } from "./postgres-permission-store.js";
import { PostgresRecordStore } from "./postgres-record-store.js";
import { PostgresUnitOfWork } from "./postgres-unit-of-work.js";
import { urlWithPassword } from "./postgres-url.js";

export interface OpenPostgresOptions {
  /** `storage_url`, `storage_pool_size`, ... → PostgresDatabaseOptions; absent: no record store. */
  readonly storage?: PostgresDatabaseOptions;
  readonly permission?: PostgresDatabaseOptions;
  readonly cache?: PostgresDatabaseOptions & PostgresCacheOptions;
}

export interface PostgresBackends {
  /** Every distinct database opened (one per URL). */
  readonly databases: readonly PostgresDatabase[];
  readonly recordStore?: PostgresRecordStore;
  readonly permissionStore?: PostgresPermissionStore;
  readonly cache?: PostgresCache;
  /**
   * One transaction on the storage database (which the permission store joins when it shares the
   * URL); on the permission database when there is no record store.
   */
  readonly unitOfWork: UnitOfWork;
  /** Change signals between processes sharing the storage database (LISTEN/NOTIFY). */
  readonly broadcast?: PostgresChangeBroadcast;
  /** Applies pending migrations to every database (idempotent). */
  migrate(): Promise<void>;
  /** Closes every pool. */
  close(): Promise<void>;
}

/** Opens nothing yet: pools connect on first use, so a database down at start-up is retried later. */
export function openPostgres(options: OpenPostgresOptions): PostgresBackends {
  const byUrl = new Map<string, PostgresDatabase>();
  // The first backend naming a URL sets its pool options (as Kinto does); the others share it.
  const databaseFor = (databaseOptions: PostgresDatabaseOptions): PostgresDatabase => {
    let database = byUrl.get(databaseOptions.url);
    if (!database) {
      database = new PostgresDatabase(databaseOptions);
      byUrl.set(databaseOptions.url, database);
    }
    return database;
  };
  const recordStore = options.storage && new PostgresRecordStore(databaseFor(options.storage));
  const permissionStore = options.permission && new PostgresPermissionStore(databaseFor(options.permission));
  const cache = options.cache && new PostgresCache(databaseFor(options.cache), options.cache);
  const transactional = options.storage ?? options.permission;
  const unitOfWork: UnitOfWork = transactional ? new PostgresUnitOfWork(databaseFor(transactional)) : { atomic: false, run: (work) => work(), afterCommit: (callback) => callback() };
  const broadcast = options.storage && new PostgresChangeBroadcast(databaseFor(options.storage), urlWithPassword(options.storage.url, options.storage.passwordFile));
  const databases = [...byUrl.values()];
  return {
    databases,
    ...(recordStore ? { recordStore } : {}),
    ...(permissionStore ? { permissionStore } : {}),
    ...(cache ? { cache } : {}),
    unitOfWork,
    ...(broadcast ? { broadcast } : {}),
    async migrate() {
      for (const database of databases) await database.migrate();
    },
    async close() {
      await broadcast?.close();
      await Promise.all(databases.map((database) => database.close()));
    },
  };
}
