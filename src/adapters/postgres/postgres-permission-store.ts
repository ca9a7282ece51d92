/**
 * PermissionStore on PostgreSQL. Principal lookups are `principal = ANY($n)` served by the
 * (principal, permission, object_id) index — never a VALUES join, which the planner answers with
 * a scan of every ACE (what makes Kinto slow).
 */
import { walkMembersPage } from "../../application/access/member-walk.js";
import {
  DEFAULT_GROUP_MAX_DEPTH,
  type Expandable,
  type GroupMember,
  type ObjectPermissions,
  type PermissionStore,
} from "../../application/ports/permission-store.js";
import type { PrincipalsAndCheck, PrincipalsWithCheck } from "../../application/ports/principals-with-check.js";
import { boundPairs, type BoundPermissionsFn } from "../../domain/permissions.js";
import { AUTHENTICATED } from "../../domain/principals.js";
import { compareCodePoints } from "../../application/nested-principals.js";
import { prefixRange, wildcardToLike } from "./like-pattern.js";
import { holdersReached, linkedFurther, mustWalk, principalsHeld, principalsReached } from "./principal-closure-sql.js";
import type { PostgresDatabase } from "./postgres-database.js";

const ADD_USER_PRINCIPAL = {
  name: "tessera_perm_add_user_principal",
  text: "INSERT INTO user_principals (user_id, principal) VALUES ($1, $2) ON CONFLICT DO NOTHING",
};
const REMOVE_USER_PRINCIPAL = {
  name: "tessera_perm_remove_user_principal",
  text: "DELETE FROM user_principals WHERE user_id = $1 AND principal = $2",
};
const REMOVE_PRINCIPAL = { name: "tessera_perm_remove_principal", text: "DELETE FROM user_principals WHERE principal = $1" };
// $1: the user and system.Authenticated; $2: group_max_depth; $3: the principals held from elsewhere.
const USER_PRINCIPALS = {
  name: "tessera_perm_user_principals",
  text: `WITH RECURSIVE ${principalsReached("$1::text[]", "$2::int", "$3::text[]")} SELECT DISTINCT principal FROM reach`,
};
// Each id by its key prefix, as MANY_OBJECT_ACLS (a flat `= ANY` let a generic plan scan the table).
const DIRECT_PRINCIPALS = {
  name: "tessera_perm_direct_principals",
  text: `SELECT i.id AS user_id, d.principal FROM unnest($1::text[]) AS i (id)
         CROSS JOIN LATERAL (SELECT u.principal FROM user_principals u WHERE u.user_id = i.id OFFSET 0) AS d`,
};
const MEMBERS_OF = {
  name: "tessera_perm_members_of",
  text: `WITH RECURSIVE ${holdersReached("$1::text", "$2::int")} SELECT DISTINCT id FROM held WHERE id <> $1`,
};
/*
 * membersOf of each of $1 in one walk (the pairs (id, via) kept apart, as holdersReached does for
 * one), then one page: ids after $3 in "C" order (code points), at most $4 rows sent. The walk
 * itself reads every member within the depth bound: user_principals holds no order to resume from.
 */
/*
 * subgroupsOf: the holders of each id that are held themselves, by a leapfrog of two walks in id
 * order (idx_user_principals_holders): the id's holders, and every principal that has a holder.
 * Each step jumps one walk to the other's position; a hit is a holder that is a group. The steps
 * follow how the two interleave, never the number of holders: users and groups named apart
 * (`account:…`, `group:…`) meet in a few steps.
 */
