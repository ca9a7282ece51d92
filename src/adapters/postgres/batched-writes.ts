/**
 * The single-record writes a group commit sends as one statement per run of writes
 * (docs/adr/0010): creates (with their ACLs, where the permissions share the database) and
 * updates. Every record is looked up by equality on its whole primary key (a LATERAL per id:
 * `id = ANY(array)` on the key's third column would be a filter over the scope, the planner
 * taking a never-analyzed scope for one row), and every ACE an ACL replaces by its key prefix
 * (a LATERAL per permission, then deleted by ctid: `object_id = ANY(array)` let the generic plan
 * made on a young table scan every ACE), so the plans never depend on statistics or table size; nothing raises on a business outcome (a live record in the way, a failed
 * If-Match): each item's rows say what happened, as the one-record statements' rows do.
 */
import type { Scope } from "../../application/ports/record-store.js";
import type { GroupClock } from "./group-clock.js";
import type { BatchStatement, Outcome } from "./group-commit.js";
import type { PostgresDatabase, Statement } from "./postgres-database.js";

/** As the one-record statements return it: the written row, or the live row in the way. */
export interface WriteRow extends Record<string, unknown> {
  readonly written: boolean;
  readonly last_modified: string;
  readonly data: unknown;
}

/** A record's whole ACL as stored: every permission named (an empty list empties it). */
export interface AclEntries {
  readonly objectId: string;
  readonly permissions: Readonly<Record<string, readonly string[]>>;
}

export interface CreateItem {
  readonly scope: Scope;
  readonly id: string;
  /** JSON text. */
  readonly data: string;
  readonly requested: number | undefined;
  readonly acl?: AclEntries;
}

export interface UpdateItem {
  readonly scope: Scope;
  readonly id: string;
  readonly data: string;
  readonly requested: number | undefined;
  readonly ifMatch: number | undefined;
}

/**
 * Over a tombstone the insert becomes an update (as for one record). The ACL of a record written
 * here replaces the named permissions: pairs not given are deleted, given ones inserted (the two
 * never touch one row). No lost access is recorded: nobody could read a record before it existed.
 */
const CREATE: Statement = {
  name: "tessera_batch_create",
  text: `WITH input AS (
      SELECT * FROM unnest($3::text[], $4::text[], $5::bigint[]) AS i(id, data, stamp)
    ), existing AS (
      SELECT r.id, r.last_modified, r.data FROM input i CROSS JOIN LATERAL (
        SELECT r.id, r.last_modified, r.data FROM records r
        WHERE r.collection = $1 AND r.parent_id = $2 AND r.id = i.id AND NOT r.deleted LIMIT 1) AS r
    ), written AS (
      INSERT INTO records AS r (collection, parent_id, id, last_modified, data, deleted)
      SELECT $1, $2, i.id, i.stamp, i.data::jsonb, FALSE FROM input i WHERE NOT EXISTS (SELECT 1 FROM existing e WHERE e.id = i.id)
      ON CONFLICT (collection, parent_id, id) DO UPDATE
        SET last_modified = EXCLUDED.last_modified, data = EXCLUDED.data, deleted = FALSE WHERE r.deleted
      RETURNING r.id, r.last_modified
    ), acl AS (
      SELECT a.* FROM unnest($6::text[], $7::text[], $8::text[], $9::text[]) AS a(id, object_id, permission, principal)
      WHERE a.id IN (SELECT id FROM written)
    ), acl_removed AS (
      DELETE FROM access_control_entries e USING (
        SELECT x.row FROM (SELECT DISTINCT object_id, permission FROM acl) AS n CROSS JOIN LATERAL (
          SELECT a.ctid AS row, a.principal FROM access_control_entries a
          WHERE a.object_id = n.object_id AND a.permission = n.permission OFFSET 0) AS x
        WHERE NOT EXISTS (SELECT 1 FROM acl g WHERE g.object_id = n.object_id AND g.permission = n.permission AND g.principal = x.principal)
      ) AS gone WHERE e.ctid = gone.row
    ), acl_granted AS (
      INSERT INTO access_control_entries (object_id, permission, principal)
      SELECT DISTINCT object_id, permission, principal FROM acl WHERE principal IS NOT NULL
      ON CONFLICT DO NOTHING
    )
    SELECT TRUE AS written, id, last_modified, NULL::jsonb AS data FROM written
    UNION ALL SELECT FALSE, id, last_modified, data FROM existing`,
};

