/**
 * W8A's lost-access check: given what each stream received during a run in which some users were
 * taken out of the group that shared every record with them, whether exactly they got a `delete`
 * for each record written before their removal and nothing after it, and everyone else every
 * record and no `delete`.
 */
import type { StreamRecord } from "./fan-out-subscribers.js";

export interface RevokeFacts {
  /** Each stream's user principal, in the order of the streams. */
  readonly principals: readonly string[];
  readonly removed: ReadonlySet<string>;
  /** Records whose write was answered before the removal was sent: each removed user lost them. */
  readonly lost: readonly string[];
  /** Every record written on this server. */
  readonly written: ReadonlySet<string>;
  /** Writes answered in the run (each owed to every kept stream). */
  readonly writes: number;
  readonly removalSent: number;
}

export interface RevokeVerdict {
  readonly removedExact: number;
  readonly missingDeletes: number;
  /** `delete` events for records never written, or twice for one record. */
  readonly strayDeletes: number;
  readonly eventsAfterDelete: number;
  readonly keptExact: number;
  readonly keptDeletes: number;
  readonly keptMissing: number;
  /** Streams told to resync; streams the server ended otherwise (a reset, a lapse). */
  readonly resyncStreams: number;
  readonly closedStreams: number;
  /** What the streams still open have not received yet (deletes and records): 0 once all arrived. */
  readonly stillOwed: number;
  /** From the removal sent to the last `delete` received. */
  readonly lastDeleteMs: number;
  readonly exact: boolean;
}

export function judgeRevoke(streams: readonly StreamRecord[], facts: RevokeFacts): RevokeVerdict {
  let removedExact = 0;
  let missingDeletes = 0;
  let strayDeletes = 0;
  let eventsAfterDelete = 0;
  let lastDeleteMs = 0;
  let keptExact = 0;
  let keptDeletes = 0;
  let keptMissing = 0;
  let resyncStreams = 0;
  let closedStreams = 0;
  let stillOwed = 0;
  streams.forEach((stream, i) => {
    const ended = stream.resync || stream.closed;
    if (stream.resync) resyncStreams += 1;
    else if (stream.closed) closedStreams += 1;
    if (facts.removed.has(facts.principals[i] ?? "")) {
      const deleted = new Set(stream.deletes);
      const missing = facts.lost.filter((id) => !deleted.has(id)).length;
      const stray = stream.deletes.length - deleted.size + [...deleted].filter((id) => !facts.written.has(id)).length;
      missingDeletes += missing;
      if (!ended) stillOwed += missing;
      strayDeletes += stray;
      eventsAfterDelete += stream.afterDelete;
      if (stream.lastDeleteAt > 0) lastDeleteMs = Math.max(lastDeleteMs, stream.lastDeleteAt - facts.removalSent);
      if (missing === 0 && stray === 0 && stream.afterDelete === 0 && !ended) removedExact += 1;
    } else {
      keptDeletes += stream.deletes.length;
      keptMissing += Math.max(0, facts.writes - stream.creates);
      if (!ended) stillOwed += Math.max(0, facts.writes - stream.creates);
      if (stream.deletes.length === 0 && stream.creates === facts.writes && !ended) keptExact += 1;
    }
  });
  const exact = removedExact === facts.removed.size && keptExact === streams.length - facts.removed.size;
  return {
    removedExact,
    missingDeletes,
    strayDeletes,
    eventsAfterDelete,
    keptExact,
    keptDeletes,
    keptMissing,
    resyncStreams,
    closedStreams,
    stillOwed,
    lastDeleteMs,
    exact,
  };
}
