/**
 * The open listing follows its collection's live feed, with the listing's filters and from its
 * ETag: a deletion (or a record no longer shared with you: the feed sends it as a tombstone)
 * leaves the table at once; any change re-reads the page, so that sort, filters and page size
 * stay the service's. A burst of changes costs one re-read.
 */
import { isObject, type Json } from "./api.js";
import { element } from "./dom.js";
import { FollowedFeed, type FeedEvent } from "./feed.js";

/** Pause before re-reading the page after a feed event, so that a burst of changes costs one read. */
const REFRESH_DELAY_MS = 50;

export interface LiveListingOptions {
  readonly collection: string;
  /** The listing's query; its `_` parameters (sort, limit, token) are the page's, not the feed's. */
  readonly query: string;
  /** The listing's ETag: the feed replays what changed after it. */
  readonly since: string | undefined;
  readonly authorization: string;
  /** Re-reads and shows the page; resolves to its ETag. */
  readonly reread: () => Promise<string | undefined>;
  readonly failed: (error: unknown) => void;
  /** The feed refused the credentials (expired, revoked). */
  readonly unauthorized: () => void;
}

export class LiveListing {
  private readonly feed: FollowedFeed;
  private refresh = { running: false, again: false };
  private stopped = false;

  constructor(private readonly options: LiveListingOptions) {
    const url = new URL(`/v1/${options.collection}`, location.href);
    for (const [name, value] of new URLSearchParams(options.query)) if (!name.startsWith("_")) url.searchParams.append(name, value);
    if (options.since !== undefined) url.searchParams.set("_since", options.since);
    const state = element("live-state");
    state.textContent = "· connecting to the live feed…";
    this.feed = new FollowedFeed({
      url: url.toString(),
      authorization: () => options.authorization,
      onEvent: (event) => this.changed(event),
      onResync: () => options.reread().catch(() => undefined),
      onOpen: (open) => {
        if (!this.stopped) state.textContent = open ? "· live" : "· reconnecting to the live feed…";
      },
      onRefused: (status) => {
        if (this.stopped) return;
        state.textContent = `· not live (${status})`;
        if (status === 401) options.unauthorized();
      },
    });
  }

  stop(): void {
    this.stopped = true;
    this.feed.stop();
    element("live-state").textContent = "";
  }

  private changed(event: FeedEvent): void {
    if (this.stopped) return;
    let data: Json;
    try {
      data = JSON.parse(event.data) as Json;
    } catch {
      return;
    }
    if (isObject(data) && data.deleted === true && typeof data.id === "string")
      for (const row of element("records").querySelectorAll<HTMLTableRowElement>("tbody tr")) if (row.dataset.id === data.id) row.remove();
    this.scheduleRefresh();
  }

  /** One re-read at a time; changes arriving during one cause one more after it. */
  private scheduleRefresh(): void {
    if (this.refresh.running) {
      this.refresh.again = true;
      return;
    }
    this.refresh = { running: true, again: false };
    setTimeout(() => {
      void this.options
        .reread()
        .catch((error: unknown) => this.options.failed(error))
        .finally(() => {
          const again = this.refresh.again;
          this.refresh = { running: false, again: false };
          if (again && !this.stopped) this.scheduleRefresh();
        });
    }, REFRESH_DELAY_MS);
  }
}
