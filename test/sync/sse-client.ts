/** A test client of the live feed: reads Server-Sent Events from a fetch stream. */
export interface SseEvent {
  id: string | undefined;
  event: string | undefined;
  data: Record<string, unknown>;
}

export class SseClient {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  /** Every `retry:` field, in order; `lastId` the last `id:` field, with or without an event (what EventSource resumes from). */
  readonly retries: number[] = [];
  lastId: string | undefined;
  ended = false;
  /** The stream ended as HTTP says a response ends (last chunk), not by a cut connection. */
  endedCleanly = false;
  private readonly controller = new AbortController();
  private reading: Promise<void> = Promise.resolve();

  private constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly body: unknown,
  ) {}

  static async open(url: string, options: { user?: string; headers?: Record<string, string> } = {}): Promise<SseClient> {
    const headers: Record<string, string> = { Accept: "text/event-stream", ...options.headers };
    if (options.user) headers.Authorization = `Basic ${Buffer.from(options.user).toString("base64")}`;
    const controller = new AbortController();
    const response = await fetch(url, { headers, signal: controller.signal });
    if (!response.headers.get("content-type")?.startsWith("text/event-stream")) {
      const text = await response.text();
      return new SseClient(response.status, response.headers, text ? (JSON.parse(text) as unknown) : undefined);
    }
    const client = new SseClient(response.status, response.headers, undefined);
    client.controller.signal.addEventListener("abort", () => controller.abort());
    client.reading = client.read(response);
    return client;
  }

  /** Waits (bounded) until `count` events arrived; returns them. */
  async waitFor(count: number, timeoutMs = 5000): Promise<SseEvent[]> {
    const deadline = Date.now() + timeoutMs;
    for (let i = 0; i < 10_000 && this.events.length < count && !this.ended && Date.now() < deadline; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    if (this.events.length < count) throw new Error(`expected ${count} events, got ${this.events.length}: ${JSON.stringify(this.events)}`);
    return this.events.slice(0, count);
  }

  async waitUntil(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (let i = 0; i < 10_000 && !predicate() && Date.now() < deadline; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    if (!predicate()) throw new Error("condition not reached");
  }

  async close(): Promise<void> {
    this.controller.abort();
    await this.reading.catch(() => undefined);
  }

  private async read(response: Response): Promise<void> {
    const reader = response.body?.getReader();
    if (!reader) return;
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          this.endedCleanly = true;
          break;
        }
        buffer += decoder.decode(value, { stream: true });
        let end = buffer.indexOf("\n\n");
        while (end >= 0) {
          this.parse(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf("\n\n");
        }
      }
    } catch {
      // aborted by close()
    } finally {
      this.ended = true;
    }
  }

  private parse(block: string): void {
    const event: Partial<SseEvent> = {};
    let data: string | undefined;
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) this.comments.push(line.slice(1).trim());
      else if (line.startsWith("id: ")) event.id = this.lastId = line.slice(4);
      else if (line.startsWith("retry: ")) this.retries.push(Number(line.slice(7)));
      else if (line.startsWith("event: ")) event.event = line.slice(7);
      else if (line.startsWith("data: ")) data = line.slice(6);
    }
    if (data !== undefined) this.events.push({ id: event.id, event: event.event, data: JSON.parse(data) as Record<string, unknown> });
  }
}
