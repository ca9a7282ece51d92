/**
 * RecordStore on PostgreSQL. Timestamps are decided under the scope's counter row lock
 * (`timestamps`), so they are strictly increasing per scope across processes, with no retry and
 * no 409. A write outside any transaction joins its scope's group commit (one counter write and
 * one commit per group, the stamp handed out by the group); inside another transaction (a batch)
 * each write statement bumps the counter itself.
 */
import { createHash } from "node:crypto";
import { MODIFIED_FIELD, type CountQuery, type ListQuery } from "../../application/listing.js";
import type { ChangesWithAcls } from "../../application/ports/shared-records.js";
import type { ObjectPermissions } from "../../application/ports/permission-store.js";
import {
  NEVER_WRITTEN,
  type ConditionalWriteOptions,
  type RecordStore,
  type Scope,
  type WriteOptions,
} from "../../application/ports/record-store.js";
import { ConflictError, PreconditionFailedError, RecordNotFoundError } from "../../domain/errors.js";
import type { JsonObject } from "../../domain/json.js";
import { JsonTextRecord } from "../../domain/json-text-record.js";
import { recordBody, type RecordOrTombstone, type StoredRecord, type Tombstone } from "../../domain/records.js";
import type { JoinedGrants } from "./joined-grants.js";
import { BatchedCreates, BatchedUpdates, type AclEntries, type CreateItem, type UpdateItem, type WriteRow } from "./batched-writes.js";
import type { GroupClock } from "./group-clock.js";
import { groupCommitOf, runOne, type BatchStatement, type GroupCommit } from "./group-commit.js";
import { gainedAccessSourceSql, lostAccessSourceSql } from "./access-journal-listing-sql.js";
import type { PostgresDatabase, Statement } from "./postgres-database.js";
import { writeModeOf } from "./write-mode.js";
import {
  filterSql,
  grantedIdsSql,
  grantsRecordSql,
  idsAccessSql,
  isModifiedLowerBound,
  keysetSql,
  orderSql,
  SqlParams,
} from "./record-query-sql.js";
import { NOW_MS } from "./sql-clock.js";

/** Tombstones keep `{deleted: true}` as data so filters and sorts see them as the contract says. */
const TOMBSTONE_DATA = '{"deleted":true}';

/**
 * The next timestamp of scope ($1, $2): a client value ($req) above the counter is honoured, else
 * max(database clock, counter + 1). The row lock it takes orders concurrent writers of a scope.
 */
function bumpTimestamp(source: string, req: string): string {
  return `INSERT INTO timestamps AS t (collection, parent_id, last_modified)
    SELECT $1, $2, COALESCE(${req}::bigint, ${NOW_MS}) ${source}
    ON CONFLICT (collection, parent_id) DO UPDATE SET last_modified =
      CASE WHEN ${req}::bigint > t.last_modified THEN ${req}::bigint ELSE GREATEST(${NOW_MS}, t.last_modified + 1) END
    RETURNING t.last_modified`;
}

const GET: Statement = {
  name: "tessera_records_get",
  text: "SELECT last_modified, data FROM records WHERE collection = $1 AND parent_id = $2 AND id = $3 AND NOT deleted",
};

/** The timestamp CTE's body: the counter bump ($5 requested), or the group's stamp ($5 given). */
function stampSql(stamped: boolean, source: string): string {
  return stamped ? `SELECT $5::bigint AS last_modified ${source}` : bumpTimestamp(source, "$5");
}

/** Inside a transaction of its own: $3 id, $4 data, $5 requested timestamp. Over a tombstone the insert becomes an update. */
const CREATE_IN_TRANSACTION: Statement = {
  name: "tessera_records_create",
  text: `WITH existing AS (
      SELECT last_modified, data FROM records WHERE collection = $1 AND parent_id = $2 AND id = $3 AND NOT deleted
    ), ts AS (${bumpTimestamp("WHERE NOT EXISTS (SELECT 1 FROM existing)", "$5")}
    ), written AS (
      INSERT INTO records AS r (collection, parent_id, id, last_modified, data, deleted)
      SELECT $1, $2, $3, ts.last_modified, $4::jsonb, FALSE FROM ts
      ON CONFLICT (collection, parent_id, id) DO UPDATE
        SET last_modified = EXCLUDED.last_modified, data = EXCLUDED.data, deleted = FALSE WHERE r.deleted
      RETURNING r.last_modified
    )
    SELECT TRUE AS written, last_modified, NULL::jsonb AS data FROM written
    UNION ALL SELECT FALSE, last_modified, data FROM existing`,
};

