/**
 * One PostgreSQL database: our own pg pool, which serves the hot paths as plain parameterised SQL
 * (docs/adr/0006), and the transaction of the current unit of work. TypeORM only runs migrations,
 * on a short-lived DataSource of its own.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import pg from "pg";
import { BackendError } from "../../domain/errors.js";
import type { GroupClock } from "./group-clock.js";
import { GuardedClient } from "./guarded-client.js";
import type { MigrationClass } from "./postgres-data-source.js";
import { toDomainError, type PostgresBackendName } from "./postgres-errors.js";
import { urlWithPassword, urlWithSessionOptions } from "./postgres-url.js";
import { freshReading } from "./fresh-reading.js";
import { Replica } from "./replica.js";
import { ReplicaReads } from "./replica-reads.js";

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
  /**
   * Longest statement in milliseconds; none by default (0 or absent). PostgreSQL cancels it
   * (statement_timeout), and the client gives up a little later if no answer comes at all (a
   * stalled or silently dead connection), which also destroys that connection.
   */
  readonly statementTimeoutMs?: number;
  /** Shown in pg_stat_activity (default "tessera"). */
  readonly applicationName?: string;
  /** Migrations to run (tests run a prefix to prove upgrades); every migration by default. */
  readonly migrations?: readonly MigrationClass[];
  /** Streaming replicas of this database that may answer reads (replica-reads.ts); none by default. */
  readonly replicas?: { readonly urls: readonly string[]; readonly maxWaitMs: number };
}

/** A SQL text and, for fixed statements, the name under which pg prepares it once per connection. */
export interface Statement {
  readonly text: string;
  readonly name?: string;
}

// Short OLTP statements: JIT compilation and parallel workers cost more than they save, and
// the planner's overestimates on the ACE join (grants of a principal elsewhere) trigger both.
// Generic plans: every statement is written to be planned the same whatever its values and
// the statistics (the plans tests check its generic plan), and PostgreSQL's own choice kept
// re-planning those whose parameter arrays it cannot size (0.3 ms for a walk of nested groups).
const SESSION_OPTIONS = "-c jit=off -c max_parallel_workers_per_gather=0 -c plan_cache_mode=force_generic_plan";

/** Where the primary's WAL ends now: every write acknowledged so far is at or before it. */
const PRIMARY_POSITION = {
  name: "tessera_primary_position",
  text: "SELECT (pg_current_wal_insert_lsn() - '0/0')::bigint::text AS position",
};
/** Which cluster this is: a streaming replica has its primary's. */
const SYSTEM_IDENTIFIER = { name: "tessera_system_identifier", text: "SELECT system_identifier::text AS system FROM pg_control_system()" };

