/**
 * The live feed read with fetch, not EventSource: EventSource cannot send an `Authorization`
 * header, and the page's credential is a header (a Basic credential held in memory, or a bearer
 * token). Server-Sent Events are parsed as the HTML standard says (any line ending, comments,
 * `id` without data sets the resume point only); the stream is reopened after a clean end or a
 * cut, from the last event id, and after `resync` from a fresh listing.
 */

export interface FeedEvent {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
}

/** Feeds decoded text in, calls `dispatch` once per complete event; keeps `lastEventId` as the standard does. */
export class EventParser {
  lastEventId: string | undefined;
  private buffer = "";
  private event = "";
  private data: string[] = [];

  constructor(private readonly dispatch: (event: FeedEvent) => void) {}

  push(text: string): void {
    this.buffer += text;
    // A trailing "\r" may be the first half of "\r\n": kept for the next chunk.
    for (let match = /\r\n|\r(?!$)|\n/.exec(this.buffer); match; match = /\r\n|\r(?!$)|\n/.exec(this.buffer)) {
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === "") {
      if (this.data.length > 0) this.dispatch({ id: this.lastEventId, event: this.event || "message", data: this.data.join("\n") });
      this.event = "";
      this.data = [];
      return;
    }
    if (line.startsWith(":")) return; // a comment: keep-alive, connected, live
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (name === "event") this.event = value;
    else if (name === "data") this.data.push(value);
    else if (name === "id" && !value.includes("\0")) this.lastEventId = value;
  }
}

export interface FollowOptions {
  /** Collection URL with the listing's filters and `_since` (the listing's ETag). */
  readonly url: string;
  readonly authorization: () => string;
  readonly onEvent: (event: FeedEvent) => void;
  /** After `event: resync`: re-read the listing; resolves to the `_since` to resume from. */
  readonly onResync: () => Promise<string | undefined>;
  /** A stream is open (true), or is being (re)opened (false). */
  readonly onOpen: (open: boolean) => void;
  /** The feed refused the credential or the request (4xx other than 429): it is not retried. */
  readonly onRefused: (status: number) => void;
}

const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 30_000;

/** Follows the feed until `stop()`; one stream at a time. */
export class FollowedFeed {
  private readonly controller = new AbortController();
  private lastEventId: string | undefined;
  private url: string;

  constructor(private readonly options: FollowOptions) {
    this.url = options.url;
    void this.run();
  }

  stop(): void {
    this.controller.abort();
  }

  private get stopped(): boolean {
    return this.controller.signal.aborted;
  }

  private async run(): Promise<void> {
    let retry = FIRST_RETRY_MS;
    while (!this.stopped) {
      let wait = retry;
      try {
        const outcome = await this.once();
        if (outcome.kind === "refused") {
          this.options.onRefused(outcome.status);
          return;
        }
        if (outcome.kind === "resync") {
          const since = await this.options.onResync();
          const url = new URL(this.url, location.href);
          if (since === undefined) url.searchParams.delete("_since");
          else url.searchParams.set("_since", since);
          this.url = url.toString();
          this.lastEventId = undefined;
        }
        if (outcome.kind === "busy") wait = outcome.retryAfterMs;
        else retry = FIRST_RETRY_MS; // a clean end or a resync: reopen soon
      } catch {
        // a cut connection or a network error: retried below, more slowly each time
      }
      if (this.stopped) return;
      this.options.onOpen(false);
      await new Promise((resolve) => setTimeout(resolve, wait));
      retry = Math.min(retry * 2, LAST_RETRY_MS);
    }
  }

  private async once(): Promise<
    { kind: "ended" } | { kind: "resync" } | { kind: "refused"; status: number } | { kind: "busy"; retryAfterMs: number }
  > {
    const headers: Record<string, string> = { Accept: "text/event-stream", Authorization: this.options.authorization() };
    if (this.lastEventId !== undefined) headers["Last-Event-ID"] = this.lastEventId;
    const response = await fetch(this.url, { headers, signal: this.controller.signal, cache: "no-store" });
    if (response.status === 429 || response.status >= 500) {
      await response.body?.cancel();
      const seconds = Number(response.headers.get("Retry-After"));
      return { kind: "busy", retryAfterMs: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : LAST_RETRY_MS };
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      return { kind: "refused", status: response.status };
    }
    this.options.onOpen(true);
    let resync = false;
    const parser = new EventParser((event) => {
      if (event.event === "resync") resync = true;
      else if (!resync) this.options.onEvent(event);
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { done, value } = await reader.read(); // throws when the connection is cut or stop() aborts
      if (value !== undefined) parser.push(value);
      this.lastEventId = parser.lastEventId ?? this.lastEventId;
      if (resync) {
        await reader.cancel();
        return { kind: "resync" };
      }
      if (done) return { kind: "ended" };
    }
  }
}
