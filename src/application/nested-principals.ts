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
