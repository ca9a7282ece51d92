/**
 * Which server answers a read: a streaming replica only when it has replayed everything the
 * primary had written when the read arrived, the primary otherwise (docs/operating.md, "Reading
 * from replicas"). The primary's WAL insert position, read after the read arrived (one reading
 * per burst of reads), bounds every write acknowledged before it, whichever process made it: the
 * caller's own writes, and every revoke already answered. A replica at or past that position
 * shows all of them; the read waits for one at most `maxWaitMs`, then goes to the primary. A
 * replica that fails a read is left alone for a while and the read goes to the primary: clients
 * never see its failure.
 */
import type pg from "pg";
import type { Replica } from "./replica.js";

/** Period of the look at every replica that no read asks about (lag figures, promotion, return after a failure). */
const WATCH_MS = 1000;

export interface ReplicaReadsOptions {
  readonly replicas: readonly Replica[];
  /** The primary's WAL insert position, read after the call (freshReading). */
  readonly primaryPosition: () => Promise<bigint>;
  /** Longest wait for a replica to replay a read's position before the primary answers it. */
  readonly maxWaitMs: number;
  readonly now?: () => number;
}

export class ReplicaReads {
  /** Reads the primary answered (no replica was usable, or none had replayed their position in time). */
  primaryReads = 0;
  private turn = 0;
  private readonly now: () => number;
  private readonly watch: ReturnType<typeof setInterval>;

  constructor(private readonly options: ReplicaReadsOptions) {
    this.now = options.now ?? (() => performance.now());
    this.watch = setInterval(() => void this.look(), WATCH_MS);
    this.watch.unref();
  }

  get replicas(): readonly Replica[] {
    return this.options.replicas;
  }

  /** Runs a read on a replica that may answer it, else on the primary (`primary`). */
  async read<R extends pg.QueryResultRow>(config: pg.QueryConfig, primary: () => Promise<R[]>): Promise<R[]> {
    const replica = await this.choose();
    if (replica) {
      try {
        return await replica.query<R>(config);
      } catch (error) {
        // A statement the primary would refuse too fails there again, as the caller's own error.
        if (connectionLost(error)) replica.failed();
      }
    }
    this.primaryReads += 1;
    return primary();
  }

  /** Who answered the reads so far, and each replica's state and lag (metrics). */
  figures(): { primaryReads: number; replicas: { label: string; up: boolean; lagBytes: number; served: number }[] } {
    return {
      primaryReads: this.primaryReads,
      replicas: this.options.replicas.map((r) => ({ label: r.label, up: r.usable(), lagBytes: Number(r.lagBytes), served: r.served })),
    };
  }

  close(): Promise<void> {
    clearInterval(this.watch);
    return Promise.all(this.options.replicas.map((replica) => replica.close())).then(() => undefined);
  }

  /** A replica that has replayed the primary's position as of now, or undefined. */
  private async choose(): Promise<Replica | undefined> {
    const candidates = this.usable();
    if (candidates.length === 0) return undefined;
    let position: bigint;
    try {
      position = await this.options.primaryPosition();
    } catch {
      return undefined; // the primary's own read will say what is wrong
    }
    const known = candidates.find((replica) => replica.applied >= position);
    if (known) return known;
    const deadline = this.now() + this.options.maxWaitMs;
    for (;;) {
      const applied = await Promise.all(candidates.map((replica) => replica.appliedNow()));
      for (const [i, replica] of candidates.entries()) {
        const at = applied[i];
        if (at === undefined) continue;
        replica.lagBytes = at >= position ? 0n : position - at;
        if (at >= position) return replica;
      }
      if (this.now() >= deadline || !candidates.some((replica) => replica.usable())) return undefined;
    }
  }

  /** The usable replicas, from a different one each time (the reads spread over them). */
  private usable(): Replica[] {
    const usable = this.options.replicas.filter((replica) => replica.usable());
    if (usable.length < 2) return usable;
    const start = this.turn++ % usable.length;
    return [...usable.slice(start), ...usable.slice(0, start)];
  }

  /** Probes every replica against the primary: lag figures, and states (promoted, back up) without waiting for a read. */
  private async look(): Promise<void> {
    let position: bigint;
    try {
      position = await this.options.primaryPosition();
    } catch {
      return;
    }
    await Promise.all(
      this.options.replicas.map(async (replica) => {
        if (!replica.usable()) return;
        const at = await replica.appliedNow();
        if (at !== undefined) replica.lagBytes = at >= position ? 0n : position - at;
      }),
    );
  }
}

/** The replica itself is away (no SQLSTATE: a socket error or timeout; 08: connection; 57P: shut down or starting), not the statement. */
function connectionLost(error: unknown): boolean {
  const code = typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
  if (typeof code !== "string" || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith("08") || code.startsWith("57P");
}
