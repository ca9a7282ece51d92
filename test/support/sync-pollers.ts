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
  private failed = 0;
  private readonly loops: Promise<void>[];

  /** One loop per URL of `urls` (read at each poll: a restarted process keeps its URL). */
  constructor(urls: () => readonly string[], collection: string, credentials: string, pauseMs = 5) {
    const authorization = `Basic ${Buffer.from(credentials).toString("base64")}`;
    this.loops = urls().map((_, index) => this.loop(() => `${urls()[index]}/v1/${collection}`, authorization, pauseMs));
  }

  async stop(): Promise<{ polls: number; failed: number }> {
    this.running = false;
    await Promise.all(this.loops);
    return { polls: this.polls, failed: this.failed };
  }

  private async loop(collectionUrl: () => string, authorization: string, pauseMs: number): Promise<void> {
    let since = "0";
    while (this.running) {
      try {
        const response = await fetch(`${collectionUrl()}?_since=${since}`, { headers: { Authorization: authorization } });
        await response.arrayBuffer();
        const etag = response.headers.get("etag")?.replaceAll('"', "");
        if (response.status === 200 && etag) since = etag;
        else this.failed += 1;
        this.polls += 1;
      } catch {
        this.failed += 1;
        await pause(20);
      }
      await pause(pauseMs);
    }
  }
}