const SUBGROUPS = {
  name: "tessera_perm_subgroups",
  text: `WITH RECURSIVE leap (node, candidate, found) AS (
      SELECT s.id, (SELECT min(u.user_id) FROM user_principals u WHERE u.principal = s.id), NULL::text COLLATE "C"
      FROM unnest($1::text[]) AS s (id)
      UNION ALL
      SELECT l.node,
        CASE WHEN g.least = l.candidate
          THEN (SELECT min(u.user_id) FROM user_principals u WHERE u.principal = l.node AND u.user_id > l.candidate)
          ELSE (SELECT min(u.user_id) FROM user_principals u WHERE u.principal = l.node AND u.user_id >= g.least) END,
        CASE WHEN g.least = l.candidate THEN l.candidate END
      FROM leap l CROSS JOIN LATERAL (SELECT min(p.principal) AS least FROM user_principals p WHERE p.principal >= l.candidate) AS g
      WHERE l.candidate IS NOT NULL)
    SELECT node, found FROM leap WHERE found IS NOT NULL`,
};
/*
 * holdersPage: at most $2 holders of each id after the cursor ($3), merged. Per id, one range of
 * idx_user_principals_holders read in order and cut at $2 (the pool's generic plans make it an
 * index-only scan whatever the statistics; members-page-cost.test.ts holds the rows read).
 */
const holdersPage = (after: boolean) => ({
  name: after ? "tessera_perm_holders_page_after" : "tessera_perm_holders_page",
  text: `SELECT h.user_id AS id, array_agg(s.id) AS through
    FROM unnest($1::text[]) AS s (id)
    CROSS JOIN LATERAL (
      SELECT u.user_id FROM user_principals u
      WHERE u.principal = s.id ${after ? "AND u.user_id > $3::text" : ""}
      ORDER BY u.user_id LIMIT $2) AS h
    GROUP BY h.user_id ORDER BY h.user_id LIMIT $2`,
});
const HOLDERS_PAGE = holdersPage(false);
const HOLDERS_PAGE_AFTER = holdersPage(true);
/*
 * principalParents: the links walked down from $1 within the bound ($2) in one statement; each
 * principal keeps the row of its lowest level, the least parent there ("C" order, code points).
 */
const PRINCIPAL_PARENTS = {
  name: "tessera_perm_principal_parents",
  text: `WITH RECURSIVE walk (parent, principal, depth) AS (
      SELECT s.id COLLATE "C", d.principal, 1 FROM unnest($1::text[]) AS s (id)
        CROSS JOIN LATERAL (SELECT u.principal FROM user_principals u WHERE u.user_id = s.id OFFSET 0) AS d
      UNION
      SELECT w.principal, d.principal, w.depth + 1 FROM walk w
        CROSS JOIN LATERAL (SELECT u.principal FROM user_principals u WHERE u.user_id = w.principal OFFSET 0) AS d
      WHERE w.depth < $2)
    SELECT DISTINCT ON (principal) principal, parent FROM walk WHERE principal <> ALL($1::text[])
    ORDER BY principal, depth, parent`,
};
const ADD_ACE = {
  name: "tessera_perm_add_ace",
  text: "INSERT INTO access_control_entries (object_id, permission, principal) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
};
const REMOVE_ACE = {
  name: "tessera_perm_remove_ace",
  text: "DELETE FROM access_control_entries WHERE object_id = $1 AND permission = $2 AND principal = $3",
};
const ACE_PRINCIPALS = {
  name: "tessera_perm_ace_principals",
  text: "SELECT principal FROM access_control_entries WHERE object_id = $1 AND permission = $2",
};
const OBJECT_ACL = {
  name: "tessera_perm_object_acl",
  text: "SELECT permission, principal FROM access_control_entries WHERE object_id = $1",
};
const OBJECT_ACL_OF = {
  name: "tessera_perm_object_acl_of",
  text: "SELECT permission, principal FROM access_control_entries WHERE object_id = $1 AND permission = ANY($2::text[])",
};
/*
 * Statements given several objects or pairs look each one up by its key prefix in a LATERAL
 * subquery that PostgreSQL cannot flatten (OFFSET 0, LIMIT 1): the only choice left per key is
 * the primary key or a scan, and the key wins at any table size. A flat `object_id = ANY($1)` (or
 * a join) let a generic plan made while the table held a few hundred rows settle on scanning it,
 * and keep scanning it as it grew (test/adapters/postgres-plans-fresh.test.ts).
 */
