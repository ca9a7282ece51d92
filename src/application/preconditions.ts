/** `If-Match` / `If-None-Match` evaluated against a record or a collection (api-contract §7). */
import { NotModifiedError, PreconditionFailedError } from "../domain/errors.js";
import type { JsonObject } from "../domain/json.js";

/** A timestamp, `*` (any), or absent. */
export type ETagCondition = number | "*" | undefined;

export interface Preconditions {
  readonly ifMatch?: ETagCondition;
  readonly ifNoneMatch?: ETagCondition;
}

export interface PreconditionTarget {
  /** The current timestamp, undefined when the target does not exist. */
  readonly timestamp: number | undefined;
  /** What a 412 shows as `details.existing`. */
  readonly existing: JsonObject | null;
}

/**
 * Throws PreconditionFailedError (412) or, for reads, NotModifiedError (304).
 * `If-None-Match: "<ts>"` only matters on reads.
 */
export function checkPreconditions(preconditions: Preconditions, target: PreconditionTarget, isRead: boolean): void {
  const { ifMatch, ifNoneMatch } = preconditions;
  const exists = target.timestamp !== undefined;
  if (ifNoneMatch === "*" && exists) throw new PreconditionFailedError(target.existing);
  if (typeof ifNoneMatch === "number" && isRead && target.timestamp === ifNoneMatch) throw new NotModifiedError(ifNoneMatch);
  if (ifMatch === "*" && !exists) throw new PreconditionFailedError(target.existing);
  if (typeof ifMatch === "number" && target.timestamp !== ifMatch) throw new PreconditionFailedError(target.existing);
}