/** Update or delete of a live record: $3 id, $4 data, $5 timestamp (see stampSql), $6 ifMatch. */
function rewrite(name: string, deleted: boolean, stamped: boolean): Statement {
  return {
    name,
    text: `WITH current AS (
        SELECT last_modified, data FROM records WHERE collection = $1 AND parent_id = $2 AND id = $3 AND NOT deleted
      ), ts AS (${stampSql(stamped, "FROM current WHERE $6::bigint IS NULL OR current.last_modified = $6::bigint")}
      ), written AS (
        UPDATE records AS r SET last_modified = ts.last_modified, data = $4::jsonb, deleted = ${deleted ? "TRUE" : "FALSE"}
        FROM ts WHERE r.collection = $1 AND r.parent_id = $2 AND r.id = $3 AND NOT r.deleted
          AND ($6::bigint IS NULL OR r.last_modified = $6::bigint)
        RETURNING r.last_modified
      )
      SELECT TRUE AS written, last_modified, NULL::jsonb AS data FROM written
      UNION ALL SELECT FALSE, last_modified, data FROM current`,
  };
}

/** A write's two forms: bumping the counter itself, or stamped by its group. */
interface WriteStatements {
  readonly bump: Statement;
  readonly stamped: Statement;
}

const UPDATE_IN_TRANSACTION = rewrite("tessera_records_update", false, false);
const DELETE: WriteStatements = {
  bump: rewrite("tessera_records_delete", true, false),
  stamped: rewrite("tessera_records_delete_stamped", true, true),
};

// A pure SELECT (a hot standby answers it): the first write creates the row, never a read.
const READ_TIMESTAMP: Statement = {
  name: "tessera_records_read_timestamp",
  text: "SELECT last_modified FROM timestamps WHERE collection = $1 AND parent_id = $2",
};
// Takes the counter's row lock first, in the order every single write takes it (no deadlock).
const LOCK_TIMESTAMP: Statement = {
  name: "tessera_records_lock_timestamp",
  text: `INSERT INTO timestamps AS t (collection, parent_id, last_modified) VALUES ($1, $2, ${NOW_MS})
    ON CONFLICT (collection, parent_id) DO UPDATE SET last_modified = t.last_modified`,
};

type EntryRow = {
  id: string;
  last_modified: string;
  data_json: string;
  deleted: boolean;
};

/**
 * PostgreSQL prints a `jsonb` number in plain notation (`0.0000001`) where JavaScript, which
 * answers a record read by id, prints an exponent (`1e-7`): only below 1e-6 (six zeros after the
 * point) or from 1e21 (22 digits). Text that may hold such a number is printed again as
 * JavaScript does (a false alarm inside a string only costs that), so a record reads the same by
 * id and in a listing.
 */
const PLAIN_WHERE_JAVASCRIPT_USES_AN_EXPONENT = /0\.0{6}|\d{22}/;

function asJavaScriptPrints(json: string): string {
  return PLAIN_WHERE_JAVASCRIPT_USES_AN_EXPONENT.test(json) ? JSON.stringify(JSON.parse(json)) : json;
}

function entryOf(row: EntryRow): RecordOrTombstone {
  return row.deleted
    ? { id: row.id, lastModified: Number(row.last_modified), deleted: true }
    : new JsonTextRecord(row.id, Number(row.last_modified), asJavaScriptPrints(row.data_json));
}

/** Dynamic statements are prepared under a name derived from their text, up to this many shapes. */
const MAX_NAMED_SHAPES = 500;
const namedShapes = new Set<string>();

function statementFor(text: string): Statement {
  const name = `tessera_q_${createHash("sha1").update(text).digest("base64url").slice(0, 20)}`;
  if (namedShapes.has(name)) return { name, text };
  if (namedShapes.size >= MAX_NAMED_SHAPES) return { text };
  namedShapes.add(name);
  return { name, text };
}

