/**
 * What every fault scenario checks, whatever the backend and wherever the connection is cut:
 * while the backend is away the server answers 503 with Retry-After (never another 5xx, never a
 * dropped connection), it answers normally again soon after the backend returns, and every write
 * it acknowledged is there afterwards.
 */
import { expect } from "chai";
import type { TcpProxy } from "../support/tcp-proxy.js";

export interface Reply {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly body: unknown;
}

export interface Request {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
}

/**
 * The longest a backend may take to serve again once it is back (the bound). The pg pool
 * opens a fresh connection on the next request and the Redis clients retry at least every
 * REDIS_RECONNECT_CAP_MS (redis-connection.ts, 500 ms), so both stay well within it.
 */
export const RECOVERY_BOUND_MS = 1000;
/** Polls while waiting for recovery: the bound above over a short pause, plus a margin. */
const RECOVERY_POLL_PAUSE_MS = 20;
const MAX_RECOVERY_POLLS = RECOVERY_BOUND_MS / RECOVERY_POLL_PAUSE_MS + 10;
/** An armed cut that has not fired once its traffic is answered fires on no later request either. */
const CUT_WAIT_MS = 2000;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class FaultDrill {
  /** Acknowledged writes: record URL path → the `n` it was written with. */
  readonly acknowledged = new Map<string, number>();
  /** Creates with a known id answered 503: record URL paths that must stay absent. */
  readonly refused = new Set<string>();
  private next = 0;

  constructor(
    private readonly baseUrl: string,
    private readonly authorization: string,
  ) {}

  /** A fresh payload number, so each acknowledged write can be recognised later. */
  number(): number {
    return ++this.next;
  }

  async send(request: Request): Promise<Reply> {
    const init: RequestInit = {
      method: request.method,
      headers: { Authorization: this.authorization, "Content-Type": "application/json" },
    };
    if (request.body !== undefined) init.body = JSON.stringify(request.body);
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${request.path}`, init);
    } catch (error) {
      throw new Error(`${request.method} ${request.path}: no answer (${String((error as Error).cause ?? error)})`, { cause: error });
    }
    const text = await response.text();
    return {
      status: response.status,
      retryAfter: response.headers.get("retry-after"),
      body: text ? (JSON.parse(text) as unknown) : undefined,
    };
  }

  /**
   * A create (with that id, when given), remembered when acknowledged, or as refused when it has
   * an id and got 503. Answers must be 2xx or 503 + Retry-After.
   */
  async create(collection: string, id?: string): Promise<Reply> {
    const n = this.number();
    const reply = await this.send({ method: "POST", path: `/v1/${collection}`, body: { data: id === undefined ? { n } : { id, n } } });
    expectAnsweredOrUnavailable(reply, `POST /v1/${collection}`);
    if (reply.status === 201) this.remember(collection, reply.body, n);
    else if (id !== undefined) this.refused.add(`/v1/${collection}/${id}`);
    return reply;
  }

  /** A batch of creates (with these ids, when given); each acknowledged sub-response is remembered. */
  async batchCreate(collection: string, size: number, ids?: readonly string[]): Promise<Reply> {
    const numbers = Array.from({ length: size }, () => this.number());
    const requests = numbers.map((n, i) => ({
      method: "POST",
      path: `/v1/${collection}`,
      body: { data: ids?.[i] === undefined ? { n } : { id: ids[i], n } },
    }));
    const reply = await this.send({ method: "POST", path: "/v1/batch", body: { requests } });
    expectAnsweredOrUnavailable(reply, "POST /v1/batch");
    if (reply.status === 200) {
      const responses = (reply.body as { responses: { status: number; body: unknown }[] }).responses;
      expect(responses.map((r) => r.status)).to.deep.equal(numbers.map(() => 201));
      responses.forEach((r, i) => this.remember(collection, r.body, numbers[i] ?? -1));
    } else {
      for (const id of ids ?? []) this.refused.add(`/v1/${collection}/${id}`);
    }
    return reply;
  }

  /**
   * One outage: `cut` brings the backend down while `traffic` runs (its requests may succeed or
   * get 503); then `probes` must all get 503 + Retry-After; then, once restored, `probe` must
   * succeed within RECOVERY_BOUND_MS.
   */
  async outage(options: {
    readonly proxy: TcpProxy;
    readonly cut: () => Promise<void>;
    readonly traffic: () => Promise<unknown>;
    readonly probes: readonly (() => Promise<Reply>)[];
    readonly recovered: () => Promise<Reply>;
    readonly isRecovered?: (reply: Reply) => boolean;
  }): Promise<void> {
    const { proxy } = options;
    const cut = options.cut();
    await options.traffic();
    await this.expectCut(cut);
    proxy.disarm();
    for (const probe of options.probes) {
      const reply = await probe();
      expect(reply.status, `answer while the backend is away: ${JSON.stringify(reply.body)}`).to.equal(503);
      expect(reply.retryAfter, "Retry-After while the backend is away").to.match(/^\d+$/);
    }
    await this.recovery(proxy, options.recovered, options.isRecovered);
  }

  /** Restores the proxy; `recovered` must then succeed within RECOVERY_BOUND_MS. */
  async recovery(
    proxy: TcpProxy,
    recovered: () => Promise<Reply>,
    isRecovered = (reply: Reply) => reply.status >= 200 && reply.status < 300,
  ): Promise<void> {
    await proxy.restore();
    const restoredAt = Date.now();
    for (let poll = 0; poll < MAX_RECOVERY_POLLS; poll++) {
      const reply = await recovered();
      if (isRecovered(reply)) return;
      expect(Date.now() - restoredAt, `still ${reply.status} ${RECOVERY_BOUND_MS} ms after the backend returned`).to.be.at.most(
        RECOVERY_BOUND_MS,
      );
      await pause(RECOVERY_POLL_PAUSE_MS);
    }
    expect.fail(`not recovered after ${MAX_RECOVERY_POLLS} polls`);
  }

  /** Waits (bounded) for an armed cut; fails when it did not fire. */
  async expectCut(cut: Promise<void>): Promise<void> {
    let cutDone = false;
    await Promise.race([cut.then(() => (cutDone = true)), pause(CUT_WAIT_MS)]);
    expect(cutDone, "the armed cut fired during the traffic").to.equal(true);
  }

  /** Every acknowledged write reads back with the payload it was written with. */
  async expectAllAcknowledgedPresent(): Promise<void> {
    expect(this.acknowledged.size).to.be.greaterThan(0);
    for (const [path, n] of this.acknowledged) {
      const reply = await this.send({ method: "GET", path });
      expect(reply.status, `GET ${path}`).to.equal(200);
      expect((reply.body as { data: { n: number } }).data.n, path).to.equal(n);
    }
  }

  private remember(collection: string, body: unknown, n: number): void {
    const id = (body as { data: { id: string } }).data.id;
    this.acknowledged.set(`/v1/${collection}/${id}`, n);
  }
}

/** Success, or an honest "come back later": never another 5xx, never a 4xx for a valid request. */
export function expectAnsweredOrUnavailable(reply: Reply, what: string): void {
  const ok = reply.status >= 200 && reply.status < 300;
  if (ok) return;
  expect(reply.status, `${what}: ${JSON.stringify(reply.body)}`).to.equal(503);
  expect(reply.retryAfter, `${what}: Retry-After on 503`).to.match(/^\d+$/);
}

/** PostgreSQL frontend messages that carry a statement: Parse, Bind, simple Query. */
export function isStatement(chunk: Buffer): boolean {
  const type = chunk[0];
  return type === 0x50 || type === 0x42 || type === 0x51;
}

/**
 * A trigger firing on the `nth` chunk (0: the BEGIN itself) a connection sends once it has sent
 * BEGIN: a cut at an exact step of a transaction.
 */
export function nthChunkOfTransaction(nth: number): (chunk: Buffer, connection: number) => boolean {
  const sent = new Map<number, number>();
  return (chunk, connection) => {
    if (!sent.has(connection) && chunk.includes("BEGIN")) sent.set(connection, 0);
    const count = sent.get(connection);
    if (count === undefined) return false;
    sent.set(connection, count + 1);
    return count === nth;
  };
}
