/**
 * The PostgreSQL databases the configured backends use: one PostgresDatabase (one pool) per
 * distinct URL, so storage, permission and cache on one URL share it, and with it the unit of
 * work's transaction. This object owns them: it migrates and closes them.
 */
import { PostgresDatabase, type PostgresDatabaseOptions } from "./postgres-database.js";

interface PostgresDatabasesOptions {
  /** `storage_url`, `storage_pool_size`, ... → PostgresDatabaseOptions; absent: no storage here. */
  readonly storage?: PostgresDatabaseOptions;
  readonly permission?: PostgresDatabaseOptions;
  readonly cache?: PostgresDatabaseOptions;
}

export class PostgresDatabases {
  readonly storage?: PostgresDatabase;
  readonly permission?: PostgresDatabase;
  readonly cache?: PostgresDatabase;
  private readonly byUrl = new Map<string, PostgresDatabase>();

  /** Opens nothing yet: pools connect on first use, so a database down at startup is retried later. */
  constructor(options: PostgresDatabasesOptions) {
    // The first backend naming a URL sets its pool options (as Kinto does); the others share it.
    this.storage = options.storage && this.databaseFor(options.storage);
    this.permission = options.permission && this.databaseFor(options.permission);
    this.cache = options.cache && this.databaseFor(options.cache);
  }

  /** Whether records and ACEs live in one database, so that one query can join them. */
  get holdsRecordsAndAces(): boolean {
    return this.storage !== undefined && this.storage === this.permission;
  }

  /** Every distinct database, each with the backends (storage, permission, cache) that use it. */
  get all(): readonly { readonly database: PostgresDatabase; readonly usedBy: readonly ("storage" | "permission" | "cache")[] }[] {
    return [...this.byUrl.values()].map((database) => ({
      database,
      usedBy: (["storage", "permission", "cache"] as const).filter((backend) => this[backend] === database),
    }));
  }

  /** Applies pending migrations to every database (idempotent). */
  async migrate(): Promise<void> {
    for (const database of this.byUrl.values()) await database.migrate();
  }

  /** Closes every pool. */
  async close(): Promise<void> {
    await Promise.all([...this.byUrl.values()].map((database) => database.close()));
  }

  private databaseFor(options: PostgresDatabaseOptions): PostgresDatabase {
    let database = this.byUrl.get(options.url);
    if (!database) {
      database = new PostgresDatabase(options);
      this.byUrl.set(options.url, database);
    }
    return database;
  }
}
