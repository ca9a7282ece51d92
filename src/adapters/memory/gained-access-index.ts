/**
 * The memory store's record of gained read access (a group given to a holder, docs/api.md
 * "Sync"): per principal, the records it was given and when. Looked up by the caller's
 * principals, so a `_since` listing costs what those principals gained, not the scope's size.
 */
export class GainedAccessIndex {
  private readonly byPrincipal = new Map<string, Map<string, number>>();

  record(id: string, principal: string, lastModified: number): void {
    let gained = this.byPrincipal.get(principal);
    if (!gained) {
      gained = new Map();
      this.byPrincipal.set(principal, gained);
    }
    gained.set(id, lastModified);
  }

  /** The ids one of `principals` gained at a timestamp `holds` keeps (the listing's bounds). */
  idsGained(principals: readonly string[], holds: (lastModified: number) => boolean): Set<string> {
    const found = new Set<string>();
    for (const principal of new Set(principals))
      for (const [id, lastModified] of this.byPrincipal.get(principal) ?? []) if (holds(lastModified)) found.add(id);
    return found;
  }

  /** Removes entries strictly older than `before` (all when undefined); returns how many. */
  purge(before: number | undefined): number {
    let purged = 0;
    for (const [principal, gained] of this.byPrincipal) {
      for (const [id, lastModified] of gained) {
        if (before !== undefined && lastModified >= before) continue;
        gained.delete(id);
        purged += 1;
      }
      if (gained.size === 0) this.byPrincipal.delete(principal);
    }
    return purged;
  }
}
