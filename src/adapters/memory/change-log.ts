/**
 * A scope's writes in `last_modified` order, so that "what changed after t" costs the changes, not
 * the scope. A scope's timestamps only grow, so a write is appended; an entry overwritten later
 * (the record written again, deleted, purged) stays in place and is skipped when read: `current`
 * says whether it still holds. The log is compacted once most of it is stale.
 */
export interface LogEntry<K> {
  readonly lastModified: number;
  readonly key: K;
}

export class ChangeLog<K> {
  private entries: LogEntry<K>[] = [];
  private stale = 0;

  constructor(private readonly current: (entry: LogEntry<K>) => boolean) {}

  /**
   * Records a write; usually above every earlier one of the scope. A loss of access recorded at the
   * timestamp of the write that caused it may come after later writes: it is put in its place.
   */
  append(key: K, lastModified: number): void {
    const last = this.entries.at(-1);
    if (last === undefined || last.lastModified <= lastModified) this.entries.push({ lastModified, key });
    else this.entries.splice(this.firstAfter(lastModified, false), 0, { lastModified, key });
  }

  /** One earlier entry no longer holds (counted, to know when to compact). */
  superseded(): void {
    this.stale += 1;
    if (this.stale > 64 && this.stale * 2 > this.entries.length) this.compact();
  }

  /** The entries still holding with `last_modified` above `after` (at or above it when `inclusive`), oldest first. */
  *after(after: number, inclusive = false): Generator<LogEntry<K>> {
    const { entries } = this;
    for (let i = this.firstAfter(after, inclusive); i < entries.length; i += 1) {
      const entry = entries[i] as LogEntry<K>;
      if (this.current(entry)) yield entry;
    }
  }

  /** How many entries `after` would look at (stale ones included): to choose between the log and another path. */
  sizeAfter(after: number, inclusive = false): number {
    return this.entries.length - this.firstAfter(after, inclusive);
  }

  clear(): void {
    this.entries = [];
    this.stale = 0;
  }

  /** Index of the first entry above `after` (binary search: the entries are in `last_modified` order). */
  private firstAfter(after: number, inclusive: boolean): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const at = (this.entries[middle] as LogEntry<K>).lastModified;
      if (at > after || (inclusive && at === after)) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  private compact(): void {
    this.entries = this.entries.filter((entry) => this.current(entry));
    this.stale = 0;
  }
}
