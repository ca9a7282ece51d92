/**
 * Order instead of stopwatch readings: whether a promise has settled yet, and a guard that fails
 * a test whose promise is still pending long after the configured timeout that should end it
 * (a hang), with a bound generous enough for a loaded machine.
 */

export interface Tracked<T> {
  readonly promise: Promise<T>;
  readonly settled: boolean;
}

/** Follows a promise without consuming its outcome. */
export function track<T>(promise: Promise<T>): Tracked<T> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  return {
    promise,
    get settled() {
      return settled;
    },
  };
}

/** The promise's outcome, or a failure if it is still pending after `ms`. */
export async function settlesWithin<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still pending after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, guard]);
  } finally {
    clearTimeout(timer);
  }
}
