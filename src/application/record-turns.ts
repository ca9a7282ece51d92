/**
 * Writes to one record from this process take turns, so that concurrent PATCHes without a
 * precondition rarely meet in the database and rarely need a retry round (contention-retry.ts).
 * Only an optimisation: processes do not share turns, so correctness still rests on the
 * conditional write and its retry. The wait for a turn is bounded, so a holder stuck behind a
 * database lock (say, a batch that wrote the record and is still open) cannot block the others.
 */
export class RecordTurns {
  private readonly tails = new Map<string, Promise<void>>();

  constructor(private readonly maxWaitMs = 1_000) {}

  async take<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key);
    let release = (): void => undefined;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous ? previous.then(() => mine) : mine;
    this.tails.set(key, tail);
    if (previous) await waitAtMost(previous, this.maxWaitMs);
    try {
      return await work();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

function waitAtMost(turn: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([turn, timeout]).finally(() => clearTimeout(timer));
}