/**
 * Its `grants` (list, count, deleteMany), createWithAcl and changesWithAcls join the ACEs, which
 * holds only when the permission store uses the same database: PostgresSharedRecords calls them,
 * and the PostgreSQL module binds it only then.
 */
export class PostgresRecordStore implements RecordStore {
  private readonly groups: GroupCommit;
  private readonly creates: BatchedCreates;
  private readonly updates: BatchedUpdates;

  /** The database belongs to whoever opened it (PostgresDatabases), which closes it. */
  constructor(private readonly database: PostgresDatabase) {
    this.groups = groupCommitOf(database);
    this.creates = new BatchedCreates(database);
    this.updates = new BatchedUpdates(database);
  }

  async initializeSchema(): Promise<void> {
    await this.database.migrate("storage");
  }

  async get(scope: Scope, id: string): Promise<StoredRecord | undefined> {
    const rows = await this.read<{ last_modified: string; data: JsonObject }>(GET, [scope.collection, scope.parentId, id]);
    const row = rows[0];
    return row && { id, lastModified: Number(row.last_modified), data: row.data };
  }

  create(scope: Scope, id: string, data: JsonObject, options: WriteOptions = {}): Promise<StoredRecord> {
    return this.createItem({ scope, id, data: JSON.stringify(data), requested: options.lastModified }, data);
  }

  createWithAcl(scope: Scope, id: string, data: JsonObject, options: WriteOptions, acl: AclEntries): Promise<StoredRecord> {
    return this.createItem({ scope, id, data: JSON.stringify(data), requested: options.lastModified, acl }, data);
  }

  private async createItem(item: CreateItem, data: JsonObject): Promise<StoredRecord> {
    const { scope, id } = item;
    const rows = await this.batched(scope, this.creates, item, () =>
      item.acl
        ? this.groups.inTransaction(scope, (clock) => runOne(this.creates, clock, item))
        : this.run<WriteRow>(CREATE_IN_TRANSACTION, [scope.collection, scope.parentId, id, item.data, item.requested ?? null]),
    );
    const written = rows.find((row) => row.written);
    if (written) return { id, lastModified: Number(written.last_modified), data };
    // A live record won, possibly created by a concurrent writer after this statement's snapshot.
    const existing = rows.find((row) => !row.written) ?? (await this.existingRow(scope, id));
    throw new ConflictError(
      existing === undefined
        ? null
        : recordBody({ id, lastModified: Number(existing.last_modified), data: (existing.data ?? {}) as JsonObject }),
    );
  }

  async update(scope: Scope, id: string, data: JsonObject, options: ConditionalWriteOptions = {}): Promise<StoredRecord> {
    const item: UpdateItem = { scope, id, data: JSON.stringify(data), requested: options.lastModified, ifMatch: options.ifMatch };
    const rows = await this.batched(scope, this.updates, item, () =>
      this.run<WriteRow>(UPDATE_IN_TRANSACTION, [
        scope.collection,
        scope.parentId,
        id,
        item.data,
        item.requested ?? null,
        item.ifMatch ?? null,
      ]),
    );
    return { id, lastModified: await this.writtenOrRaise(rows, scope, id, options), data };
  }

  async delete(scope: Scope, id: string, options: ConditionalWriteOptions = {}): Promise<Tombstone> {
    const rows = await this.write(
      scope,
      DELETE,
      [scope.collection, scope.parentId, id, TOMBSTONE_DATA],
      [options.ifMatch ?? null],
      options.lastModified,
    );
    return { id, lastModified: await this.writtenOrRaise(rows, scope, id, options), deleted: true };
  }