const MANY_OBJECT_ACLS = {
  name: "tessera_perm_many_object_acls",
  text: `SELECT a.object_id, a.permission, a.principal FROM unnest($1::text[]) AS o(object_id)
         CROSS JOIN LATERAL (SELECT e.object_id, e.permission, e.principal FROM access_control_entries e
           WHERE e.object_id = o.object_id AND e.permission = ANY($2::text[]) OFFSET 0) AS a`,
};
// Exact (object, permission) pairs as two parallel arrays: bound parameters, no VALUES list.
const AUTHORIZED_PRINCIPALS = {
  name: "tessera_perm_authorized_principals",
  text: `SELECT DISTINCT a.principal FROM unnest($1::text[], $2::text[]) AS b(object_id, permission)
         CROSS JOIN LATERAL (SELECT e.principal FROM access_control_entries e
           WHERE e.object_id = b.object_id AND e.permission = b.permission OFFSET 0) AS a`,
};
const CHECK = {
  name: "tessera_perm_check",
  text: `SELECT EXISTS (SELECT 1 FROM unnest($1::text[], $2::text[]) AS b(object_id, permission)
         CROSS JOIN LATERAL (SELECT 1 FROM access_control_entries e
           WHERE e.object_id = b.object_id AND e.permission = b.permission AND e.principal = ANY($3::text[]) LIMIT 1) AS a) AS allowed`,
};
// The check of CHECK, over the known principals ($3) and those of `extra`.
const CHECK_WITH_EXTRA = `EXISTS (SELECT 1 FROM unnest($1::text[], $2::text[]) AS b(object_id, permission)
        CROSS JOIN LATERAL (SELECT 1 FROM access_control_entries e
          WHERE e.object_id = b.object_id AND e.permission = b.permission
            AND e.principal = ANY($3::text[] || ARRAY(SELECT principal FROM extra)) LIMIT 1) AS a) AS allowed`;
// CHECK with the user's principals stored at depth 1 ($4: the user, $5: system.Authenticated) added
// to the known ones ($3), which it also returns, and whether they lead further (the fast path).
const PRINCIPALS_AND_CHECK = {
  name: "tessera_perm_principals_and_check",
  text: `WITH extra AS (SELECT DISTINCT principal FROM (${principalsHeld("$4", "$5")}) AS held)
    SELECT ARRAY(SELECT principal FROM extra) AS principals, ${CHECK_WITH_EXTRA}, ${linkedFurther("ARRAY(SELECT principal FROM extra)")} AS deeper`,
};
// PRINCIPALS_AND_CHECK through nested groups ($4: the user and system.Authenticated, $5:
// group_max_depth), when the principals stored for them lead further.
const PRINCIPALS_AND_CHECK_NESTED = {
  name: "tessera_perm_principals_and_check_nested",
  text: `WITH RECURSIVE ${principalsReached("$4::text[]", "$5::int")}, extra AS (SELECT DISTINCT principal FROM reach)
    SELECT ARRAY(SELECT principal FROM extra) AS principals, ${CHECK_WITH_EXTRA}`,
};
type CheckRow = { principals: string[]; allowed: boolean; deeper?: boolean };
// Deletes only the pairs that go away and inserts only new ones, so the two parts never touch one row.
const REPLACE = {
  name: "tessera_perm_replace",
  text: `WITH given AS (SELECT DISTINCT * FROM unnest($3::text[], $4::text[]) AS g(permission, principal)),
         removed AS (
           DELETE FROM access_control_entries a WHERE a.object_id = $1 AND a.permission = ANY($2::text[])
             AND NOT EXISTS (SELECT 1 FROM given g WHERE g.permission = a.permission AND g.principal = a.principal))
         INSERT INTO access_control_entries (object_id, permission, principal)
         SELECT $1, permission, principal FROM given ON CONFLICT DO NOTHING`,
};

