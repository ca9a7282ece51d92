/**
 * RecordWithAclReader on PostgreSQL: the record, its ACEs and the user's extra principals as one
 * statement over the storage and permission tables, which must be in the same database (the
 * composition root binds it only then). Each part is the same lookup, on the same index, as
 * RecordStore.get, PermissionStore.objectPermissions and userPrincipals.
 */
import type { RecordAclQuery, RecordWithAcl, RecordWithAclReader } from "../../application/ports/record-with-acl-reader.js";
import type { ObjectPermissions } from "../../application/ports/permission-store.js";
import type { Scope } from "../../application/ports/record-store.js";
import type { JsonObject } from "../../domain/json.js";
import { AUTHENTICATED } from "../../domain/principals.js";
import type { PostgresDatabase, Statement } from "./postgres-database.js";

// One row always (a missing record is a LEFT JOIN miss); the ACL as [permission, principal] pairs.
// $6 NULL skips the principals (the subquery's filter is constant false then).
const GET_WITH_ACL: Statement = {
  name: "tessera_records_get_with_acl",
  text: `SELECT r.last_modified, r.data,
      (SELECT json_agg(json_build_array(a.permission, a.principal)) FROM access_control_entries a
        WHERE a.object_id = $4 AND a.permission = ANY($5::text[])) AS acl,
      CASE WHEN $6::text IS NOT NULL THEN
        (SELECT coalesce(array_agg(DISTINCT u.principal), '{}') FROM user_principals u WHERE u.user_id = $6 OR u.user_id = $7)
      END AS principals
    FROM (VALUES (1)) AS one (n)
    LEFT JOIN records r ON r.collection = $1 AND r.parent_id = $2 AND r.id = $3 AND NOT r.deleted`,
};

interface Row extends Record<string, unknown> {
  last_modified: string | null;
  data: JsonObject | null;
  acl: [string, string][] | null;
  principals: string[] | null;
}

export class PostgresRecordWithAclReader implements RecordWithAclReader {
  /** The database belongs to whoever opened it (PostgresDatabases), which closes it. */
  constructor(private readonly database: PostgresDatabase) {}

  async getWithAcl(scope: Scope, id: string, query: RecordAclQuery): Promise<RecordWithAcl> {
    const values = [
      scope.collection,
      scope.parentId,
      id,
      query.objectId,
      [...query.permissions],
      query.principalsOf ?? null,
      AUTHENTICATED,
    ];
    const [row] = await this.database.query<Row>("storage", GET_WITH_ACL, values);
    const record = row?.last_modified != null && row.data ? { id, lastModified: Number(row.last_modified), data: row.data } : undefined;
    return { record, acl: aclOf(row?.acl ?? []), principals: row?.principals ? new Set(row.principals) : undefined };
  }
}

function aclOf(entries: readonly (readonly [string, string])[]): ObjectPermissions {
  const acl: ObjectPermissions = {};
  for (const [permission, principal] of entries) (acl[permission] ??= new Set()).add(principal);
  return acl;
}
