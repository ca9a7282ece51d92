/**
 * Forces concurrent requests to interleave between read and write: the first `parties` reads of
 * one record (through the record store's `get`, and of its ACL through the permission store's
 * `objectPermissions` when given; or through the RecordWithAclReader's `getWithAcl`, which reads
 * both at once, where one is bound) each finish reading, then wait until every racer has done all
 * of those reads; so every racer decides on the same state before any of them writes. One-shot;
 * bounded by a timeout so that a product that reads fewer times fails the `reached` assertion
 * instead of hanging.
 */
import type { PermissionStore } from "../../src/application/ports/permission-store.js";
import type { RecordStore } from "../../src/application/ports/record-store.js";
import type { RecordWithAclReader } from "../../src/application/ports/record-with-acl-reader.js";

export interface ReadBarrier {
  /** How many racers completed every held read (the test expects `parties`). */
  readonly reached: number;
  /** Puts the stores' own methods back. */
  restore(): void;
}

export interface HeldReads {
  records: RecordStore;
  id: string;
  /** With the permission store and the record's object id, its ACL reads are held too. */
  permissions?: PermissionStore;
  objectId?: string;
  /** Where bound, a record and its ACL are read together: that read is held instead. */
  together?: RecordWithAclReader;
}

export function holdReads(held: HeldReads, parties = 2, timeoutMs = 3000): ReadBarrier {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const timer = setTimeout(() => open(), timeoutMs);
  timer.unref();
  const counts: number[] = [];
  const restorers: Array<() => void> = [];

  /** Wraps one read method: after reading, a matching call waits at the gate. */
  function hold<T extends object, K extends keyof T>(target: T, method: K, matches: (args: unknown[]) => boolean): void {
    const original = target[method] as (...args: unknown[]) => Promise<unknown>;
    const slot = counts.push(0) - 1;
    target[method] = async function (...args: unknown[]) {
      const result = await original.apply(target, args);
      if (!matches(args) || (counts[slot] ?? 0) >= parties) return result;
      counts[slot] = (counts[slot] ?? 0) + 1;
      if (counts.every((count) => count >= parties)) {
        clearTimeout(timer);
        open();
      }
      await gate;
      return result;
    } as T[K];
    restorers.push(() => (target[method] = original as T[K]));
  }

  if (held.together) {
    hold(held.together, "getWithAcl", (args) => args[1] === held.id);
  } else {
    hold(held.records, "get", (args) => args[1] === held.id);
    if (held.permissions && held.objectId !== undefined) hold(held.permissions, "objectPermissions", (args) => args[0] === held.objectId);
  }
  return {
    get reached() {
      return Math.min(...counts);
    },
    restore() {
      clearTimeout(timer);
      open();
      for (const restoreOne of restorers) restoreOne();
    },
  };
}
