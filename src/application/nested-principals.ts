/**
 * The walk through nested groups that every permission backend does, level by level: the ids
 * reached from `seeds` within `maxDepth` levels of links (the seeds' own links being level 1).
 * Each id is expanded once, so a cycle ends there. `linksOf` reads one level's links at once
 * (one pipeline, one map lookup): the backend's round trips are at most `maxDepth`.
 */
export async function reachedWithin(
  seeds: readonly string[],
  maxDepth: number,
  linksOf: (ids: readonly string[]) => Promise<Iterable<Iterable<string>>>,
): Promise<Set<string>> {
  const reached = new Set<string>();
  const expanded = new Set<string>(seeds);
  let frontier = [...expanded];
  for (let level = 1; level <= maxDepth && frontier.length > 0; level += 1) {
    const next: string[] = [];
    for (const links of await linksOf(frontier)) {
      for (const id of links) {
        reached.add(id);
        if (!expanded.has(id)) {
          expanded.add(id);
          next.push(id);
        }
      }
    }
    frontier = next;
  }
  return reached;
}