/**
 * Only live records, only where the If-Match (when given) still holds. Each row is found by its
 * primary key (a LATERAL per id), then updated by its ctid: without statistics the planner takes
 * a scope for one row, and would otherwise join the ids against a scan of the whole scope. The
 * ctid cannot go stale: every writer of the scope holds its counter row's lock first.
 */
const UPDATE: Statement = {
  name: "tessera_batch_update",
  text: `WITH input AS (
      SELECT * FROM unnest($3::text[], $4::text[], $5::bigint[], $6::bigint[]) AS i(id, data, stamp, if_match)
    ), found AS (
      SELECT i.*, r.ctid AS row FROM input i CROSS JOIN LATERAL (
        SELECT r.ctid FROM records r WHERE r.collection = $1 AND r.parent_id = $2 AND r.id = i.id AND NOT r.deleted LIMIT 1) AS r
    )
    UPDATE records r SET last_modified = f.stamp, data = f.data::jsonb
    FROM found f
    WHERE r.ctid = f.row AND (f.if_match IS NULL OR r.last_modified = f.if_match)
    RETURNING TRUE AS written, r.id, r.last_modified, NULL::jsonb AS data`,
};

/** One statement never names a record twice (an update would apply once; an insert would raise). */
function distinctIds<I extends { readonly id: string }>(items: readonly I[], item: I): boolean {
  return items.every((other) => other.id !== item.id);
}

/**
 * Stamps the items in order and sends them in one statement: $1, $2 the scope, $3 the ids, $4 the
 * data, $5 the stamps, then `more`. Each item gets its own rows; a written item's stamp counts
 * for the counter.
 */
async function sendStamped<I extends CreateItem | UpdateItem>(
  database: PostgresDatabase,
  statement: Statement,
  clock: GroupClock,
  items: readonly I[],
  more: unknown[],
): Promise<Outcome<WriteRow[]>[]> {
  const scope = items[0]?.scope;
  if (!scope) return [];
  const stamps = items.map((item) => clock.next(item.requested));
  const values = [scope.collection, scope.parentId, items.map((item) => item.id), items.map((item) => item.data), stamps, ...more];
  const rows = await database.query<WriteRow & { id: string }>("storage", statement, values);
  const byId = new Map<string, WriteRow[]>();
  for (const row of rows) byId.set(row.id, [...(byId.get(row.id) ?? []), row]);
  return items.map((item, i) => {
    const own = byId.get(item.id) ?? [];
    const stamp = stamps[i];
    if (stamp !== undefined && own.some((row) => row.written)) clock.wrote(stamp);
    return { ok: true, value: own };
  });
}

export class BatchedCreates implements BatchStatement<CreateItem, WriteRow[]> {
  constructor(private readonly database: PostgresDatabase) {}

  admits(items: readonly CreateItem[], item: CreateItem): boolean {
    return distinctIds(items, item);
  }

  run(clock: GroupClock, items: readonly CreateItem[]): Promise<Outcome<WriteRow[]>[]> {
    const acl = { ids: [] as string[], objects: [] as string[], permissions: [] as string[], principals: [] as (string | null)[] };
    for (const item of items) {
      for (const [permission, principals] of Object.entries(item.acl?.permissions ?? {})) {
        // A permission without principals is still named: its stored principals are deleted.
        for (const principal of principals.length > 0 ? new Set(principals) : [null]) {
          acl.ids.push(item.id);
          acl.objects.push(item.acl?.objectId ?? "");
          acl.permissions.push(permission);
          acl.principals.push(principal);
        }
      }
    }
    return sendStamped(this.database, CREATE, clock, items, [acl.ids, acl.objects, acl.permissions, acl.principals]);
  }
}

export class BatchedUpdates implements BatchStatement<UpdateItem, WriteRow[]> {
  constructor(private readonly database: PostgresDatabase) {}

  admits(items: readonly UpdateItem[], item: UpdateItem): boolean {
    return distinctIds(items, item);
  }

  run(clock: GroupClock, items: readonly UpdateItem[]): Promise<Outcome<WriteRow[]>[]> {
    return sendStamped(this.database, UPDATE, clock, items, [items.map((item) => item.ifMatch ?? null)]);
  }
}
