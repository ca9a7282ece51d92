/**
 * The memory store's record of lost read access (docs/adr/0011): per principal, the records it
 * could read once and when it lost them. Looked up by the caller's principals, so a listing costs
 * what those principals lost, not the size of the scope.
 */
import type { Tombstone } from "../../domain/records.js";

export class LostAccessIndex {
  private readonly byPrincipal = new Map<string, Map<string, number>>();

  record(id: string, principals: Iterable<string>, lastModified: number): void {
    for (const principal of principals) {
      let lost = this.byPrincipal.get(principal);
      if (!lost) {
        lost = new Map();
        this.byPrincipal.set(principal, lost);
      }
      lost.set(id, lastModified);
    }
  }

  /** One tombstone per record lost by one of `principals` and not `readable`, at its newest loss. */
  tombstonesFor(principals: readonly string[], readable: ReadonlySet<string>): Tombstone[] {
    const newest = new Map<string, number>();
    for (const principal of new Set(principals)) {
      for (const [id, lastModified] of this.byPrincipal.get(principal) ?? []) {
        if (readable.has(id)) continue;
        newest.set(id, Math.max(lastModified, newest.get(id) ?? lastModified));
      }
    }
    return [...newest].map(([id, lastModified]) => ({ id, lastModified, deleted: true }));
  }

  /** Removes entries strictly older than `before` (all when undefined); returns how many. */
  purge(before: number | undefined): number {
    let purged = 0;
    for (const [principal, lost] of this.byPrincipal) {
      for (const [id, lastModified] of lost) {
        if (before !== undefined && lastModified >= before) continue;
        lost.delete(id);
        purged += 1;
      }
      if (lost.size === 0) this.byPrincipal.delete(principal);
    }
    return purged;
  }
}
