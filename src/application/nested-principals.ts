/**
 * The walk through nested groups that every permission backend does, level by level: the ids
 * reached from `seeds` within `maxDepth` levels of links (the seeds' own links being level 1).
 * Each id is expanded once, so a cycle ends there. `linksOf` reads one level's links at once
 * (one pipeline, one map lookup): the backend's round trips are at most `maxDepth`.
 * `held`: ids reached at level 1 whatever the links say (a token's groups).
 */
export async function reachedWithin(
  seeds: readonly string[],
  maxDepth: number,
  linksOf: (ids: readonly string[]) => Promise<Iterable<Iterable<string>>>,
  held: readonly string[] = [],
): Promise<Set<string>> {
  const reached = new Set<string>();
  const expanded = new Set<string>(seeds);
  let frontier = [...expanded];
  let next: string[] = [];
  const reach = (id: string): void => {
    reached.add(id);
    if (!expanded.has(id)) {
      expanded.add(id);
      next.push(id);
    }
  };
  for (let level = 1; level <= maxDepth && frontier.length > 0; level += 1) {
    next = [];
    if (level === 1) held.forEach(reach);
    if (frontier.length > 0) for (const links of await linksOf(frontier)) for (const id of links) reach(id);
    frontier = next;
  }
  return reached;
}

/**
 * PermissionStore.principalParents walked level by level (`linksOf` reads one level's links at
 * once, aligned with the ids asked): each level's ids in code point order, so that the first
 * parent a principal meets is the least of its level.
 */
export async function shortestParents(
  seeds: readonly string[],
  maxDepth: number,
  linksOf: (ids: readonly string[]) => Promise<Iterable<Iterable<string>>>,
): Promise<Map<string, string>> {
  const parents = new Map<string, string>();
  const seen = new Set<string>(seeds);
  let frontier = [...seen].sort(compareCodePoints);
  for (let level = 1; level <= maxDepth && frontier.length > 0; level += 1) {
    const next: string[] = [];
    let index = 0;
    for (const links of await linksOf(frontier)) {
      const from = frontier[index++] ?? "";
      for (const principal of links) {
        if (seen.has(principal)) continue;
        seen.add(principal);
        parents.set(principal, from);
        next.push(principal);
      }
    }
    frontier = next.sort(compareCodePoints);
  }
  return parents;
}

/** Orders strings by code point, as UTF-8 bytes (PostgreSQL's "C" collation) do; `<` orders UTF-16 units. */
export function compareCodePoints(a: string, b: string): number {
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    const x = a.codePointAt(i) ?? 0;
    const y = b.codePointAt(j) ?? 0;
    if (x !== y) return x < y ? -1 : 1;
    i += x > 0xffff ? 2 : 1;
    j += y > 0xffff ? 2 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}
