/**
 * Tells every serving process (this one included) that a scope changed, so that their live-feed
 * subscribers read the change back under their own permissions. A signal carries no record data:
 * the scope, the new timestamp, and for a single-record write its id and action (so that the
 * feed can say `create` rather than `update`).
 */
import type { ChangeAction } from "../events.js";

export interface ChangeSignal {
  readonly collection: string;
  readonly parentId: string;
  readonly timestamp: number;
  readonly id?: string;
  readonly action?: ChangeAction;
}

/** Every subscriber of every scope should look again: signals may have been missed (reconnection). */
export const EVERY_SCOPE = "*";

/**
 * Not a scope: the members of principal `parentId` changed (a user id: that user's principals).
 * Streams of callers holding it end with `resync` (LiveFeed). No collection is named so.
 */
export const PRINCIPALS_CHANGED = "*principals";

export interface ChangeBroadcast {
  /** Sends to every process; adapters report failures by rejecting (the caller logs them). */
  publish(signal: ChangeSignal): Promise<void>;
  /**
   * Listener called for each signal received; a signal with collection EVERY_SCOPE concerns all.
   * `onError` hears about trouble the adapter recovers from by itself (a lost connection).
   */
  subscribe(listener: (signal: ChangeSignal) => void, onError?: (error: unknown) => void): () => void;
  /**
   * Declares that this process has subscribers for `scope` until the returned function is
   * called: an adapter that can miss signals (a NOTIFY lost after its commit) checks the watched
   * scopes' timestamps periodically and signals the changes it did not hear of. Optional: in one
   * process nothing is missed.
   */
  watch?(scope: { readonly collection: string; readonly parentId: string }): () => void;
  /** Resolves once listening was attempted (success or not: a failed attempt is retried alone). */
  ready(): Promise<void>;
  close(): Promise<void>;
}
