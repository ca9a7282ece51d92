/** Errors of the domain and application layers. They know nothing of HTTP; an adapter maps them. */
import type { JsonObject, JsonValue } from "./json.js";

export type ErrorLocation = "body" | "querystring" | "header" | "path";

export interface ValidationDetail {
  readonly location: ErrorLocation;
  readonly name: string | null;
  readonly description: string;
}

export abstract class TesseraError extends Error {
  override readonly name: string = this.constructor.name;
}

/** Bad input; `details` lists every problem found. */
export class ValidationError extends TesseraError {
  constructor(
    readonly details: readonly ValidationDetail[],
    message?: string,
  ) {
    super(message ?? summary(details));
  }

  static single(location: ErrorLocation, name: string | null, description: string): ValidationError {
    return new ValidationError([{ location, name, description }]);
  }
}

/**
 * The message of a validation error, the Kinto way: the first detail by name (no name sorts as
 * "None"), as its description when that already contains the name, else "<name> in <location>: …".
 */
function summary(details: readonly ValidationDetail[]): string {
  const [first] = [...details].sort((a, b) =>
    (a.name ?? "None") < (b.name ?? "None") ? -1 : (a.name ?? "None") > (b.name ?? "None") ? 1 : 0,
  );
  if (first === undefined) return "Invalid parameters";
  if (first.name === null) return `${first.location}: ${first.description}`;
  return first.description.includes(first.name) ? first.description : `${first.name} in ${first.location}: ${first.description}`;
}

/** The caller is anonymous and the action needs more. */
export class UnauthenticatedError extends TesseraError {
  constructor() {
    super("Please authenticate yourself to use this endpoint.");
  }
}

/** The caller is known and not allowed (`message`: why, where the reason is no secret). */
export class ForbiddenError extends TesseraError {
  constructor(message = "This user cannot access this resource.") {
    super(message);
  }
}

export class RecordNotFoundError extends TesseraError {
  constructor(
    readonly collection: string,
    readonly id: string,
  ) {
    super(`Record ${id} not found in ${collection}`);
  }
}

/** The object a tree URL goes through is missing (a records URL's collection): Kinto's 404 with errno 111. */
export class ParentNotFoundError extends RecordNotFoundError {}

/** A precondition (If-Match / If-None-Match) failed; `existing` is the current record, if any. */
export class PreconditionFailedError extends TesseraError {
  constructor(readonly existing: JsonObject | null) {
    super("Resource was modified meanwhile");
  }
}

/** A write conflicts with stored state; `existing` is the conflicting object. */
export class ConflictError extends TesseraError {
  constructor(
    readonly existing: JsonValue | null,
    message = "Conflict with an existing object",
  ) {
    super(message);
  }
}

/** The action is valid but the service refuses it by configuration (readonly, disabled endpoint). */
export class MethodNotAllowedError extends TesseraError {
  constructor(
    readonly allowed: readonly string[],
    message = "Method not allowed on this endpoint.",
  ) {
    super(message);
  }
}

/** A backend (storage, permission, cache) failed or is unreachable; `backend` names which. */
export class BackendError extends TesseraError {
  constructor(
    readonly backend: string,
    override readonly cause?: unknown,
    message?: string,
  ) {
    super(message ?? `The ${backend} backend is unavailable`);
  }
}

/** Not an error: a read whose `If-None-Match` matched; the adapter answers 304. */
export class NotModifiedError extends TesseraError {
  constructor(readonly timestamp: number) {
    super("Not modified");
  }
}

/**
 * A copy synced up to `since` cannot be brought up to date incrementally: the caller's access
 * changed at `timestamp` by more than is recorded record by record (a large group change,
 * docs/api.md "Sync"). The client drops its copy and syncs in full.
 */
export class ResyncRequiredError extends TesseraError {
  constructor(
    readonly since: number,
    readonly timestamp: number,
  ) {
    super("Too much of your access changed since this position: drop your copy and sync in full, without _since.");
  }
}
