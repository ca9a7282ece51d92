/** `If-Match` / `If-None-Match` evaluated against a record or a collection (api-contract §7). */
import { NotModifiedError, PreconditionFailedError } from "../domain/errors.js";
import { recordBody, type StoredRecord } from "../domain/records.js";

/** A timestamp, `*` (any), or absent. */
export type ETagCondition = number | "*" | undefined;

export interface Preconditions {
  readonly ifMatch?: ETagCondition;
  readonly ifNoneMatch?: ETagCondition;
}

export interface PreconditionTarget {
  /** The current timestamp, undefined when the target does not exist. */
  readonly timestamp: number | undefined;
  /** The current record, whose body a 412 shows as `details.existing` (built only then). */
  readonly record?: StoredRecord;
}

/**
 * Throws PreconditionFailedError (412) or, for reads, NotModifiedError (304).
 * `If-None-Match: "<ts>"` only matters on reads.
 */
export function checkPreconditions(preconditions: Preconditions, target: PreconditionTarget, isRead: boolean): void {
  const { ifMatch, ifNoneMatch } = preconditions;
  if (ifMatch === undefined && ifNoneMatch === undefined) return;
  const exists = target.timestamp !== undefined;
  const failed = () => new PreconditionFailedError(target.record ? recordBody(target.record) : null);
  if (ifNoneMatch === "*" && exists) throw failed();
  if (typeof ifNoneMatch === "number" && isRead && target.timestamp === ifNoneMatch) throw new NotModifiedError(ifNoneMatch);
  if (ifMatch === "*" && !exists) throw failed();
  if (typeof ifMatch === "number" && target.timestamp !== ifMatch) throw failed();
}