/** Also PrincipalsWithCheck: users' principals live beside the ACEs, in the same database. */
export class PostgresPermissionStore implements PermissionStore, PrincipalsWithCheck {
  /** The database belongs to whoever opened it (PostgresDatabases), which closes it. */
  constructor(
    private readonly database: PostgresDatabase,
    private readonly groupMaxDepth = DEFAULT_GROUP_MAX_DEPTH,
  ) {}

  async initializeSchema(): Promise<void> {
    await this.database.migrate("permission");
  }

  async flush(): Promise<void> {
    await this.run("DELETE FROM access_control_entries");
    await this.run("DELETE FROM user_principals");
  }

  async addUserPrincipal(userId: string, principal: string): Promise<void> {
    await this.run(ADD_USER_PRINCIPAL, [userId, principal]);
  }

  async removeUserPrincipal(userId: string, principal: string): Promise<void> {
    await this.run(REMOVE_USER_PRINCIPAL, [userId, principal]);
  }

  async removePrincipal(principal: string): Promise<void> {
    await this.run(REMOVE_PRINCIPAL, [principal]);
  }

  async userPrincipals(userId: string, held: readonly string[] = []): Promise<Set<string>> {
    return this.principalSet(USER_PRINCIPALS, [[userId, AUTHENTICATED], this.groupMaxDepth, [...held]]);
  }

  async directPrincipals(ids: readonly string[]): Promise<Map<string, Set<string>>> {
    const result = new Map<string, Set<string>>(ids.map((id) => [id, new Set<string>()]));
    if (result.size === 0) return result;
    const rows = await this.read<{ user_id: string; principal: string }>(DIRECT_PRINCIPALS, [[...result.keys()]]);
    for (const { user_id, principal } of rows) result.get(user_id)?.add(principal);
    return result;
  }

  async membersOf(principal: string): Promise<Set<string>> {
    const rows = await this.read<{ id: string }>(MEMBERS_OF, [principal, this.groupMaxDepth]);
    return new Set(rows.map((row) => row.id));
  }

  async principalParents(ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.read<{ principal: string; parent: string }>(PRINCIPAL_PARENTS, [[...new Set(ids)], this.groupMaxDepth]);
    return new Map(rows.map((row) => [row.principal, row.parent]));
  }

  /** At most `group_max_depth` round trips: one subgroupsOf per level of nesting, one holdersPage. */
  async membersPage(
    principals: readonly string[],
    after: string | undefined,
    limit: number,
    expandable?: Expandable,
  ): Promise<GroupMember[]> {
    return walkMembersPage(this, principals, after, limit, this.groupMaxDepth, expandable);
  }

  async subgroupsOf(ids: readonly string[]): Promise<Map<string, Set<string>>> {
    const result = new Map<string, Set<string>>(ids.map((id) => [id, new Set<string>()]));
    if (result.size === 0) return result;
    const rows = await this.read<{ node: string; found: string }>(SUBGROUPS, [[...result.keys()]]);
    for (const { node, found } of rows) result.get(node)?.add(found);
    return result;
  }

  async holdersPage(ids: readonly string[], after: string | undefined, limit: number): Promise<GroupMember[]> {
    if (ids.length === 0 || limit <= 0) return [];
    const unique = [...new Set(ids)];
    const rows =
      after === undefined
        ? await this.read<{ id: string; through: string[] }>(HOLDERS_PAGE, [unique, limit])
        : await this.read<{ id: string; through: string[] }>(HOLDERS_PAGE_AFTER, [unique, limit, after]);
    return rows.map((row) => ({ id: row.id, through: [...row.through].sort(compareCodePoints) }));
  }

  async addPrincipalToAce(objectId: string, permission: string, principal: string): Promise<void> {
    await this.run(ADD_ACE, [objectId, permission, principal]);
  }

