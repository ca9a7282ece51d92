/**
 * The read of PostgresSharedRecords: the record, its ACEs and the user's extra principals as one
 * statement over the storage and permission tables, which must be in the same database. Each part is the same lookup, on the same index, as
 * RecordStore.get, PermissionStore.objectPermissions and userPrincipals. Reads that arrive while
 * one such statement is in flight go together in the next (statement-bursts.ts); a read inside a
 * unit of work goes alone on its transaction, which may hold writes of its own to see.
 */
import type { RecordAclQuery, RecordWithAcl } from "./joined-grants.js";
import type { InheritedAcls } from "../../application/ports/shared-records.js";
import type { BoundPermission } from "../../domain/permissions.js";
import { DEFAULT_GROUP_MAX_DEPTH, type ObjectPermissions } from "../../application/ports/permission-store.js";
import type { Scope } from "../../application/ports/record-store.js";
import type { JsonObject } from "../../domain/json.js";
import { AUTHENTICATED } from "../../domain/principals.js";
import type { PostgresDatabase, Statement } from "./postgres-database.js";
import { linkedFurther, mustWalk, principalsHeld, principalsReached } from "./principal-closure-sql.js";
import { StatementBursts } from "./statement-bursts.js";

/** The record and its ACL: [permission, principal] pairs, each looked up by its key prefix. */
const RECORD_AND_ACL = `SELECT r.last_modified, r.data,
      (SELECT json_agg(json_build_array(a.permission, a.principal))
        FROM unnest($6::int[], $7::text[]) AS q (n, permission) CROSS JOIN LATERAL (
          SELECT a.permission, a.principal FROM access_control_entries a
          WHERE a.object_id = i.object_id AND a.permission = q.permission OFFSET 0) AS a
        WHERE q.n = i.n) AS acl,
      (SELECT json_agg(json_build_array(o.object_id, o.permission, a.principal))
        FROM unnest($9::int[], $10::text[], $11::text[]) AS o (n, object_id, permission) CROSS JOIN LATERAL (
          SELECT a.principal FROM access_control_entries a
          WHERE a.object_id = o.object_id AND a.permission = o.permission OFFSET 0) AS a
        WHERE o.n = i.n) AS inherited`;
const READS = `FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS i (collection, parent_id, id, object_id, user_id, n)
    LEFT JOIN LATERAL (
      SELECT r.last_modified, r.data FROM records r
      WHERE r.collection = i.collection AND r.parent_id = i.parent_id AND r.id = i.id AND NOT r.deleted LIMIT 1) AS r ON TRUE`;

/**
 * One row per read, in the reads' order (a missing record is a LEFT JOIN miss); the ACL as
 * [permission, principal] pairs ($6/$7: the reads' permissions as (read number, permission)
 * pairs; $9–$11: the ACEs of other objects each read asks for, as (read number, object id,
 * permission), returned as [object id, permission, principal] triples); a NULL user skips the principals, else those stored for the user and
 * system.Authenticated ($8) come with whether they lead further (`deeper`: principal-closure-sql.ts).
 */
const GET_WITH_ACL: Statement = {
  name: "tessera_records_get_with_acl",
  text: `SELECT x.*, x.principals IS NOT NULL AND ${linkedFurther("x.principals")} AS deeper FROM (
    ${RECORD_AND_ACL}, i.n,
      CASE WHEN i.user_id IS NOT NULL THEN
        (SELECT coalesce(array_agg(DISTINCT principal), '{}') FROM (${principalsHeld("i.user_id", "$8")}) AS held)
      END AS principals
    ${READS} OFFSET 0) AS x
    ORDER BY x.n`,
};

/** GET_WITH_ACL again for the reads whose principals lead further: expanded through nested groups as userPrincipals does ($12: group_max_depth). */
const GET_WITH_ACL_NESTED: Statement = {
  name: "tessera_records_get_with_acl_nested",
  text: `${RECORD_AND_ACL},
      CASE WHEN i.user_id IS NOT NULL THEN
        (WITH RECURSIVE ${principalsReached("ARRAY[i.user_id, $8]", "$12::int")}
          SELECT coalesce(array_agg(DISTINCT principal), '{}') FROM reach)
      END AS principals
    ${READS}
    ORDER BY i.n`,
};

