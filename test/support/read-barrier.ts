/**
 * Forces concurrent requests to interleave between read and write: the first `parties` reads of
 * one record (through the record store's `get`, and of its ACL through the permission store's
 * `objectPermissions` when given; or through SharedRecords' `read`, where it reads both in one
 * snapshot) each finish reading, then wait until every racer has done all
 * of those reads; so every racer decides on the same state before any of them writes. One-shot;
 * bounded by a timeout so that a product that reads fewer times fails the `reached` assertion
 * instead of hanging.
 */
import type { PermissionStore } from "../../src/application/ports/permission-store.js";
import type { RecordStore } from "../../src/application/ports/record-store.js";
import type { SharedRecords } from "../../src/application/ports/shared-records.js";

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
  together?: SharedRecords;
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
    hold(held.together, "read", (args) => args[1] === held.id);
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

/** A read caught between returning its result and handing it to its caller. */
export interface HeldRead {
  /** Resolves once a matching read returned and waits. */
  readonly reached: Promise<void>;
  /** Hands the result on (and puts the store methods back). */
  release(): void;
}

/**
 * Holds the live feed's next shared read of a scope's changes (a `list` over the whole scope
 * bounded by `upTo`, tombstones included, or SharedRecords `changes` where it reads ACLs with
 * the entries in one snapshot) whose result satisfies `matches`: the entries are read, then the test acts (a
 * write), then the feed goes on with what it read. Whatever the feed reads next (an ACL, a
 * confirmation) comes after the test's action. One-shot.
 */
export function holdSharedRead(stores: object[], matches: (entries: readonly { id: string; lastModified: number }[]) => boolean): HeldRead {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
  let armed = true;
  const restorers: Array<() => void> = [];
  const isSharedRead = (method: string, args: unknown[]): boolean => {
    if (method === "changes") return true;
    const query = args[1] as { upTo?: number; includeDeleted?: boolean; access?: unknown } | undefined;
    return args.length === 2 && query?.upTo !== undefined && query.includeDeleted === true && query.access === undefined;
  };
  const entriesOf = (result: unknown): { id: string; lastModified: number }[] =>
    (Array.isArray(result) ? result : (result as { entries: { id: string; lastModified: number }[] }).entries) as {
      id: string;
      lastModified: number;
    }[];
  for (const store of stores) {
    const target = store as Record<string, unknown>;
    for (const method of ["list", "changes"]) {
      const original = target[method];
      if (typeof original !== "function") continue;
      const call = original as (...args: unknown[]) => Promise<unknown>;
      target[method] = async (...args: unknown[]) => {
        const result = await call.apply(store, args);
        if (armed && isSharedRead(method, args) && matches(entriesOf(result))) {
          armed = false;
          reached();
          await released;
        }
        return result;
      };
      restorers.push(() => (target[method] = original));
    }
  }
  return {
    reached: reachedPromise,
    release() {
      for (const restore of restorers) restore();
      release();
    },
  };
}
