/**
 * Events about committed writes (Kinto's `ResourceChanged`): extensions register listeners, and
 * the live feed is built on them. A listener that throws (or rejects) is reported to the error
 * sink and never fails the request nor stops the other listeners.
 */
import type { StoredRecord, Tombstone } from "../domain/records.js";
import type { Scope } from "./ports/record-store.js";
import type { UnitOfWork } from "./ports/unit-of-work.js";

export type ChangeAction = "create" | "update" | "delete";

/** One record a write changed: what it was before (undefined for a creation) and after. */
export interface ImpactedRecord {
  readonly old?: StoredRecord;
  readonly new: StoredRecord | Tombstone;
}

export interface ResourceChanged {
  readonly action: ChangeAction;
  /** The resource name; `parentId` is the owner for user resources, "" for shareable ones. */
  readonly collection: string;
  readonly parentId: string;
  /** The newest `last_modified` the write gave (the collection timestamp after it). */
  readonly timestamp: number;
  readonly impacted: readonly ImpactedRecord[];
  /** Who asked; undefined when the change did not come from a request (ACL change by code). */
  readonly userId: string | undefined;
}

/**
 * A scope got a new timestamp through something other than a record write of the API (an ACL
 * change made through the permission backend's port): its readers' views may have changed.
 */
export interface ScopeTouched {
  readonly scope: Scope;
  readonly timestamp: number;
}

export type ResourceListener = (event: ResourceChanged) => void | Promise<void>;
export type ScopeListener = (event: ScopeTouched) => void;
/** Awaited by the change: a rejection fails it (its effect stays; add and remove are idempotent, so it may be retried). */
/**
 * `since`: below every timestamp at which the change was recorded as lost or gained access (a
 * stream following the change replays from there at the latest); undefined when none was.
 */
export type PrincipalsListener = (principal: string, since: number | undefined) => Promise<void>;
export type ListenerErrorSink = (error: unknown, event: ResourceChanged | ScopeTouched) => void;

/** Delivers events to listeners, one after the other, isolating their failures. */
export class ChangeEvents {
  private readonly resourceListeners = new Set<ResourceListener>();
  private readonly scopeListeners = new Set<ScopeListener>();
  private readonly principalsListeners = new Set<PrincipalsListener>();

  constructor(private readonly onListenerError: ListenerErrorSink) {}

  /** Returns the function that removes the listener. */
  onResourceChanged(listener: ResourceListener): () => void {
    this.resourceListeners.add(listener);
    return () => this.resourceListeners.delete(listener);
  }

  onScopeTouched(listener: ScopeListener): () => void {
    this.scopeListeners.add(listener);
    return () => this.scopeListeners.delete(listener);
  }

  /** Told after the members of `principal` changed (a user id: that user's own principals). */
  onPrincipalsChanged(listener: PrincipalsListener): () => void {
    this.principalsListeners.add(listener);
    return () => this.principalsListeners.delete(listener);
  }

  /** Not isolated: the change waits for every listener and fails with the first failure. */
  async publishPrincipalsChanged(principal: string, since?: number): Promise<void> {
    await Promise.all([...this.principalsListeners].map((listener) => listener(principal, since)));
  }

  publishResourceChanged(event: ResourceChanged): void {
    for (const listener of [...this.resourceListeners]) {
      try {
        const outcome = listener(event);
        if (outcome instanceof Promise) outcome.catch((error: unknown) => this.onListenerError(error, event));
      } catch (error) {
        this.onListenerError(error, event);
      }
    }
  }

  publishScopeTouched(event: ScopeTouched): void {
    for (const listener of [...this.scopeListeners]) {
      try {
        listener(event);
      } catch (error) {
        this.onListenerError(error, event);
      }
    }
  }
}

/** Publishes an event once the unit of work it was written in has committed. */
export class CommittedChanges {
  constructor(
    private readonly events: ChangeEvents,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  resourceChanged(event: ResourceChanged): void {
    this.unitOfWork.afterCommit(() => this.events.publishResourceChanged(event));
  }

  scopeTouched(event: ScopeTouched): void {
    this.unitOfWork.afterCommit(() => this.events.publishScopeTouched(event));
  }
}