  async deleteMany(scope: Scope, query: CountQuery, grants?: JoinedGrants): Promise<Tombstone[]> {
    const params = new SqlParams();
    const source = this.sourceSql(params, scope, query, { includeDeleted: false, lock: true, grants });
    // One timestamp per victim: the counter jumps by their number and each gets its own value.
    const text = `WITH victims AS (
        SELECT r.id, r.last_modified FROM ${source}
      ), numbered AS (
        SELECT id, row_number() OVER (ORDER BY last_modified, id) AS n, count(*) OVER () AS total FROM victims
      ), ts AS (
        UPDATE timestamps t SET last_modified = GREATEST(${NOW_MS}, t.last_modified + 1) + (SELECT max(total) FROM numbered) - 1
        WHERE t.collection = $1 AND t.parent_id = $2 AND EXISTS (SELECT 1 FROM numbered)
        RETURNING t.last_modified AS high
      ), written AS (
        UPDATE records r SET deleted = TRUE, data = '${TOMBSTONE_DATA}'::jsonb, last_modified = ts.high - numbered.total + numbered.n
        FROM numbered, ts WHERE r.collection = $1 AND r.parent_id = $2 AND r.id = numbered.id
        RETURNING r.id, r.last_modified
      )
      SELECT id, last_modified FROM written ORDER BY last_modified`;
    const rows = await this.database.transaction("storage", async () => {
      await this.run(LOCK_TIMESTAMP, [scope.collection, scope.parentId]);
      return this.run<{ id: string; last_modified: string }>(statementFor(text), params.values);
    });
    return rows.map((row) => ({ id: row.id, lastModified: Number(row.last_modified), deleted: true }));
  }

  async list(scope: Scope, query: ListQuery, grants?: JoinedGrants): Promise<RecordOrTombstone[]> {
    if (query.limit <= 0) return [];
    const params = new SqlParams();
    const rows = await this.read<EntryRow>(statementFor(this.listSql(params, scope, query, grants)), params.values);
    return rows.map(entryOf);
  }

  /**
   * The listing's statement over the page, with each entry's ACL looked up by its key prefix (as
   * the record-with-ACL read does) in the same statement, so from the same snapshot. With
   * `readers`, only the entries whose ACEs grant them, checked row by row as a restricted
   * listing of changes does (grantsRecordSql): the page holds what they read, not every change.
   */
  async changesWithAcls(
    scope: Scope,
    range: { readonly after: number; readonly upTo: number; readonly limit: number },
    acl: { readonly objectIdPrefix: string; readonly permissions: readonly string[] },
    readers?: JoinedGrants,
  ): Promise<ChangesWithAcls> {
    if (range.limit <= 0) return { entries: [], acls: new Map() };
    const params = new SqlParams();
    const page = this.listSql(
      params,
      scope,
      {
        filters: [{ field: MODIFIED_FIELD, operator: "gt", value: range.after }],
        sort: [{ field: MODIFIED_FIELD, descending: false }],
        limit: range.limit,
        upTo: range.upTo,
        includeDeleted: true,
      },
      undefined,
      readers && (() => grantsRecordSql(params, readers, "r.id")),
    );
    const text = `SELECT e.id, e.last_modified, e.data_json, e.deleted,
        (SELECT json_agg(json_build_array(a.permission, a.principal))
          FROM unnest(${params.add([...acl.permissions], "text[]")}) AS q (permission) CROSS JOIN LATERAL (
            SELECT a.permission, a.principal FROM access_control_entries a
            WHERE a.object_id = ${params.add(acl.objectIdPrefix, "text")} || e.id AND a.permission = q.permission OFFSET 0) AS a) AS acl
      FROM (${page}) AS e ORDER BY e.last_modified`;
    const rows = await this.read<EntryRow & { acl: [string, string][] | null }>(statementFor(text), params.values);
    const acls = new Map<string, ObjectPermissions>();
    for (const row of rows) {
      const permissions: ObjectPermissions = {};
      for (const [permission, principal] of row.acl ?? []) (permissions[permission] ??= new Set()).add(principal);
      acls.set(row.id, permissions);
    }
    return { entries: rows.map(entryOf), acls, narrowed: readers !== undefined };
  }

