/**
 * The one SQL expansion of nested groups (`group_max_depth`), for every statement that reads a
 * user's principals (userPrincipals, principalsAndCheck, the record read with its ACL) and for
 * membersOf, which walks the same links the other way.
 *
 * Each step looks its ids up in a LATERAL subquery that PostgreSQL cannot flatten (OFFSET 0):
 * the only plan left per id is an index lookup (the primary key (user_id, principal) going down,
 * idx_user_principals_holders going up), whatever the statistics say; a plain join let a plan
 * made on never-analyzed tables hash the whole table at each step. UNION over (id, depth) and
 * the depth bound end every walk, cycles included.
 */

/**
 * `reach (principal, depth)`: every principal stored for one of the ids of `seeds` (a text[]
 * expression) at depth 1, then theirs at depth 2, up to the bound (`maxDepth`, an int expression).
 * `held` (a text[] expression): principals at depth 1 whatever is stored (a token's groups).
 */
export function principalsReached(seeds: string, maxDepth: string, held?: string): string {
  return `reach (principal, depth) AS (
      SELECT d.principal, 1 FROM unnest(${seeds}) AS s (id)
        CROSS JOIN LATERAL (SELECT u.principal FROM user_principals u WHERE u.user_id = s.id OFFSET 0) AS d
      ${held === undefined ? "" : `UNION SELECT h.id, 1 FROM unnest(${held}) AS h (id)`}
      UNION
      SELECT d.principal, r.depth + 1 FROM reach r
        CROSS JOIN LATERAL (SELECT u.principal FROM user_principals u WHERE u.user_id = r.principal OFFSET 0) AS d
      WHERE r.depth < ${maxDepth})`;
}

/** `held (id, depth)`: every id holding `principal` (a text expression) directly at depth 1, then their holders, up to the bound. */
export function holdersReached(principal: string, maxDepth: string): string {
  return `held (id, depth) AS (
      SELECT h.user_id, 1 FROM (SELECT u.user_id FROM user_principals u WHERE u.principal = ${principal} OFFSET 0) AS h
      UNION
      SELECT h.user_id, r.depth + 1 FROM held r
        CROSS JOIN LATERAL (SELECT u.user_id FROM user_principals u WHERE u.principal = r.id OFFSET 0) AS h
      WHERE r.depth < ${maxDepth})`;
}

/**
 * The fast path of a walk down (docs/benchmarks.md, W1/W3): most callers hold no group that is
 * itself in a group. It was made when PostgreSQL planned the recursive CTE at every call, which
 * cost a read more than the lookups themselves; connections now keep generic plans, and the flat
 * statement still spares those callers the walk's execution.
 * A statement reads the principals stored for a user and one other id (system.Authenticated; depth
 * 1: two lookups of the primary key; an `unnest` of the two cost three times as much to plan) with
 * `linkedFurther` over them; only when that says a walk would find more does the adapter send the
 * statement again with the walk (`principalsReached`) in its place, so what it answers still
 * comes from one snapshot.
 */
export function principalsHeld(user: string, other: string): string {
  return `SELECT u.principal FROM user_principals u WHERE u.user_id = ${user} OR u.user_id = ${other}`;
}

/** TRUE when one of `principals` (a text[] expression) holds principals of its own: a probe of the primary key each. */
export function linkedFurther(principals: string): string {
  return `EXISTS (SELECT 1 FROM unnest(${principals}) AS f (principal)
        CROSS JOIN LATERAL (SELECT 1 FROM user_principals u WHERE u.user_id = f.principal OFFSET 0) AS l)`;
}

/** Whether a walk bounded by `maxDepth` would reach more than the depth-1 principals read with `linkedFurther` (`deeper`). */
export function mustWalk(deeper: boolean | null | undefined, maxDepth: number): boolean {
  return deeper === true && maxDepth > 1;
}
