/**
 * Writers for live-feed tests across processes: each creates and updates records of its own
 * (PUT, so that a retried write is the same write), shared by record ACL with a changing set of
 * readers (so restricted subscribers gain and lose records), taking the processes in turn. A
 * write that fails for want of a process (a refused or cut connection, a 5xx while it starts or
 * stops) is sent again to the next process until one acknowledges it: every acknowledged write
 * must then reach the subscribers who may read it.
 */

export interface WritersPlan {
  /** Base URLs of the processes, taken in turn (read at each write: a restarted process keeps its URL). */
  readonly urls: () => readonly string[];
  readonly collection: string;
  /** `user:password` of each writer (one loop per writer). */
  readonly writers: readonly string[];
  /** Principals a record may be shared with (a subset at each write). */
  readonly readers: readonly string[];
  /** Records per writer: each write creates one of them or updates it. */
  readonly recordsPerWriter: number;
  /** Pause between a writer's acknowledged writes. */
  readonly pauseMs: number;
}

export interface WritersOutcome {
  readonly acknowledged: number;
  /** Attempts that failed and were sent again (to the next process). */
  readonly retried: number;
  /** Why each retried attempt failed, counted ("503", "ECONNREFUSED"...). */
  readonly failures: Readonly<Record<string, number>>;
}

/** Gives up on a write that no process acknowledged within this (the test then fails). */
const WRITE_PATIENCE_MS = 20_000;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A small seeded generator: the same plan writes the same sequence at every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class FeedWriters {
  private running = true;
  private acknowledged = 0;
  private retried = 0;
  private readonly failures: Record<string, number> = {};
  private readonly loops: Promise<void>[];

  constructor(private readonly plan: WritersPlan) {
    this.loops = plan.writers.map((credentials, index) => {
      const loop = this.loop(credentials, index);
      loop.catch(() => undefined); // reported by stop(), not as an unhandled rejection meanwhile
      return loop;
    });
  }

  /** Lets every writer finish its write in flight, then reports (rejects if a write was never acknowledged). */
  async stop(): Promise<WritersOutcome> {
    this.running = false;
    await Promise.all(this.loops);
    return { acknowledged: this.acknowledged, retried: this.retried, failures: { ...this.failures } };
  }

  get acknowledgedSoFar(): number {
    return this.acknowledged;
  }

  private async loop(credentials: string, writer: number): Promise<void> {
    const random = seeded(writer + 1);
    const authorization = `Basic ${Buffer.from(credentials).toString("base64")}`;
    let turn = writer;
    for (let step = 0; this.running; step += 1) {
      const id = `w${writer}-r${Math.floor(random() * this.plan.recordsPerWriter)}`;
      const readers = this.plan.readers.filter(() => random() < 0.5);
      const body = JSON.stringify({ data: { writer, step }, permissions: { read: readers } });
      const giveUpAt = Date.now() + WRITE_PATIENCE_MS;
      for (;;) {
        const urls = this.plan.urls();
        const url = urls[turn++ % urls.length] as string;
        const failure = await this.put(`${url}/v1/${this.plan.collection}/${id}`, authorization, body);
        if (failure === undefined) break;
        this.retried += 1;
        this.failures[failure] = (this.failures[failure] ?? 0) + 1;
        if (Date.now() > giveUpAt) throw new Error(`writer ${writer}: no process acknowledged ${id} within ${WRITE_PATIENCE_MS} ms`);
        await pause(50);
      }
      this.acknowledged += 1;
      await pause(this.plan.pauseMs);
    }
  }

  /** Undefined once acknowledged; else why the attempt may be retried (anything else is a failure of the test). */
  private async put(url: string, authorization: string, body: string): Promise<string | undefined> {
    let response: Response;
    try {
      response = await fetch(url, { method: "PUT", headers: { Authorization: authorization, "Content-Type": "application/json" }, body });
    } catch (error) {
      const cause = error instanceof Error ? (error.cause as { code?: string } | undefined) : undefined;
      return cause?.code ?? "network error";
    }
    const text = await response.text().catch(() => "");
    if (response.status === 200 || response.status === 201) return undefined;
    if (response.status >= 500) return String(response.status);
    throw new Error(`PUT ${url} answered ${response.status}: ${text}`);
  }
}
