/**
 * Sync clients polling a collection with `_since`, without pause but a few milliseconds: the
 * steady traffic of a busy service. From the test's own process they share its
 * HTTP connection pool with the npm `eventsource` subscribers, as a browser app's requests share
 * one pool per origin with its EventSource: so when a process stops, some request is in flight on
 * it, its connection outlives the stop for a while, and a reconnecting stream may be sent there.
 * Failures are counted, never fatal (a process may be down).
 */

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class SyncPollers {
  private running = true;
  private polls = 0;
  /** Why polls failed, counted: a status, or a network error's code. */
  private readonly failures: Record<string, number> = {};
  private readonly loops: Promise<void>[];

  /** One loop per URL of `urls` (read at each poll: a restarted process keeps its URL). */
  constructor(urls: () => readonly string[], collection: string, credentials: string, pauseMs = 5) {
    const authorization = `Basic ${Buffer.from(credentials).toString("base64")}`;
    this.loops = urls().map((_, index) => this.loop(() => `${urls()[index]}/v1/${collection}`, authorization, pauseMs));
  }

  /** Polls answered (any status), and why the failed ones failed. */
  async stop(): Promise<{ polls: number; failures: Readonly<Record<string, number>> }> {
    this.running = false;
    await Promise.all(this.loops);
    return { polls: this.polls, failures: { ...this.failures } };
  }

  private failed(why: string): void {
    this.failures[why] = (this.failures[why] ?? 0) + 1;
  }

  private async loop(collectionUrl: () => string, authorization: string, pauseMs: number): Promise<void> {
    let since = "0";
    while (this.running) {
      try {
        const response = await fetch(`${collectionUrl()}?_since=${since}`, { headers: { Authorization: authorization } });
        await response.arrayBuffer();
        const etag = response.headers.get("etag")?.replaceAll('"', "");
        if (response.status === 200 && etag) since = etag;
        else this.failed(String(response.status));
        this.polls += 1;
      } catch (error) {
        this.failed((error instanceof Error ? (error.cause as { code?: string } | undefined)?.code : undefined) ?? "network error");
        await pause(20);
      }
      await pause(pauseMs);
    }
  }
}