  async removePrincipalFromAce(objectId: string, permission: string, principal: string): Promise<void> {
    await this.run(REMOVE_ACE, [objectId, permission, principal]);
  }

  objectPermissionPrincipals(objectId: string, permission: string): Promise<Set<string>> {
    return this.principalSet(ACE_PRINCIPALS, [objectId, permission]);
  }

  async principalsAccessibleObjects(
    principals: readonly string[],
    permission: string,
    objectIdMatch?: string,
    getBoundPermissions?: BoundPermissionsFn,
  ): Promise<Set<string>> {
    if (principals.length === 0) return new Set();
    const pattern = objectIdMatch ?? "*";
    const pairs = getBoundPermissions ? getBoundPermissions(pattern, permission) : [{ objectId: pattern, permission }];
    if (pairs.length === 0) return new Set();
    // One branch per pair; a literal prefix before the first `*` becomes an index range on object_id.
    const values: unknown[] = [[...new Set(principals)]];
    const branches = pairs.map((pair) => {
      values.push(pair.permission);
      const conditions = [`a.permission = $${values.length}`];
      const star = pair.objectId.indexOf("*");
      if (star < 0) {
        values.push(pair.objectId);
        conditions.push(`a.object_id = $${values.length}`);
      } else {
        const { lower, upper } = prefixRange(pair.objectId.slice(0, star));
        if (lower !== "") {
          values.push(lower);
          conditions.push(`a.object_id >= $${values.length}`);
          if (upper !== undefined) {
            values.push(upper);
            conditions.push(`a.object_id < $${values.length}`);
          }
        }
        if (pair.objectId !== `${pair.objectId.slice(0, star)}*`) {
          values.push(wildcardToLike(pair.objectId));
          conditions.push(`a.object_id LIKE $${values.length}`);
        }
      }
      return `(${conditions.join(" AND ")})`;
    });
    const text = `SELECT DISTINCT a.object_id FROM access_control_entries a WHERE a.principal = ANY($1::text[]) AND (${branches.join(" OR ")})`;
    const rows = await this.read<{ object_id: string }>(text, values);
    return new Set(rows.map((row) => row.object_id));
  }

  async objectPermissionAuthorizedPrincipals(
    objectId: string,
    permission: string,
    getBoundPermissions?: BoundPermissionsFn,
  ): Promise<Set<string>> {
    const pairs = boundPairs(objectId, permission, getBoundPermissions);
    if (pairs.length === 0) return new Set();
    return this.principalSet(AUTHORIZED_PRINCIPALS, [pairs.map((p) => p.objectId), pairs.map((p) => p.permission)]);
  }

  async checkPermission(
    objectId: string,
    permission: string,
    principals: readonly string[],
    getBoundPermissions?: BoundPermissionsFn,
  ): Promise<boolean> {
    const pairs = boundPairs(objectId, permission, getBoundPermissions);
    if (pairs.length === 0 || principals.length === 0) return false;
    const rows = await this.read<{ allowed: boolean }>(CHECK, [
      pairs.map((p) => p.objectId),
      pairs.map((p) => p.permission),
      [...principals],
    ]);
    return rows[0]?.allowed === true;
  }

  async principalsAndCheck(
    userId: string,
    known: readonly string[],
    objectId: string,
    permission: string,
    getBoundPermissions?: BoundPermissionsFn,
  ): Promise<PrincipalsAndCheck> {
    const pairs = boundPairs(objectId, permission, getBoundPermissions);
    const checked = [pairs.map((p) => p.objectId), pairs.map((p) => p.permission), [...known]];
    let [row] = await this.read<CheckRow>(PRINCIPALS_AND_CHECK, [...checked, userId, AUTHENTICATED]);
    if (mustWalk(row?.deeper, this.groupMaxDepth))
      [row] = await this.read<CheckRow>(PRINCIPALS_AND_CHECK_NESTED, [...checked, [userId, AUTHENTICATED], this.groupMaxDepth]);
    return { principals: new Set(row?.principals ?? []), allowed: row?.allowed === true };
  }

