/**
 * What the HTTP adapter knows about the request being served, reachable from any code it calls:
 * its request id and the time spent in backend calls (which bootstrap's port wrappers add to).
 * Batch sub-requests get a context of their own whose parent is the batch's.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";

export interface RequestContext {
  readonly requestId: string;
  /** Milliseconds spent in storage, permission and cache calls (overlapping calls add up). */
  backendMs: number;
  readonly parent: RequestContext | undefined;
  /**
   * Where the outermost request came from (read by a batch's sub-requests). Strings only: a context
   * is reachable from every promise of its request, and one holding the request's objects kept
   * them alive into V8's old generation (W1: 0.90 of the build before).
   */
  client?: ClientAddressSource;
}

/** A client address computed on first use. */
export interface ClientAddressSource {
  readonly address: string;
}

const contexts = new AsyncLocalStorage<RequestContext>();

export const REQUEST_ID_HEADER = "X-Request-Id";
/** What a proxy's id may look like: bounded, and nothing that could forge a log line or header. */
const ACCEPTED_ID = /^[A-Za-z0-9._~:@+/=-]{1,128}$/;

/** The client's id when it is acceptable, else a fresh one. */
export function requestIdFrom(header: string | undefined): string {
  return header !== undefined && ACCEPTED_ID.test(header) ? header : randomUUID();
}

export function currentRequest(): RequestContext | undefined {
  return contexts.getStore();
}

/** Runs `work` as the request `requestId`, nested in the current request if there is one. */
export function runInRequest<T>(requestId: string, work: (context: RequestContext) => Promise<T>): Promise<T> {
  const context: RequestContext = { requestId, backendMs: 0, parent: contexts.getStore() };
  return contexts.run(context, () => work(context));
}

/** Adds backend time to the current request and to the batch around it. */
export function addBackendTime(ms: number): void {
  for (let context = contexts.getStore(); context; context = context.parent) context.backendMs += ms;
}
