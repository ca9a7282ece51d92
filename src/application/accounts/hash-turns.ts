/**
 * Password checks take turns by client address, so that one address's burst of guesses never
 * makes another client wait behind it: at most `atOnce` checks run, and one address never holds
 * the last free slot (it is kept for whoever comes next: a newcomer waits for no one's hash). When
 * a check ends, the waiting address with the fewest checks running, then the one served least
 * recently, starts next (round robin), not the oldest waiter. Each address may have a few checks
 * waiting; beyond, its new ones are refused (429). A waiting check whose client has gone (its
 * signal aborted) is dropped before it costs a hash.
 */
import { BackendError } from "../../domain/errors.js";
import { SignInThrottledError } from "./sign-in-throttled-error.js";

export interface HashTurnsOptions {
  /** Checks running at once in this process (the hasher's own concurrency). */
  readonly atOnce: number;
  /** Checks one address may have waiting; more are refused with 429. */
  readonly waitingPerAddress: number;
  /** Checks waiting in all; more are refused with 503 (the process is saturated). */
  readonly waitingInAll: number;
}

interface Waiter {
  readonly start: () => void;
}

export class HashTurns {
  private running = 0;
  /** Address → checks of it running now (absent: none). */
  private readonly runningOf = new Map<string, number>();
  /** Address → its waiting checks, oldest first. */
  private readonly waiting = new Map<string, Waiter[]>();
  private waitingCount = 0;
  /** Address → when it last started a check (a counter): the least recently served goes next. */
  private readonly lastTurn = new Map<string, number>();
  private turns = 0;

  constructor(private readonly options: HashTurnsOptions) {}

  /** Runs `work` in `address`'s turn. Rejects when refused, or when `signal` aborts before it starts. */
  async run<T>(address: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) throw gone();
    if (this.mayStart(address)) this.begin(address);
    else await this.wait(address, signal);
    try {
      return await work();
    } finally {
      this.end(address);
    }
  }

  /** Checks running and waiting now (for tests and metrics). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waitingCount };
  }

  private wait(address: string, signal: AbortSignal | undefined): Promise<void> {
    const queue = this.waiting.get(address) ?? [];
    if (queue.length >= this.options.waitingPerAddress)
      return Promise.reject(new SignInThrottledError(1, "Too many password checks from this address at once: retry later."));
    if (this.waitingCount >= this.options.waitingInAll)
      return Promise.reject(new BackendError("accounts", undefined, "Too many password checks at once: retry later."));
    return new Promise<void>((resolve, reject) => {
      const abandon = () => {
        this.remove(address, waiter);
        reject(gone());
      };
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener("abort", abandon);
          resolve();
        },
      };
      signal?.addEventListener("abort", abandon, { once: true });
      queue.push(waiter);
      this.waiting.set(address, queue);
      this.waitingCount += 1;
    });
  }

  private begin(address: string): void {
    this.turns += 1;
    this.lastTurn.set(address, this.turns);
    this.running += 1;
    this.runningOf.set(address, (this.runningOf.get(address) ?? 0) + 1);
  }

  private end(address: string): void {
    this.running -= 1;
    const left = (this.runningOf.get(address) ?? 1) - 1;
    if (left > 0) this.runningOf.set(address, left);
    else this.runningOf.delete(address);
    this.settle(address);
    this.startNext();
  }

  /** The waiting address with the fewest checks running, then the least recently served, starts its oldest waiter. */
  private startNext(): void {
    if (this.running >= this.options.atOnce) return;
    let chosen: string | undefined;
    for (const address of this.waiting.keys())
      if (this.mayStart(address) && (chosen === undefined || this.before(address, chosen))) chosen = address;
    const queue = chosen === undefined ? undefined : this.waiting.get(chosen);
    const next = queue?.shift();
    if (chosen === undefined || !queue || !next) return;
    if (queue.length === 0) this.waiting.delete(chosen);
    this.waitingCount -= 1;
    this.begin(chosen);
    next.start();
  }

  /** A slot is free, and it is not the last one or the address holds none. */
  private mayStart(address: string): boolean {
    const free = this.options.atOnce - this.running;
    return free > 1 || (free === 1 && !this.runningOf.has(address));
  }

  private before(address: string, other: string): boolean {
    const [running, otherRunning] = [this.runningOf.get(address) ?? 0, this.runningOf.get(other) ?? 0];
    return running !== otherRunning ? running < otherRunning : this.turnOf(address) < this.turnOf(other);
  }

  private turnOf(address: string): number {
    return this.lastTurn.get(address) ?? 0;
  }

  private remove(address: string, waiter: Waiter): void {
    const queue = this.waiting.get(address);
    const at = queue?.indexOf(waiter) ?? -1;
    if (!queue || at < 0) return;
    queue.splice(at, 1);
    this.waitingCount -= 1;
    if (queue.length === 0) this.waiting.delete(address);
    this.settle(address);
  }

  /** An address with nothing running or waiting is forgotten (what is kept stays bounded by the load). */
  private settle(address: string): void {
    if (!this.waiting.has(address) && !this.runningOf.has(address)) this.lastTurn.delete(address);
  }
}

function gone(): BackendError {
  return new BackendError("accounts", undefined, "The client left before its password was checked.");
}