  async objectPermissions(objectId: string, permissions?: readonly string[]): Promise<ObjectPermissions> {
    if (permissions?.length === 0) return {};
    const rows = permissions
      ? await this.read<{ permission: string; principal: string }>(OBJECT_ACL_OF, [objectId, [...permissions]])
      : await this.read<{ permission: string; principal: string }>(OBJECT_ACL, [objectId]);
    const acl: ObjectPermissions = {};
    for (const { permission, principal } of rows) (acl[permission] ??= new Set()).add(principal);
    return acl;
  }

  async manyObjectPermissions(objectIds: readonly string[], permissions: readonly string[]): Promise<Map<string, ObjectPermissions>> {
    const result = new Map<string, ObjectPermissions>(objectIds.map((id) => [id, {}]));
    if (result.size === 0 || permissions.length === 0) return result;
    const rows = await this.read<{ object_id: string; permission: string; principal: string }>(MANY_OBJECT_ACLS, [
      [...result.keys()],
      [...new Set(permissions)],
    ]);
    for (const { object_id, permission, principal } of rows) {
      const acl = result.get(object_id);
      if (acl) (acl[permission] ??= new Set()).add(principal);
    }
    return result;
  }

  async replaceObjectPermissions(objectId: string, permissions: Readonly<Record<string, Iterable<string>>>): Promise<void> {
    const names = Object.keys(permissions);
    if (names.length === 0) return;
    const givenPermissions: string[] = [];
    const givenPrincipals: string[] = [];
    for (const [permission, principals] of Object.entries(permissions)) {
      for (const principal of new Set(principals)) {
        givenPermissions.push(permission);
        givenPrincipals.push(principal);
      }
    }
    await this.run(REPLACE, [objectId, names, givenPermissions, givenPrincipals]);
  }

  async deleteObjectPermissions(...objectIds: string[]): Promise<void> {
    if (objectIds.length === 0) return;
    const exact = objectIds.filter((id) => !id.includes("*"));
    const patterns = objectIds.filter((id) => id.includes("*"));
    const values: unknown[] = [exact];
    const branches = ["object_id = ANY($1::text[])"];
    for (const pattern of patterns) {
      const prefix = pattern.slice(0, pattern.indexOf("*"));
      const { lower, upper } = prefixRange(prefix);
      const conditions: string[] = [];
      if (lower !== "") {
        values.push(lower);
        conditions.push(`object_id >= $${values.length}`);
        if (upper !== undefined) {
          values.push(upper);
          conditions.push(`object_id < $${values.length}`);
        }
      }
      values.push(wildcardToLike(pattern));
      conditions.push(`object_id LIKE $${values.length}`);
      branches.push(`(${conditions.join(" AND ")})`);
    }
    await this.run(`DELETE FROM access_control_entries WHERE ${branches.join(" OR ")}`, values);
  }

  heartbeat(): Promise<boolean> {
    return this.database.heartbeat("permission");
  }

  /** Nothing of its own to close: the shared database is closed by its owner (PostgresDatabases). */
  close(): Promise<void> {
    return Promise.resolve();
  }

  private async principalSet(statement: { name: string; text: string }, values: unknown[]): Promise<Set<string>> {
    const rows = await this.read<{ principal: string }>(statement, values);
    return new Set(rows.map((row) => row.principal));
  }

  private run<R extends Record<string, unknown>>(statement: { name: string; text: string } | string, values: unknown[] = []): Promise<R[]> {
    return this.database.query<R>("permission", statement, values);
  }

  /** A plain SELECT: a replica that has replayed every acknowledged write may answer it (PostgresDatabase.read). */
  private read<R extends Record<string, unknown>>(
    statement: { name: string; text: string } | string,
    values: unknown[] = [],
  ): Promise<R[]> {
    return this.database.read<R>("permission", statement, values);
  }
}
