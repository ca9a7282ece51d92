/**
 * The access journal kept in process memory (docs/adr/0011, 0015). Per scope: per principal, the
 * records it lost and when (also logged in `last_modified` order, so that "lost after t", the live
 * feed's question, costs the losses since then), the records it gained and when, and its newest
 * resync. Looked up by the caller's principals, so that a restricted listing costs what those
 * principals lost or gained, not the size of the scope. Its stamps are taken from the scope
 * clocks it shares with the memory record store, whose listings ask it (tombstonesFor, idsGained).
 */
/* eslint-disable @typescript-eslint/require-await -- the port is async; memory has nothing to await, and async keeps errors as rejections */
import type { Tombstone } from "../../domain/records.js";
import type { AccessJournal, LossesWanted, RecordedLoss, StampRange } from "../../application/ports/access-journal.js";
import type { Scope } from "../../application/ports/record-store.js";
import { lossTombstones } from "../../application/shared-records/restricted-view.js";
import { ChangeLog, type LogEntry } from "./change-log.js";
import { scopeKey, type MemoryScopeClocks } from "./scope-clocks.js";

interface Loss {
  readonly id: string;
  readonly principals: readonly string[];
}

/** Per principal, per record id, a timestamp. */
type ByPrincipal = Map<string, Map<string, number>>;

function entryOf(byPrincipal: ByPrincipal, principal: string): Map<string, number> {
  let entries = byPrincipal.get(principal);
  if (!entries) {
    entries = new Map();
    byPrincipal.set(principal, entries);
  }
  return entries;
}

/** Removes entries strictly older than `before` (all when undefined); returns how many. */
function purgeEntries(byPrincipal: ByPrincipal, before: number | undefined, removed: () => void = () => undefined): number {
  let purged = 0;
  for (const [principal, entries] of byPrincipal) {
    for (const [id, lastModified] of entries) {
      if (before !== undefined && lastModified >= before) continue;
      entries.delete(id);
      removed();
      purged += 1;
    }
    if (entries.size === 0) byPrincipal.delete(principal);
  }
  return purged;
}

/** The journal of one scope. */
class ScopeJournal {
  readonly lost: ByPrincipal = new Map();
  readonly gained: ByPrincipal = new Map();
  /** Per principal, its newest resync. */
  readonly resyncs = new Map<string, number>();
  /** A logged loss holds for those of its principals whose newest loss of the record it still is. */
  private readonly log = new ChangeLog<Loss>((entry) => this.holding(entry).length > 0);

  recordLoss(id: string, principals: Iterable<string>, lastModified: number): void {
    const named = [...new Set(principals)];
    this.log.append({ id, principals: named }, lastModified);
    for (const principal of named) {
      const lost = entryOf(this.lost, principal);
      if (lost.has(id)) this.log.superseded();
      lost.set(id, lastModified);
    }
  }

  lossesAfter(after: number): RecordedLoss[] {
    const found: RecordedLoss[] = [];
    for (const entry of this.log.after(after))
      found.push({ id: entry.key.id, lastModified: entry.lastModified, principals: this.holding(entry) });
    return found;
  }

  *lossesOf(principals: readonly string[]): Iterable<{ id: string; lastModified: number }> {
    for (const principal of new Set(principals))
      for (const [id, lastModified] of this.lost.get(principal) ?? []) yield { id, lastModified };
  }

  idsGained(principals: readonly string[], holds: (lastModified: number) => boolean): Set<string> {
    const found = new Set<string>();
    for (const principal of new Set(principals))
      for (const [id, lastModified] of this.gained.get(principal) ?? []) if (holds(lastModified)) found.add(id);
    return found;
  }

  /** Removes entries strictly older than `before` (all when undefined); returns how many losses and gains. */
  purge(before: number | undefined): number {
    const purged = purgeEntries(this.lost, before, () => this.log.superseded()) + purgeEntries(this.gained, before);
    for (const [principal, timestamp] of this.resyncs) if (before === undefined || timestamp < before) this.resyncs.delete(principal);
    return purged;
  }

  private holding({ key, lastModified }: LogEntry<Loss>): string[] {
    return key.principals.filter((principal) => this.lost.get(principal)?.get(key.id) === lastModified);
  }
}

export class MemoryAccessJournal implements AccessJournal {
  private readonly scopes = new Map<string, ScopeJournal>();

