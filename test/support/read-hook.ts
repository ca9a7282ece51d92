/**
 * Puts a racing write at an exact point of one read: the next call of a store method whose
 * arguments match (one-shot) runs `between` just before or just after its own read, and only
 * then goes on. Calls made by `between` itself, and every later call, run untouched.
 */
export interface ReadHook {
  /** Whether the hooked call happened (a test expects it did). */
  readonly fired: boolean;
  /** Settles when the hooked call has read (before `between`, for "after" hooks). */
  readonly read: Promise<void>;
  restore(): void;
}

export function hookRead<T extends object, K extends keyof T>(
  target: T,
  method: K,
  matches: (args: unknown[]) => boolean,
  when: "before" | "after",
  between: () => Promise<void>,
): ReadHook {
  const original = target[method] as (...args: unknown[]) => Promise<unknown>;
  let fired = false;
  let markRead!: () => void;
  const read = new Promise<void>((resolve) => (markRead = resolve));
  target[method] = async function (...args: unknown[]) {
    if (fired || !matches(args)) return original.apply(target, args);
    fired = true;
    if (when === "before") {
      await between();
      const result = await original.apply(target, args);
      markRead();
      return result;
    }
    const result = await original.apply(target, args);
    markRead();
    await between();
    return result;
  } as T[K];
  return {
    get fired() {
      return fired;
    },
    read,
    restore: () => (target[method] = original as T[K]),
  };
}
