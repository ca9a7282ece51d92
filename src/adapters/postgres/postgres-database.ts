/**
 * One PostgreSQL database: a TypeORM DataSource (migrations) whose pg pool also serves the hot
 * paths as plain parameterised SQL, and the transaction of the current unit of work.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import pg from "pg";
import { DataSource } from "typeorm";
import { BackendError } from "../../domain/errors.js";
import { postgresDataSourceOptions, POSTGRES_MIGRATIONS, type MigrationClass } from "./postgres-data-source.js";
import { toDomainError, type PostgresBackendName } from "./postgres-errors.js";
import { urlWithPassword, urlWithSessionOptions } from "./postgres-url.js";

export interface PostgresDatabaseOptions {
  /** `postgresql://user[:password]@host:port/database`; missing parts come from libpq env (PGPASSWORD...). */
  readonly url: string;
  /** Connections kept (default 10). */
  readonly poolSize?: number;
  /** Extra connections allowed under load (default 10): the pool holds at most size + overflow. */
  readonly maxOverflow?: number;
  /** Requests allowed to wait for a connection; one more fails at once. -1 (default): no limit. */
  readonly maxBacklog?: number;
  /** Maximum lifetime of a connection in seconds; -1 (default): forever. */
  readonly poolRecycleSeconds?: number;
  /** Longest wait for a connection before failing, in seconds (default 30). */
  readonly poolTimeoutSeconds?: number;
  /** A file holding the password (its trailing newline ignored); wins over the URL's. */
  readonly passwordFile?: string;
  /** Server-side statement timeout in milliseconds; none by default. */
  readonly statementTimeoutMs?: number;
  /** Shown in pg_stat_activity (default "tessera"). */
  readonly applicationName?: string;
  /** Migrations to run (tests run a prefix to prove upgrades); every migration by default. */
  readonly migrations?: readonly MigrationClass[];
}

/** A SQL text and, for fixed statements, the name under which pg prepares it once per connection. */
export interface Statement {
  readonly text: string;
  readonly name?: string;
}

// Serialises concurrent `migrate` runs of several processes (an arbitrary, fixed key).
const MIGRATION_LOCK_KEY = 7_364_211_093;

/** Listener for a checked-out client: its next statement reports the failure instead. */
function ignoreClientError(): void {}

function isPool(value: unknown): value is pg.Pool {
  return value instanceof pg.Pool || (typeof value === "object" && value !== null && "totalCount" in value && "connect" in value);
}

export class PostgresDatabase {
  readonly url: string;
  readonly maxConnections: number;
  /** Requests refused by max_backlog so far (metrics). */
  backlogRefusals = 0;
  private readonly maxBacklog: number;
  private readonly poolOptions: Readonly<Record<string, unknown>>;
  private readonly migrations: readonly MigrationClass[];
  private readonly transactions = new AsyncLocalStorage<pg.PoolClient>();
  private opening: Promise<{ dataSource: DataSource; pool: pg.Pool }> | undefined;
  private closed = false;

  constructor(options: PostgresDatabaseOptions) {
    this.url = options.url;
    this.maxConnections = (options.poolSize ?? 10) + Math.max(0, options.maxOverflow ?? 10);
    this.maxBacklog = options.maxBacklog ?? -1;
    this.migrations = options.migrations ?? POSTGRES_MIGRATIONS;
    const recycle = options.poolRecycleSeconds ?? -1;
    // Short OLTP statements: JIT compilation and parallel workers cost more than they save, and
    // the planner's overestimates on the ACE join (grants of a principal elsewhere) trigger both.
    const session = urlWithSessionOptions(urlWithPassword(options.url, options.passwordFile), "-c jit=off -c max_parallel_workers_per_gather=0");
    this.poolOptions = {
      connectionString: session.url,
      ...(session.options !== undefined ? { options: session.options } : {}),
      max: this.maxConnections,
      // Like SQLAlchemy's QueuePool: poolSize connections stay open, overflow ones close when idle.
      min: Math.max(0, options.poolSize ?? 10),
      idleTimeoutMillis: 10_000,
      // pg-pool applies it to queued requests too: waiting longer for a connection fails.
      connectionTimeoutMillis: Math.max(1, Math.round((options.poolTimeoutSeconds ?? 30) * 1000)),
      ...(recycle > 0 ? { maxLifetimeSeconds: recycle } : {}),
      ...(options.statementTimeoutMs !== undefined ? { statement_timeout: options.statementTimeoutMs } : {}),
      application_name: options.applicationName ?? "tessera",
    };
  }

