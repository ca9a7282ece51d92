/** Maps pg driver failures to domain errors at the adapter's edge. */
import { BackendError, ConflictError, TesseraError, ValidationError } from "../../domain/errors.js";

export type PostgresBackendName = "storage" | "permission" | "cache";

const UNIQUE_VIOLATION = "23505";
// JSONB refuses "\u0000" in strings (22P05); text refuses a NUL byte (22021). Bad input, not an outage.
const UNSTORABLE_TEXT = new Set(["22P05", "22021"]);

function sqlState(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null || !("code" in err)) return undefined;
  const code = err.code;
  return typeof code === "string" ? code : undefined;
}

/** A string PostgreSQL cannot store (a NUL): bad input, answered 400. */
export function unstorableText(): ValidationError {
  return ValidationError.single("body", null, "strings may not contain the NUL character (\\u0000)");
}

/** Domain errors pass through; a unique violation is a conflict; anything else is a backend failure. */
export function toDomainError(backend: PostgresBackendName, err: unknown): Error {
  if (err instanceof TesseraError) return err;
  const state = sqlState(err);
  if (state === UNIQUE_VIOLATION) return new ConflictError(null);
  if (state !== undefined && UNSTORABLE_TEXT.has(state)) return unstorableText();
  return new BackendError(backend, err);
}