  /** `clocks`: the scope timestamps of the memory record store this journal belongs to. */
  constructor(private readonly clocks: MemoryScopeClocks) {}

  async initializeSchema(): Promise<void> {}

  async recordLostAccessAt(scope: Scope, losses: readonly RecordedLoss[]): Promise<void> {
    for (const loss of losses) if (loss.principals.length > 0) this.journal(scope).recordLoss(loss.id, loss.principals, loss.lastModified);
  }

  async lostAccessAfter(scope: Scope, after: number, only: LossesWanted = {}): Promise<RecordedLoss[]> {
    const losses = this.peek(scope)?.lossesAfter(after) ?? [];
    const wanted = only.principals && new Set(only.principals);
    const kept = wanted
      ? losses.flatMap((loss) => {
          const held = loss.principals.filter((p) => wanted.has(p));
          return held.length > 0 ? [{ ...loss, principals: held }] : [];
        })
      : losses;
    return only.limit === undefined ? kept : kept.slice(0, only.limit);
  }

  async stampLostAccess(scope: Scope, principal: string, lost: readonly string[]): Promise<StampRange> {
    const ids = [...new Set(lost)].sort();
    const stamps = (ids.length === 0 ? [undefined] : ids).map((id) => {
      const timestamp = this.clocks.next(scope);
      if (id !== undefined) this.journal(scope).recordLoss(id, [principal], timestamp);
      return timestamp;
    });
    return { first: stamps[0] ?? 0, last: stamps.at(-1) ?? 0 };
  }

  async lostAccessOf(scope: Scope, principal: string): Promise<string[]> {
    return [...(this.peek(scope)?.lost.get(principal)?.keys() ?? [])];
  }

  async stampGainedAccess(scope: Scope, principal: string, gained: readonly string[]): Promise<number> {
    const timestamp = this.clocks.next(scope);
    const entries = entryOf(this.journal(scope).gained, principal);
    for (const id of gained) entries.set(id, timestamp);
    return timestamp;
  }

  async stampResync(scope: Scope, principal: string): Promise<number> {
    const timestamp = this.clocks.next(scope);
    this.journal(scope).resyncs.set(principal, timestamp);
    return timestamp;
  }

  async resyncAfter(scope: Scope, principals: readonly string[], after: number): Promise<number | undefined> {
    const resyncs = this.peek(scope)?.resyncs;
    const found = principals.map((p) => resyncs?.get(p) ?? Number.NEGATIVE_INFINITY).filter((t) => t > after);
    return found.length === 0 ? undefined : Math.max(...found);
  }

  async gainedAccessAfter(scope: Scope, principals: readonly string[], after: number): Promise<string[]> {
    return [...(this.peek(scope)?.idsGained(principals, (t) => t > after) ?? [])];
  }

  async purge(scope: Scope | undefined, before?: number): Promise<number> {
    const journals = scope === undefined ? [...this.scopes.values()] : [this.peek(scope)].filter((j) => j !== undefined);
    let purged = 0;
    for (const journal of journals) purged += journal.purge(before);
    return purged;
  }

  async flush(): Promise<void> {
    this.scopes.clear();
  }

  /**
   * For the memory record store's listings: one tombstone per record lost by one of `principals`
   * and not `readable`, at its newest loss (the rule of restricted-view.ts).
   */
  tombstonesFor(scope: Scope, principals: readonly string[], readable: ReadonlySet<string>): Tombstone[] {
    const journal = this.peek(scope);
    return journal ? lossTombstones(journal.lossesOf(principals), (id) => readable.has(id)) : [];
  }

  /** For the memory record store's listings: the ids one of `principals` gained at a timestamp `holds` keeps (the listing's bounds). */
  idsGained(scope: Scope, principals: readonly string[], holds: (lastModified: number) => boolean): Set<string> {
    return this.peek(scope)?.idsGained(principals, holds) ?? new Set();
  }

  private peek(scope: Scope): ScopeJournal | undefined {
    return this.scopes.get(scopeKey(scope));
  }

  private journal(scope: Scope): ScopeJournal {
    const key = scopeKey(scope);
    let journal = this.scopes.get(key);
    if (!journal) {
      journal = new ScopeJournal();
      this.scopes.set(key, journal);
    }
    return journal;
  }
}
