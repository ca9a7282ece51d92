/**
 * The timestamp of each scope of the memory storage: the sequence the record store's writes and
 * the access journal's stamps share (PostgreSQL's `timestamps` table), so that both come out
 * strictly increasing, each above the scope's collection timestamp when taken.
 */
import { nextTimestamp } from "../../domain/records.js";
import type { Clock } from "../../application/ports/clock.js";
import type { Scope } from "../../application/ports/record-store.js";

export function scopeKey(scope: Scope): string {
  return JSON.stringify([scope.collection, scope.parentId]);
}

export class MemoryScopeClocks {
  private readonly timestamps = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  /** The scope's newest timestamp; undefined while none was taken (reads store nothing). */
  current(scope: Scope): number | undefined {
    return this.timestamps.get(scopeKey(scope));
  }

  /** The scope's next timestamp: strictly above its current one, honouring a newer `requested` one. */
  next(scope: Scope, requested?: number): number {
    const key = scopeKey(scope);
    // A never-written scope has no timestamp yet: any requested value is newer.
    const timestamp = nextTimestamp(this.timestamps.get(key) ?? 0, this.clock.now(), requested);
    this.timestamps.set(key, timestamp);
    return timestamp;
  }

  clear(): void {
    this.timestamps.clear();
  }
}