  /** The text of a listing (`list`), its values bound in `params`. */
  private listSql(params: SqlParams, scope: Scope, query: ListQuery, grants?: JoinedGrants, condition?: () => string): string {
    const source = this.sourceSql(params, scope, query, {
      includeDeleted: query.includeDeleted,
      grants,
      more: () => [
        ...(query.upTo !== undefined ? [`r.last_modified <= ${params.add(query.upTo, "bigint")}`] : []),
        ...(query.after ? [keysetSql(params, query.sort, query.after)] : []),
        ...(condition ? [condition()] : []),
      ],
    });
    // The access journal's entries, read in the same statement (its fragments: access-journal-listing-sql.ts).
    // Tombstones of records the caller's principals lost (docs/adr/0011) join the live entries.
    const lost = lostAccessSourceSql(params, query, grants);
    // Records given to the caller after the position (a group change), whatever their own timestamp.
    const gained = gainedAccessSourceSql(params, query, grants);
    const columns = "r.id, r.last_modified, r.data, r.deleted";
    const more = [lost, gained].filter((s): s is string => s !== undefined).map((s) => ` UNION ALL SELECT ${columns} FROM ${s}`);
    const from = more.length === 0 ? source : `(SELECT ${columns} FROM ${source}${more.join("")}) AS r`;
    const order = query.sort.length > 0 ? ` ORDER BY ${orderSql(params, query.sort)}` : "";
    // The data as text: the driver does not parse it, and a listing can answer it as it is (JsonTextRecord).
    return `SELECT r.id, r.last_modified, r.data::text AS data_json, r.deleted FROM ${from}${order} LIMIT ${params.add(query.limit, "bigint")}`;
  }

  async count(scope: Scope, query: CountQuery, grants?: JoinedGrants): Promise<number> {
    const params = new SqlParams();
    const text = `SELECT count(*) AS n FROM ${this.sourceSql(params, scope, query, { includeDeleted: false, grants })}`;
    const rows = await this.read<{ n: string }>(statementFor(text), params.values);
    return Number(rows[0]?.n ?? 0);
  }

  async collectionTimestamp(scope: Scope): Promise<number> {
    const rows = await this.read<{ last_modified: string }>(READ_TIMESTAMP, [scope.collection, scope.parentId]);
    return rows[0] ? Number(rows[0].last_modified) : NEVER_WRITTEN;
  }

  async purgeTombstones(scope: Scope | undefined, before?: number): Promise<number> {
    const params = new SqlParams();
    const conditions = ["deleted"];
    if (scope) conditions.push(`collection = ${params.add(scope.collection)}`, `parent_id = ${params.add(scope.parentId)}`);
    if (before !== undefined) conditions.push(`last_modified < ${params.add(before, "bigint")}`);
    const text = `WITH purged AS (DELETE FROM records WHERE ${conditions.join(" AND ")} RETURNING 1) SELECT count(*) AS n FROM purged`;
    const rows = await this.run<{ n: string }>(text, params.values);
    return Number(rows[0]?.n ?? 0);
  }

  async flush(): Promise<void> {
    await this.run("DELETE FROM records");
    await this.run("DELETE FROM timestamps");
  }

  heartbeat(): Promise<boolean> {
    return this.database.heartbeat("storage");
  }

  /** Nothing of its own to close: the shared database is closed by its owner. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * `records r WHERE …` for the scope ($1, $2), tombstones, filters, access and `more` conditions.
   * With grants, the rows come from the caller's grants instead: each granted id is
   * looked up by primary key (a LATERAL with LIMIT 1, so the planner cannot turn it into a scan of
   * the scope). Work is proportional to the caller's grants in this collection, never to its size;
   * except for changes since a timestamp, read from the scope index and checked against their
   * ACEs: work proportional to the changes.
   */
  private sourceSql(
    params: SqlParams,
    scope: Scope,
    query: CountQuery,
    options: { includeDeleted: boolean; lock?: boolean; more?: () => string[]; grants?: JoinedGrants },
  ): string {
    params.add(scope.collection);
    params.add(scope.parentId);
    // A listing of changes since a timestamp starts from them (the scope index), each checked
    // against its ACEs: its cost follows the changes, not how many records the caller may read.
    const changesFirst = options.grants !== undefined && query.filters.some(isModifiedLowerBound);
    const granted = options.grants && !changesFirst ? grantedIdsSql(params, options.grants) : undefined;
    // Known ids are looked up by primary key, a whole scope through the scope index (migration 3).
    const byId = granted !== undefined || query.access !== undefined;
    const conditions = byId
      ? ["r.collection = $1", "r.parent_id = $2"]
      : [`r.collection COLLATE "POSIX" = $1`, `r.parent_id COLLATE "POSIX" = $2`];
    if (!options.includeDeleted) conditions.push("NOT r.deleted");
    for (const f of query.filters) conditions.push(filterSql(params, f));
    if (query.access) conditions.push(idsAccessSql(params, query.access.ids));
    if (options.grants && changesFirst) conditions.push(grantsRecordSql(params, options.grants, "r.id"));
    else if (options.grants && granted === undefined) conditions.push("FALSE");
    conditions.push(...(options.more?.() ?? []));
    const lock = options.lock ? " FOR UPDATE OF r" : "";
    if (granted === undefined) return `records r WHERE ${conditions.join(" AND ")}${lock}`;
    return `(${granted}) AS g CROSS JOIN LATERAL (
      SELECT r.* FROM records r WHERE ${conditions.join(" AND ")} AND r.id = g.id LIMIT 1${lock}) AS r`;
  }

