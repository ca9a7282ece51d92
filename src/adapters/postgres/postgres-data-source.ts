/** The TypeORM DataSource options of Tessera's schema: entities, checked-in migrations, never synchronize. */
import "reflect-metadata";
import type { MigrationInterface } from "typeorm";
import type { PostgresDataSourceOptions } from "typeorm/driver/postgres/PostgresDataSourceOptions.js";
import { AccessControlEntryEntity } from "./entities/access-control-entry-entity.js";
import { CacheEntryEntity } from "./entities/cache-entry-entity.js";
import { AccessResyncEntity } from "./entities/access-resync-entity.js";
import { GainedAccessEntity } from "./entities/gained-access-entity.js";
import { LostAccessEntity } from "./entities/lost-access-entity.js";
import { RecordEntity } from "./entities/record-entity.js";
import { TimestampEntity } from "./entities/timestamp-entity.js";
import { UserPrincipalEntity } from "./entities/user-principal-entity.js";
import { InitialSchema1763769600000 } from "./migrations/initial-schema-1763769600000.js";
import { PlansWithoutStatistics1763856000000 } from "./migrations/plans-without-statistics-1763856000000.js";
import { PurgeIndexes1763769600001 } from "./migrations/purge-indexes-1763769600001.js";
import { LostAccess1763942400000 } from "./migrations/lost-access-1763942400000.js";
import { LostAccessScopeIndex1764028800000 } from "./migrations/lost-access-scope-index-1764028800000.js";
import { FeedFence1764115200000 } from "./migrations/feed-fence-1764115200000.js";
import { Accounts1764201600000 } from "./migrations/accounts-1764201600000.js";
import { GroupChanges1764288000000 } from "./migrations/group-changes-1764288000000.js";
import { RetiredAccounts1764374400000 } from "./migrations/retired-accounts-1764374400000.js";
import { HoldersInOrder1764504000000 } from "./migrations/holders-in-order-1764504000000.js";

export const MIGRATIONS_TABLE = "tessera_migrations";

export type MigrationClass = new () => MigrationInterface;

/** Every migration, oldest first. */
export const POSTGRES_MIGRATIONS: readonly MigrationClass[] = [
  InitialSchema1763769600000,
  PurgeIndexes1763769600001,
  PlansWithoutStatistics1763856000000,
  LostAccess1763942400000,
  LostAccessScopeIndex1764028800000,
  FeedFence1764115200000,
  Accounts1764201600000,
  GroupChanges1764288000000,
  RetiredAccounts1764374400000,
  HoldersInOrder1764504000000,
];

export const POSTGRES_ENTITIES = [
  RecordEntity,
  TimestampEntity,
  AccessControlEntryEntity,
  UserPrincipalEntity,
  CacheEntryEntity,
  LostAccessEntity,
  GainedAccessEntity,
  AccessResyncEntity,
];

/** Options for one DataSource; `poolOptions` go to pg-pool as is (max, timeouts, lifetime...). */
export function postgresDataSourceOptions(
  url: string,
  poolOptions: Readonly<Record<string, unknown>> = {},
  migrations: readonly MigrationClass[] = POSTGRES_MIGRATIONS,
): PostgresDataSourceOptions {
  return {
    type: "postgres",
    url,
    entities: POSTGRES_ENTITIES,
    migrations: [...migrations],
    migrationsTableName: MIGRATIONS_TABLE,
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: poolOptions,
  };
}
