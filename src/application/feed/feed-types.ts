/** What the live feed exchanges with its callers: the request, the events, and where they go. */
import type { JsonObject } from "../../domain/json.js";
import type { ChangeAction } from "../events.js";
import type { Filter } from "../listing.js";
import type { Requester } from "../requester.js";
import type { ResourceDefinition } from "../resources.js";

export interface FeedEvent {
  /** The entry's `last_modified`: what a client sends back as `Last-Event-ID`. */
  readonly id: number;
  readonly event: ChangeAction;
  /** The record as a listing shows it, or the tombstone `{id, last_modified, deleted: true}`. */
  readonly data: JsonObject;
}

/** Where a subscription's events go (an SSE stream). */
export interface FeedSink {
  /**
   * Queues events (in one write); false when the subscriber left too much unread (it is then
   * dropped). The same event objects go to every recipient: a sink may cache their encoding.
   */
  send(events: readonly FeedEvent[]): boolean;
  /** A keep-alive line; false as for send. */
  keepAlive(): boolean;
  /** The replay is over: what follows comes from the scope's shared reads (a comment clients ignore). */
  live(): boolean;
  end(): void;
  /** The subscriber's principals changed: an `event: resync` (resync in full), then the end of the stream. */
  resync(): void;
}

export interface FeedRequest {
  readonly requester: Requester;
  readonly resource: ResourceDefinition;
  /** The listing's filters, applied to records; deletions always pass. */
  readonly filters: readonly Filter[];
  /** Replay what changed after this timestamp first; undefined: only what changes from now on. */
  readonly since: number | undefined;
}