  /**
   * Runs one statement: in the current unit of work's transaction if any, else autocommitted on a
   * pooled connection. Failures become BackendError(backend) (unique violations ConflictError).
   */
  async query<R extends pg.QueryResultRow>(backend: PostgresBackendName, statement: Statement | string, values: readonly unknown[] = []): Promise<R[]> {
    const { text, name } = typeof statement === "string" ? { text: statement, name: undefined } : statement;
    const config: pg.QueryConfig = { text, values: values as unknown[], ...(name !== undefined ? { name } : {}) };
    try {
      const client = this.transactions.getStore();
      if (client) return (await client.query<R>(config)).rows;
      const pool = await this.pool();
      this.refuseBeyondBacklog(backend, pool);
      return (await pool.query<R>(config)).rows;
    } catch (err) {
      throw toDomainError(backend, err);
    }
  }

  /** Whether a unit of work of this database is running in the current async context. */
  inTransaction(): boolean {
    return this.transactions.getStore() !== undefined;
  }

  /** Runs `work` in one transaction (joined when one is already open); rolls back when it throws. */
  async transaction<T>(backend: PostgresBackendName, work: () => Promise<T>): Promise<T> {
    if (this.inTransaction()) return work();
    let client: pg.PoolClient | undefined;
    try {
      const pool = await this.pool();
      this.refuseBeyondBacklog(backend, pool);
      client = await pool.connect();
      await client.query("BEGIN");
    } catch (err) {
      client?.release(err instanceof Error ? err : true);
      throw toDomainError(backend, err);
    }
    // A checked-out client's connection error (server restart, terminated backend) would be
    // an unhandled 'error' event; the next statement on it fails and rolls back the work instead.
    client.on("error", ignoreClientError);
    let result: T;
    try {
      result = await this.transactions.run(client, work);
    } catch (err) {
      // A connection that cannot even roll back is broken: release(true) destroys it.
      const broken = await client.query("ROLLBACK").then(
        () => false,
        () => true,
      );
      client.off("error", ignoreClientError);
      client.release(broken);
      throw err;
    }
    try {
      await client.query("COMMIT");
      client.off("error", ignoreClientError);
      client.release();
    } catch (err) {
      client.off("error", ignoreClientError);
      client.release(true);
      throw toDomainError(backend, err);
    }
    return result;
  }

  /** Applies pending migrations (idempotent), one process at a time. Returns the names applied. */
  async migrate(backend: PostgresBackendName = "storage"): Promise<string[]> {
    let lock: pg.PoolClient | undefined;
    try {
      const { dataSource, pool } = await this.open();
      lock = await pool.connect();
      lock.on("error", ignoreClientError);
      await lock.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
      const applied = await dataSource.runMigrations({ transaction: "all" });
      return applied.map((migration) => migration.name);
    } catch (err) {
      throw toDomainError(backend, err);
    } finally {
      if (lock) {
        const unlocked = await lock.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).then(
          () => true,
          () => false,
        );
        lock.off("error", ignoreClientError);
        lock.release(!unlocked);
      }
    }
  }

  /** True when the database answers. Never throws. */
  async heartbeat(backend: PostgresBackendName): Promise<boolean> {
    try {
      await this.query(backend, { name: "tessera_heartbeat", text: "SELECT 1" });
      return true;
    } catch {
      return false;
    }
  }

  /** Pool counters, for tests and metrics. */
  async poolStatus(): Promise<{ total: number; idle: number; waiting: number }> {
    const pool = await this.pool();
    return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
  }

  async close(): Promise<void> {
    this.closed = true;
    const opened = await this.opening?.catch(() => undefined);
    this.opening = undefined;
    if (opened?.dataSource.isInitialized) await opened.dataSource.destroy();
  }

  private async pool(): Promise<pg.Pool> {
    return (await this.open()).pool;
  }

  /** Starts the DataSource on first use; a failed start (database down) is retried by the next call. */
  private open(): Promise<{ dataSource: DataSource; pool: pg.Pool }> {
    if (this.closed) return Promise.reject(new Error("PostgresDatabase is closed"));
    this.opening ??= this.start().catch((err: unknown) => {
      this.opening = undefined;
      throw err;
    });
    return this.opening;
  }

  private async start(): Promise<{ dataSource: DataSource; pool: pg.Pool }> {
    const dataSource = new DataSource(postgresDataSourceOptions(this.url, this.poolOptions, this.migrations));
    await dataSource.initialize();
    const pool: unknown = (dataSource.driver as unknown as { master?: unknown }).master;
    if (!isPool(pool)) {
      await dataSource.destroy();
      throw new Error("TypeORM's postgres driver exposes no pg pool");
    }
    return { dataSource, pool };
  }

  /** max_backlog: when that many requests already wait for a connection, fail now instead of queueing. */
  private refuseBeyondBacklog(backend: PostgresBackendName, pool: pg.Pool): void {
    if (this.maxBacklog < 0) return;
    const mustWait = pool.idleCount === 0 && pool.totalCount >= this.maxConnections;
    if (mustWait && pool.waitingCount >= this.maxBacklog) {
      this.backlogRefusals++;
      throw new BackendError(backend, undefined, `The ${backend} backend is overloaded: ${pool.waitingCount} requests already wait for a connection`);
    }
  }
}
