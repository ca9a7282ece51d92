/**
 * `postgresql` in settings: the PostgreSQL adapters over one pool per distinct URL. Where records
 * and ACEs share a database, SharedRecords is PostgresSharedRecords (joined statements, group
 * commit of a record with its ACL, lost access in the write's transaction: docs/adr/0014).
 */
import { ContainerModule, type ServiceIdentifier } from "inversify";
import { PostgresAccessJournal } from "../adapters/postgres/postgres-access-journal.js";
import { PostgresCache } from "../adapters/postgres/postgres-cache.js";
import { PostgresChangeBroadcast } from "../adapters/postgres/postgres-change-broadcast.js";
import type { PostgresDatabaseOptions } from "../adapters/postgres/postgres-database.js";
import { PostgresDatabases } from "../adapters/postgres/postgres-databases.js";
import { feedFenceBinding } from "./feed-fence-binding.js";
import { PostgresPermissionStore } from "../adapters/postgres/postgres-permission-store.js";
import { PostgresRecordStore } from "../adapters/postgres/postgres-record-store.js";
import { PostgresSharedRecords } from "../adapters/postgres/postgres-shared-records.js";
import { PostgresUnitOfWork } from "../adapters/postgres/postgres-unit-of-work.js";
import { urlWithPassword } from "../adapters/postgres/postgres-url.js";
import type { UnitOfWork } from "../application/ports/unit-of-work.js";
import type { BackendSettings } from "./settings.js";
import { PostgresAccountStore } from "../adapters/postgres/account-postgres-store.js";
import { ACCOUNT_STORE } from "./auth-accounts.js";
import type { TechnologyModule } from "./technology-roles.js";
import { TOKENS } from "./tokens.js";

/** The owner of the pools: every store binding depends on it, so unbinding closes them. */
const DATABASES = Symbol("PostgresDatabases") as ServiceIdentifier<PostgresDatabases>;
const RECORD_STORE = Symbol("PostgresRecordStore") as ServiceIdentifier<PostgresRecordStore>;
const ACCESS_JOURNAL = Symbol("PostgresAccessJournal") as ServiceIdentifier<PostgresAccessJournal>;

function databaseOptions(settings: BackendSettings<string>): PostgresDatabaseOptions {
  return {
    url: settings.url ?? "",
    poolSize: settings.poolSize,
    maxOverflow: settings.maxOverflow,
    maxBacklog: settings.maxBacklog,
    poolRecycleSeconds: settings.poolRecycleSeconds,
    poolTimeoutSeconds: settings.poolTimeoutSeconds,
    statementTimeoutMs: Math.round(settings.statementTimeoutSeconds * 1000),
    passwordFile: settings.passwordFile,
    replicas: { urls: settings.replicaUrls, maxWaitMs: settings.replicaMaxWaitMs },
  };
}

export const postgresModule: TechnologyModule = (roles) =>
  new ContainerModule(({ bind }) => {
    // Opens no connection yet: pools connect on first use, so a database down at startup is retried later.
    const databases = new PostgresDatabases({
      storage: roles.storage && databaseOptions(roles.storage),
      permission: roles.permission && databaseOptions(roles.permission),
      cache: roles.cache && databaseOptions(roles.cache),
    });
    bind(DATABASES)
      .toResolvedValue((): PostgresDatabases => databases)
      .onDeactivation((opened) => opened.close());
    bind(TOKENS.SchemaMigration).toResolvedValue((opened: PostgresDatabases) => ({ migrate: () => opened.migrate() }), [DATABASES]);
    // Each pool is named after the backends using it ("storage,permission"): never its URL.
    for (const { database, usedBy } of databases.all) {
      const replicas = database.replicaReads;
      bind(TOKENS.ConnectionPool).toConstantValue({
        name: usedBy.join(","),
        status: () => database.poolStatus(),
        backlogRefusals: () => database.backlogRefusals,
        ...(replicas ? { replicas: () => replicas.figures() } : {}),
      });
    }
    const { storage, permission, cache } = databases;
    if (storage) {
      bind(RECORD_STORE).toResolvedValue((_owner: PostgresDatabases) => new PostgresRecordStore(storage), [DATABASES]);
      // Bound as values, not toService aliases: the container's activation (timing) applies to each token.
      bind(TOKENS.RecordStore).toResolvedValue((store: PostgresRecordStore) => store, [RECORD_STORE]);
      // The journal's tables, which the record store's listing statements read (access-journal-listing-sql.ts).
      bind(ACCESS_JOURNAL).toResolvedValue((_owner: PostgresDatabases) => new PostgresAccessJournal(storage), [DATABASES]);
      bind(TOKENS.AccessJournal).toResolvedValue((journal: PostgresAccessJournal) => journal, [ACCESS_JOURNAL]);
      bind(ACCOUNT_STORE).toResolvedValue((_owner: PostgresDatabases) => new PostgresAccountStore(storage), [DATABASES]);
      // One transaction on the storage database, which the permission store joins when it shares it
      // (PostgresSharedRecords then has its units of work join the group commit of their collection, ADR 10).
      bind(TOKENS.UnitOfWork).toResolvedValue((_owner: PostgresDatabases) => new PostgresUnitOfWork(storage), [DATABASES]);
      // Live feed signals between every process on this storage database (LISTEN/NOTIFY).
      const storageSettings = roles.storage;
      if (storageSettings) {
        bind(TOKENS.ChangeBroadcast)
          .toResolvedValue(
            (_owner: PostgresDatabases) =>
              new PostgresChangeBroadcast(storage, {
                connectionString: urlWithPassword(storageSettings.url ?? "", storageSettings.passwordFile),
                catchUpMs: Math.round(roles.feedCatchUpSeconds * 1000),
                connectTimeoutMs: Math.round(storageSettings.poolTimeoutSeconds * 1000),
                statementTimeoutMs: Math.round(storageSettings.statementTimeoutSeconds * 1000),
              }),
            [DATABASES],
          )
          .onDeactivation((broadcast) => broadcast.close());
        // Principal changes wait for every process's streams: leases and fences in the same database.
        if (roles.feedLeaseSeconds !== 0) feedFenceBinding(bind, storageSettings, roles.feedLeaseSeconds);
      }
      if (storage === permission) {
        bind(TOKENS.PermissionsShareUnitOfWork).toConstantValue(true);
        bind(TOKENS.SharedRecords).toResolvedValue(
          // Its own permission store on the same database: the container times SharedRecords calls as a whole.
          (store: PostgresRecordStore, journal: PostgresAccessJournal, unitOfWork: UnitOfWork) =>
            PostgresSharedRecords.on(storage, store, journal, unitOfWork, roles.groupMaxDepth),
          [RECORD_STORE, ACCESS_JOURNAL, TOKENS.UnitOfWork],
        );
      }
    }
    if (permission) {
      bind(TOKENS.PermissionStore).toResolvedValue(
        (_owner: PostgresDatabases) => new PostgresPermissionStore(permission, roles.groupMaxDepth),
        [DATABASES],
      );
      // A user's principals and a permission check in one statement (the backend keeps both).
      bind(TOKENS.PrincipalsWithCheck).toResolvedValue(
        (_owner: PostgresDatabases) => new PostgresPermissionStore(permission, roles.groupMaxDepth),
        [DATABASES],
      );
    }
    const cacheSettings = roles.cache;
    if (cache && cacheSettings) {
      bind(TOKENS.Cache).toResolvedValue(
        (_owner: PostgresDatabases) => new PostgresCache(cache, { prefix: cacheSettings.prefix }),
        [DATABASES],
      );
    }
  });