/** A replica's name in logs and metrics: host, port and database, never its credentials. */
function replicaLabel(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}`;
  } catch {
    return "replica";
  }
}

/** pg's form of a statement and its values (a fixed statement prepared under its name). */
function queryConfig(statement: Statement | string, values: readonly unknown[]): pg.QueryConfig {
  const { text, name } = typeof statement === "string" ? { text: statement, name: undefined } : statement;
  return { text, values: values as unknown[], ...(name !== undefined ? { name } : {}) };
}

/** Idle time before TCP keepalive probes start on every connection (the OS default is 2 hours). */
export const KEEPALIVE_IDLE_MS = 30_000;

/** How much longer than PostgreSQL's statement_timeout the client waits for an answer. */
const CLIENT_TIMEOUT_MARGIN_MS = 1000;

/** Connection options bounding statements at `statementTimeoutMs` on both sides (none when 0). */
export function statementTimeouts(statementTimeoutMs: number | undefined): Pick<pg.ClientConfig, "statement_timeout" | "query_timeout"> {
  if (statementTimeoutMs === undefined || statementTimeoutMs <= 0) return {};
  return { statement_timeout: statementTimeoutMs, query_timeout: statementTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS };
}

// Serialises concurrent `migrate` runs of several processes (an arbitrary, fixed key).
const MIGRATION_LOCK_KEY = 7_364_211_093;

/** Connections TypeORM may open while it runs migrations (it uses one at a time). */
const MIGRATION_CONNECTIONS = 2;

/**
 * Statements that share the round trip of a transaction's BEGIN or COMMIT, sent as one simple
 * query: literals only (`pg.escapeLiteral`), no parameters. One round trip costs the server far
 * more CPU than the statement costs PostgreSQL (docs/adr/0013).
 */
export interface TransactionEdges {
  /** Runs right after BEGIN; its rows are handed to the work. */
  readonly afterBegin?: string;
  /** Asked once the work succeeded: runs right before COMMIT (undefined: nothing to run). */
  readonly beforeCommit?: () => string | undefined;
}

/** The rows of a simple query's last statement (pg answers an array of results for several). */
function lastRows<O extends pg.QueryResultRow>(result: pg.QueryResult<O> | pg.QueryResult<O>[]): readonly O[] {
  return (Array.isArray(result) ? result.at(-1) : result)?.rows ?? [];
}

/**
 * What code running inside a transaction may be handed with it, by whoever runs that code: the
 * one ambient state of the PostgreSQL adapters (docs/adr/0010 names the write modes it decides).
 */
export interface TransactionPart {
  /** A group commit's member: the group's clock, which stamps the member's writes of its scope. */
  readonly clock?: GroupClock;
  /** A unit of work: the callbacks waiting for its commit (a group member's: for its own outcome). */
  readonly afterCommit?: (() => unknown)[];
}

/** The connection of a unit of work, what to take back elsewhere if it rolls back, and its parts. */
interface Transaction extends TransactionPart {
  readonly client: pg.PoolClient;
  readonly undos: (() => Promise<void>)[];
}

function ignorePoolError(): void {
  // An idle pooled client lost its connection; pg-pool has already dropped it from the pool.
}

export class PostgresDatabase {
  readonly url: string;
  readonly maxConnections: number;
  /** Requests refused by max_backlog so far (metrics). */
  backlogRefusals = 0;
  private readonly maxBacklog: number;
  /** Without the statement timeouts: migrations may legitimately run long. */
  private readonly connection: pg.ClientConfig;
  private readonly timeouts: pg.ClientConfig;
  /** Sizes and waits of the pool (a replica's pool has the same). */
  private readonly poolShape: pg.PoolConfig;
  private readonly migrations: readonly MigrationClass[] | undefined;
  private migrated: Promise<string[]> | undefined;
  private readonly transactions = new AsyncLocalStorage<Transaction>();
  private readonly pool: pg.Pool;
  /** Absent: every read goes to this database. */
  readonly replicaReads: ReplicaReads | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: PostgresDatabaseOptions) {
    this.url = options.url;
    this.maxConnections = (options.poolSize ?? 10) + Math.max(0, options.maxOverflow ?? 10);
    this.maxBacklog = options.maxBacklog ?? -1;
    this.migrations = options.migrations;
    const recycle = options.poolRecycleSeconds ?? -1;
    const session = urlWithSessionOptions(urlWithPassword(options.url, options.passwordFile), SESSION_OPTIONS);
    this.connection = {
      connectionString: session.url,
      ...(session.options !== undefined ? { options: session.options } : {}),
      application_name: options.applicationName ?? "tessera",
      // A peer that vanished without closing (network partition) is noticed by TCP keepalive.
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    };
    this.timeouts = statementTimeouts(options.statementTimeoutMs);
    this.poolShape = {
      max: this.maxConnections,
      // Like SQLAlchemy's QueuePool: poolSize connections stay open, overflow ones close when idle.
      min: Math.max(0, options.poolSize ?? 10),
      idleTimeoutMillis: 10_000,
      // pg-pool applies it to queued requests too: waiting longer for a connection fails.
      connectionTimeoutMillis: Math.max(1, Math.round((options.poolTimeoutSeconds ?? 30) * 1000)),
      ...(recycle > 0 ? { maxLifetimeSeconds: recycle } : {}),
    };
    // Connects lazily: a database down at start-up is simply retried by the next request.
    this.pool = new pg.Pool({ ...this.connection, ...this.timeouts, Client: GuardedClient, ...this.poolShape });
    this.pool.on("error", ignorePoolError);
    this.replicaReads = options.replicas && options.replicas.urls.length > 0 ? this.replicasOf(options, options.replicas) : undefined;
  }

  /**
   * Runs one read-only statement (a plain SELECT): on a replica that has replayed every write
   * acknowledged before the call, if one is configured and ready (replica-reads.ts), else as
   * `query` does. In a unit of work it reads that transaction.
   */
  async read<R extends pg.QueryResultRow>(
    backend: PostgresBackendName,
    statement: Statement | string,
    values: readonly unknown[] = [],
  ): Promise<R[]> {
    const replicas = this.replicaReads;
    if (!replicas || this.inTransaction()) return this.query<R>(backend, statement, values);
    const config = queryConfig(statement, values);
    return replicas.read<R>(config, () => this.query<R>(backend, statement, values));
  }

  private replicasOf(
    options: PostgresDatabaseOptions,
    replicas: { readonly urls: readonly string[]; readonly maxWaitMs: number },
  ): ReplicaReads {
    const positions = freshReading(async () => {
      const rows = await this.query<{ position: string }>("storage", PRIMARY_POSITION);
      return BigInt(rows[0]?.position ?? "0");
    });
    let system: Promise<string> | undefined;
    const primarySystem = () => {
      system ??= this.query<{ system: string }>("storage", SYSTEM_IDENTIFIER).then(
        (rows) => rows[0]?.system ?? "",
        (error: unknown) => {
          system = undefined;
          throw error;
        },
      );
      return system;
    };
    const list = replicas.urls.map((url) => {
      const session = urlWithSessionOptions(urlWithPassword(url, options.passwordFile), SESSION_OPTIONS);
      const config: pg.PoolConfig = {
        ...this.connection,
        connectionString: session.url,
        ...(session.options !== undefined ? { options: session.options } : {}),
        ...this.timeouts,
        ...this.poolShape,
      };
      return new Replica(replicaLabel(url), config, primarySystem);
    });
    return new ReplicaReads({ replicas: list, primaryPosition: positions, maxWaitMs: replicas.maxWaitMs });
  }

  /**
   * Runs one statement: in the current unit of work's transaction if any, else autocommitted on a
   * pooled connection. Failures become BackendError(backend) (unique violations ConflictError).
   */
  async query<R extends pg.QueryResultRow>(
    backend: PostgresBackendName,
    statement: Statement | string,
    values: readonly unknown[] = [],
  ): Promise<R[]> {
    const config = queryConfig(statement, values);
    try {
      const client = this.transactions.getStore()?.client;
      if (client) return (await client.query<R>(config)).rows;
      this.refuseWhenClosedOrOverloaded(backend);
      return (await this.pool.query<R>(config)).rows;
    } catch (err) {
      throw toDomainError(backend, err);
    }
  }

  /** Whether a unit of work of this database is running in the current async context. */
  inTransaction(): boolean {
    return this.transactions.getStore() !== undefined;
  }

  /** What the current transaction was handed (see `within`); undefined outside a transaction. */
  transactionPart(): TransactionPart | undefined {
    return this.transactions.getStore();
  }

  /** Runs `work` in the transaction already open, handed `part` as well (a group's clock, a unit of work's callbacks). */
  within<T>(part: TransactionPart, work: () => Promise<T>): Promise<T> {
    const current = this.transactions.getStore();
    if (!current) return Promise.reject(new Error("within: no transaction is open"));
    return this.transactions.run({ ...current, ...part }, work);
  }

  /**
   * Runs `work` in one transaction (joined when one is already open); rolls back when it throws.
   * `edges` go out in the round trips of BEGIN and COMMIT; a joined transaction runs them as
   * statements of its own, around the work.
   */
  async transaction<T, O extends pg.QueryResultRow = pg.QueryResultRow>(
    backend: PostgresBackendName,
    work: (opened: readonly O[]) => Promise<T>,
    edges: TransactionEdges = {},
  ): Promise<T> {
    if (this.inTransaction()) return this.joined(backend, work, edges);
    const client = await this.checkout(backend);
    let opened: readonly O[];
    try {
      opened = lastRows<O>(await client.query<O>(edges.afterBegin === undefined ? "BEGIN" : `BEGIN; ${edges.afterBegin}`));
    } catch (err) {
      client.release(true);
      throw toDomainError(backend, err);
    }
    const transaction: Transaction = { client, undos: [] };
    let result: T;
    try {
      result = await this.transactions.run(transaction, () => work(opened));
    } catch (err) {
      // A connection that cannot even roll back is broken: release(true) destroys it.
      const broken = await client.query("ROLLBACK").then(
        () => false,
        () => true,
      );
      client.release(broken);
      await undo(transaction);
      throw err;
    }
    try {
      const closing = edges.beforeCommit?.();
      await client.query(closing === undefined ? "COMMIT" : `${closing}; COMMIT`);
    } catch (err) {
      client.release(true);
      await undo(transaction);
      throw toDomainError(backend, err);
    }
    client.release();
    return result;
  }

  /** `work` and its edges inside the transaction already open. */
  private async joined<T, O extends pg.QueryResultRow>(
    backend: PostgresBackendName,
    work: (opened: readonly O[]) => Promise<T>,
    edges: TransactionEdges,
  ): Promise<T> {
    const result = await work(edges.afterBegin === undefined ? [] : await this.query<O>(backend, edges.afterBegin));
    const closing = edges.beforeCommit?.();
    if (closing !== undefined) await this.query(backend, closing);
    return result;
  }

  /** Registers `undo` with the current transaction: it runs if that transaction rolls back. */
  onRollback(undo: () => Promise<void>): void {
    this.transactions.getStore()?.undos.push(undo);
  }

  /**
   * Applies pending migrations (idempotent), one process at a time, through a TypeORM DataSource
   * opened for the occasion (loaded only then: serving never needs TypeORM). Returns the names
   * applied. Once it succeeded, later calls on this database (every store sharing it asks, at
   * `migrate`) answer at once: there is nothing left to apply.
   */
  migrate(backend: PostgresBackendName = "storage"): Promise<string[]> {
    const done = this.migrated;
    if (done) return done.then(() => []);
    const running = this.runMigrations(backend);
    this.migrated = running;
    running.catch(() => {
      if (this.migrated === running) this.migrated = undefined; // a failed run may be tried again
    });
    return running;
  }

  private async runMigrations(backend: PostgresBackendName): Promise<string[]> {
    const lock = await this.checkout(backend);
    try {
      await lock.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
      const [{ DataSource }, { postgresDataSourceOptions, POSTGRES_MIGRATIONS }] = await Promise.all([
        import("typeorm"),
        import("./postgres-data-source.js"),
      ]);
      const options = postgresDataSourceOptions(
        this.url,
        { ...this.connection, Client: GuardedClient, max: MIGRATION_CONNECTIONS },
        this.migrations ?? POSTGRES_MIGRATIONS,
      );
      const dataSource = new DataSource(options);
      await dataSource.initialize();
      try {
        const applied = await dataSource.runMigrations({ transaction: "all" });
        return applied.map((migration) => migration.name);
      } finally {
        await dataSource.destroy();
      }
    } catch (err) {
      throw toDomainError(backend, err);
    } finally {
      const unlocked = await lock.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).then(
        () => true,
        () => false,
      );
      lock.release(!unlocked);
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
  poolStatus(): Promise<{ total: number; idle: number; waiting: number }> {
    return Promise.resolve({ total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount });
  }

  close(): Promise<void> {
    this.closing ??= Promise.all([this.pool.end(), this.replicaReads?.close()]).then(() => undefined);
    return this.closing;
  }

  /** A pooled client of our own (a unit of work, the migration lock); failures are BackendErrors. */
  private async checkout(backend: PostgresBackendName): Promise<pg.PoolClient> {
    try {
      this.refuseWhenClosedOrOverloaded(backend);
      return await this.pool.connect();
    } catch (err) {
      throw toDomainError(backend, err);
    }
  }

  /** max_backlog: when that many requests already wait for a connection, fail now instead of queueing. */
  private refuseWhenClosedOrOverloaded(backend: PostgresBackendName): void {
    if (this.closing) throw new BackendError(backend, undefined, `The ${backend} backend is closed`);
    if (this.maxBacklog < 0) return;
    const pool = this.pool;
    const mustWait = pool.idleCount === 0 && pool.totalCount >= this.maxConnections;
    if (mustWait && pool.waitingCount >= this.maxBacklog) {
      this.backlogRefusals++;
      throw new BackendError(
        backend,
        undefined,
        `The ${backend} backend is overloaded: ${pool.waitingCount} requests already wait for a connection`,
      );
    }
  }
}

/** Takes back, newest first, the writes made elsewhere during a transaction that rolled back. */
async function undo(transaction: Transaction): Promise<void> {
  for (const step of transaction.undos.reverse()) {
    // Best effort: the other backend may be down too; what then diverges is documented (docs/operating.md).
    await step().catch(() => undefined);
  }
}
