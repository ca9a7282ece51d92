/**
 * Who among a group of live subscribers sees each change of one read (docs/adr/0011, 0016), with
 * the listing's rules (shared-records/restricted-view.ts) decided in memory: a subscriber with
 * collection-level read sees every record its filters keep and every tombstone; a restricted one
 * sees records and tombstones whose readers (the principals their ACL names under its listing's
 * Grants.permissions, CursorReader) include one of its grants' principals, and, for a record it
 * cannot read now, a tombstone at the newest loss recorded for one of them. The cost is the
 * changes times their recipients, found through an index by principal, never subscribers × changes.
 */
import type { RecordOrTombstone } from "../../domain/records.js";
import type { RecordedLoss } from "../ports/access-journal.js";
import { lossTombstones, readsVersion } from "../shared-records/restricted-view.js";

/** What the audience needs to know of a subscriber, fixed when it joins. */
export interface Viewer {
  readonly cursor: number;
  /** Undefined: collection-level read. Else its listing's Grants.principals, matched against each version's readers. */
  readonly principals: ReadonlySet<string> | undefined;
  /** Key of its data filters ("" for none): records pass when `matching` has them for that key. */
  readonly filterKey: string;
}

export interface SharedRead {
  /** Records and tombstones of the scope in (low, bound], ascending (unrestricted, no filters). */
  readonly entries: readonly RecordOrTombstone[];
  readonly bound: number;
  /** Losses above low (any bound), ascending; only read when a restricted viewer is present. */
  readonly losses: readonly RecordedLoss[];
  /** Per record id, the principals its ACL grants read to now (ids of entries and losses). */
  readonly readers: ReadonlyMap<string, ReadonlySet<string>>;
  /** Per non-empty filter key, `id@last_modified` of the records in range those filters keep. */
  readonly matching: ReadonlyMap<string, ReadonlySet<string>>;
}

/** One delivery: the entry (a record, a tombstone, or a lost-access tombstone) for one viewer. */
export interface Delivery<V> {
  readonly viewer: V;
  readonly entries: RecordOrTombstone[];
}

export function entryKey(entry: { id: string; lastModified: number }): string {
  return `${entry.id}@${entry.lastModified}`;
}

export class Audience<V extends Viewer> {
  private readonly unrestricted = new Set<V>();
  private readonly byPrincipal = new Map<string, Set<V>>();

  get hasRestricted(): boolean {
    return this.byPrincipal.size > 0;
  }

  /** Every principal through which a restricted viewer sees records. */
  restrictedPrincipals(): string[] {
    return [...this.byPrincipal.keys()];
  }

  add(viewer: V): void {
    if (viewer.principals === undefined) {
      this.unrestricted.add(viewer);
      return;
    }
    for (const principal of viewer.principals) {
      let set = this.byPrincipal.get(principal);
      if (!set) {
        set = new Set();
        this.byPrincipal.set(principal, set);
      }
      set.add(viewer);
    }
  }

  delete(viewer: V): void {
    this.unrestricted.delete(viewer);
    for (const principal of viewer.principals ?? []) {
      const set = this.byPrincipal.get(principal);
      set?.delete(viewer);
      if (set?.size === 0) this.byPrincipal.delete(principal);
    }
  }

  /**
   * Who may see `entry` (a record or tombstone) now, before cursors and filters: the viewers
   * indexed under one of its readers are the candidates, the listing's rule decides (readsVersion).
   */
  recipients(entry: RecordOrTombstone, readers: ReadonlySet<string> | undefined): Set<V> {
    const found = new Set(this.unrestricted);
    for (const principal of readers ?? [])
      for (const viewer of this.byPrincipal.get(principal) ?? [])
        if (viewer.principals !== undefined && readsVersion(viewer.principals, readers)) found.add(viewer);
    return found;
  }

  /** Each viewer's entries of the read, ascending, after its cursor and up to the bound. */
  deliveries(read: SharedRead): Map<V, RecordOrTombstone[]> {
    const out = new Map<V, RecordOrTombstone[]>();
    const push = (viewer: V, entry: RecordOrTombstone) => {
      const list = out.get(viewer);
      if (list) list.push(entry);
      else out.set(viewer, [entry]);
    };
    for (const entry of read.entries) {
      for (const viewer of this.recipients(entry, read.readers.get(entry.id))) {
        if (entry.lastModified <= viewer.cursor) continue;
        if (!entry.deleted && viewer.filterKey !== "" && read.matching.get(viewer.filterKey)?.has(entryKey(entry)) !== true) continue;
        push(viewer, entry);
      }
    }
    const lost = this.lostTombstones(read);
    for (const [viewer, tombstones] of lost) {
      const list = out.get(viewer) ?? [];
      list.push(...tombstones);
      out.set(
        viewer,
        list.sort((a, b) => a.lastModified - b.lastModified),
      );
    }
    return out;
  }

  /**
   * For each restricted viewer, the tombstones the listing's rule owes it (lossTombstones: newest
   * loss of a record one of its principals lost and it cannot read now), when after its cursor
   * and within the bound.
   */
  private lostTombstones(read: SharedRead): Map<V, RecordOrTombstone[]> {
    const owed = new Map<V, RecordedLoss[]>();
    for (const loss of read.losses)
      for (const principal of loss.principals)
        for (const viewer of this.byPrincipal.get(principal) ?? []) {
          const losses = owed.get(viewer);
          if (losses) losses.push(loss);
          else owed.set(viewer, [loss]);
        }
    const out = new Map<V, RecordOrTombstone[]>();
    for (const [viewer, losses] of owed) {
      const principals = viewer.principals;
      if (principals === undefined) continue;
      const tombstones = lossTombstones(losses, (id) => readsVersion(principals, read.readers.get(id))).filter(
        (t) => t.lastModified > viewer.cursor && t.lastModified <= read.bound,
      );
      if (tombstones.length > 0) out.set(viewer, tombstones);
    }
    return out;
  }
}
