/**
 * The memory store's record of lost read access (docs/adr/0011): per principal, the records it
 * could read once and when it lost them. Looked up by the caller's principals, so a listing costs
 * what those principals lost, not the size of the scope. The losses are also logged in
 * `last_modified` order, so that "lost after t" (the live feed) costs the losses since then.
 */
import type { RecordedLoss } from "../../application/ports/record-store.js";
import type { Tombstone } from "../../domain/records.js";
import { lossTombstones } from "../../application/shared-records/restricted-view.js";
import { ChangeLog, type LogEntry } from "./change-log.js";

interface Loss {
  readonly id: string;
  readonly principals: readonly string[];
}

export class LostAccessIndex {
  private readonly byPrincipal = new Map<string, Map<string, number>>();
  /** A logged loss holds for those of its principals whose newest loss of the record it still is. */
  private readonly log = new ChangeLog<Loss>((entry) => this.holding(entry).length > 0);

  record(id: string, principals: Iterable<string>, lastModified: number): void {
    const named = [...new Set(principals)];
    this.log.append({ id, principals: named }, lastModified);
    for (const principal of named) {
      let lost = this.byPrincipal.get(principal);
      if (!lost) {
        lost = new Map();
        this.byPrincipal.set(principal, lost);
      }
      if (lost.has(id)) this.log.superseded();
      lost.set(id, lastModified);
    }
  }

  /** The losses still in force with `last_modified` above `after`, oldest first. */
  after(after: number): RecordedLoss[] {
    const found: RecordedLoss[] = [];
    for (const entry of this.log.after(after))
      found.push({ id: entry.key.id, lastModified: entry.lastModified, principals: this.holding(entry) });
    return found;
  }

  /** The ids `principal` lost. */
  idsOf(principal: string): string[] {
    return [...(this.byPrincipal.get(principal)?.keys() ?? [])];
  }

  /** One tombstone per record lost by one of `principals` and not `readable`, at its newest loss (the rule of restricted-view.ts). */
  tombstonesFor(principals: readonly string[], readable: ReadonlySet<string>): Tombstone[] {
    return lossTombstones(this.lossesOf(principals), (id) => readable.has(id));
  }

  private *lossesOf(principals: readonly string[]): Iterable<{ id: string; lastModified: number }> {
    for (const principal of new Set(principals))
      for (const [id, lastModified] of this.byPrincipal.get(principal) ?? []) yield { id, lastModified };
  }

  /** Removes entries strictly older than `before` (all when undefined); returns how many. */
  purge(before: number | undefined): number {
    let purged = 0;
    for (const [principal, lost] of this.byPrincipal) {
      for (const [id, lastModified] of lost) {
        if (before !== undefined && lastModified >= before) continue;
        lost.delete(id);
        this.log.superseded();
        purged += 1;
      }
      if (lost.size === 0) this.byPrincipal.delete(principal);
    }
    return purged;
  }

  private holding({ key, lastModified }: LogEntry<Loss>): string[] {
    return key.principals.filter((principal) => this.byPrincipal.get(principal)?.get(key.id) === lastModified);
  }
}