/** Reads per statement at most. */
const MAX_BURST = 64;

interface Read {
  readonly scope: Scope;
  readonly id: string;
  readonly query: RecordAclQuery;
}

interface Row extends Record<string, unknown> {
  last_modified: string | null;
  data: JsonObject | null;
  acl: [string, string][] | null;
  inherited: [string, string, string][] | null;
  principals: string[] | null;
  /** GET_WITH_ACL only. */
  deeper?: boolean;
}

export class PostgresRecordWithAclReader {
  private readonly bursts = new StatementBursts<Read, RecordWithAcl>((reads) => this.read(reads), { maxInFlight: 1, maxBurst: MAX_BURST });

  /** The database belongs to whoever opened it (PostgresDatabases), which closes it. */
  constructor(
    private readonly database: PostgresDatabase,
    private readonly groupMaxDepth = DEFAULT_GROUP_MAX_DEPTH,
  ) {}

  async getWithAcl(scope: Scope, id: string, query: RecordAclQuery): Promise<RecordWithAcl> {
    const read = { scope, id, query };
    if (!this.database.inTransaction()) return this.bursts.submit(read);
    const [alone] = await this.read([read]);
    if (!alone) throw new Error("a record read answered no row");
    return alone;
  }

  /**
   * The reads in one statement; those whose caller's principals lead further read again, whole,
   * through the walk: record, ACL and principals always come from one snapshot.
   */
  private async read(reads: readonly Read[]): Promise<RecordWithAcl[]> {
    const rows = await this.database.read<Row>("storage", GET_WITH_ACL, valuesOf(reads));
    const deeper = reads.filter((_, i) => mustWalk(rows[i]?.deeper, this.groupMaxDepth));
    const walked =
      deeper.length === 0 ? [] : await this.database.read<Row>("storage", GET_WITH_ACL_NESTED, [...valuesOf(deeper), this.groupMaxDepth]);
    let next = 0;
    return rows.map((row, i) => {
      const read = reads[i];
      const used = read === deeper[next] ? (walked[next++] ?? row) : row;
      const id = read?.id ?? "";
      const record =
        used.last_modified !== null && used.data ? { id, lastModified: Number(used.last_modified), data: used.data } : undefined;
      const principals = used.principals ? new Set(used.principals) : undefined;
      const asked = read?.query.inherited;
      const base = { record, acl: aclOf(used.acl ?? []), principals };
      return asked === undefined || asked.length === 0 ? base : { ...base, inherited: inheritedOf(asked, used.inherited ?? []) };
    });
  }
}

/** $1–$11 of GET_WITH_ACL (and GET_WITH_ACL_NESTED) for these reads. */
function valuesOf(reads: readonly Read[]): unknown[] {
  const numbers: number[] = [];
  const permissions: string[] = [];
  const others: [number[], string[], string[]] = [[], [], []];
  reads.forEach(({ query }, i) => {
    for (const permission of query.permissions) {
      numbers.push(i + 1);
      permissions.push(permission);
    }
    for (const grant of query.inherited ?? []) {
      others[0].push(i + 1);
      others[1].push(grant.objectId);
      others[2].push(grant.permission);
    }
  });
  return [
    reads.map((read) => read.scope.collection),
    reads.map((read) => read.scope.parentId),
    reads.map((read) => read.id),
    reads.map((read) => read.query.objectId),
    reads.map((read) => read.query.principalsOf ?? null),
    numbers,
    permissions,
    AUTHENTICATED,
    ...others,
  ];
}

/** The ACLs of the objects asked (every permission asked a key), from [object id, permission, principal] triples. */
function inheritedOf(asked: readonly BoundPermission[], entries: readonly (readonly [string, string, string])[]): InheritedAcls {
  const acls = new Map<string, ObjectPermissions>();
  for (const { objectId, permission } of asked) {
    const acl = acls.get(objectId) ?? {};
    acl[permission] = new Set();
    acls.set(objectId, acl);
  }
  for (const [objectId, permission, principal] of entries) acls.get(objectId)?.[permission]?.add(principal);
  return acls;
}

function aclOf(entries: readonly (readonly [string, string])[]): ObjectPermissions {
  const acl: ObjectPermissions = {};
  for (const [permission, principal] of entries) (acl[permission] ??= new Set()).add(principal);
  return acl;
}