  /**
   * Runs a write: with the stamp of the current group of this scope; bumping the counter itself
   * inside another transaction; else in the scope's next group. `before` and `after` are the
   * values around the timestamp parameter ($5).
   */
  private write(
    scope: Scope,
    statements: WriteStatements,
    before: unknown[],
    after: unknown[],
    requested: number | undefined,
  ): Promise<WriteRow[]> {
    const mode = writeModeOf(this.database, scope);
    if (mode.runs === "in its group") return this.stampedWrite(mode.clock, statements.stamped, before, after, requested);
    if (mode.runs === "in a transaction") return this.run<WriteRow>(statements.bump, [...before, requested ?? null, ...after]);
    return this.groups.write(scope, (group) => this.stampedWrite(group, statements.stamped, before, after, requested));
  }

  /**
   * A create or update: stamped by the current group's clock of this scope (a unit of work);
   * `inTransaction` inside another transaction (a batch request); else an item of the scope's
   * next group, sharing one statement with the writes of the same kind next to it.
   */
  private batched<I>(
    scope: Scope,
    statement: BatchStatement<I, WriteRow[]>,
    item: I,
    inTransaction: () => Promise<WriteRow[]>,
  ): Promise<WriteRow[]> {
    const mode = writeModeOf(this.database, scope);
    if (mode.runs === "in its group") return runOne(statement, mode.clock, item);
    if (mode.runs === "in a transaction") return inTransaction();
    return this.groups.batch(scope, statement, item);
  }

  private async stampedWrite(
    clock: GroupClock,
    statement: Statement,
    before: unknown[],
    after: unknown[],
    requested: number | undefined,
  ): Promise<WriteRow[]> {
    const stamp = clock.next(requested);
    const rows = await this.run<WriteRow>(statement, [...before, stamp, ...after]);
    if (rows.some((row) => row.written)) clock.wrote(stamp);
    return rows;
  }

  /** The written row's timestamp; else the error: the record is missing, or ifMatch differs (judged on its latest version). */
  private async writtenOrRaise(rows: readonly WriteRow[], scope: Scope, id: string, options: ConditionalWriteOptions): Promise<number> {
    const written = rows.find((row) => row.written);
    if (written) return Number(written.last_modified);
    const current = await this.existingRow(scope, id);
    // With ifMatch, a record deleted meanwhile fails the precondition (api-contract §7).
    if (!current) throw options.ifMatch !== undefined ? new PreconditionFailedError(null) : new RecordNotFoundError(scope.collection, id);
    throw new PreconditionFailedError(recordBody({ id, lastModified: Number(current.last_modified), data: current.data ?? {} }));
  }

  private async existingRow(scope: Scope, id: string): Promise<{ last_modified: string; data: JsonObject | null } | undefined> {
    const rows = await this.run<{ last_modified: string; data: JsonObject }>(GET, [scope.collection, scope.parentId, id]);
    return rows[0];
  }

  private run<R extends Record<string, unknown>>(statement: Statement | string, values: readonly unknown[] = []): Promise<R[]> {
    return this.database.query<R>("storage", statement, values);
  }

  /** A plain SELECT: a replica that has replayed every acknowledged write may answer it (PostgresDatabase.read). */
  private read<R extends Record<string, unknown>>(statement: Statement | string, values: readonly unknown[] = []): Promise<R[]> {
    return this.database.read<R>("storage", statement, values);
  }
}
