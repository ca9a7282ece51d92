/**
 * Calls that arrive while a statement of theirs is in flight go together in the next one: one
 * round trip per burst of calls, not per call. A call that finds fewer than `maxInFlight`
 * statements under way is sent at once, so an idle service adds no wait. On 2 shared cores the
 * socket write and the wake-up of a PostgreSQL backend cost more than the statement itself, so
 * under load this is what lets one process keep up (docs/adr/0013).
 */
import { BackendError } from "../../domain/errors.js";

export interface BurstOptions {
  /** Statements of these calls under way at once; 1 keeps the calls in order. */
  readonly maxInFlight: number;
  /** Calls per statement at most. */
  readonly maxBurst: number;
  /**
   * When idle, wait for the calls made in the same turn of the event loop (e.g. the writes of one
   * group commit, answered together) and send them together, instead of the first one alone.
   */
  readonly gatherTurn?: boolean;
}

interface Queued<I, R> {
  readonly item: I;
  readonly resolve: (value: R) => void;
  readonly reject: (error: unknown) => void;
}

export class StatementBursts<I, R> {
  private readonly queued: Queued<I, R>[] = [];
  private inFlight = 0;

  /** `send` answers one result per item, in the items' order. */
  constructor(
    private readonly send: (items: readonly I[]) => Promise<readonly R[]>,
    private readonly options: BurstOptions,
  ) {}

  submit(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queued.push({ item, resolve, reject });
      if (this.inFlight >= this.options.maxInFlight) return;
      this.inFlight++;
      if (this.options.gatherTurn === true) setImmediate(() => void this.sendQueued());
      else void this.sendQueued();
    });
  }

  /** Sends what is queued, burst after burst, then leaves its place in flight. */
  private async sendQueued(): Promise<void> {
    while (this.queued.length > 0) await this.sendBurst(this.queued.splice(0, this.options.maxBurst));
    this.inFlight--;
  }

  private async sendBurst(burst: readonly Queued<I, R>[]): Promise<void> {
    try {
      const results = await this.send(burst.map((call) => call.item));
      if (results.length !== burst.length)
        throw new Error(`a burst statement answered ${results.length} results for ${burst.length} calls`);
      burst.forEach((call, i) => call.resolve(results[i] as R));
    } catch (error) {
      // An outage fails every call; anything else may be one call's input (a string PostgreSQL
      // cannot store): each is then sent alone, so that it fails only its own call.
      if (burst.length === 1 || error instanceof BackendError) for (const call of burst) call.reject(error);
      else for (const call of burst) await this.sendBurst([call]);
    }
  }
}
