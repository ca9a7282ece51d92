/** Maps pg driver failures to domain errors at the adapter's edge. */
import { BackendError, ConflictError, TesseraError } from "../../domain/errors.js";

export type PostgresBackendName = "storage" | "permission" | "cache";

const UNIQUE_VIOLATION = "23505";

function sqlState(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null || !("code" in err)) return undefined;
  const code = err.code;
  return typeof code === "string" ? code : undefined;
}

/** Domain errors pass through; a unique violation is a conflict; anything else is a backend failure. */
export function toDomainError(backend: PostgresBackendName, err: unknown): Error {
  if (err instanceof TesseraError) return err;
  if (sqlState(err) === UNIQUE_VIOLATION) return new ConflictError(null);
  return new BackendError(backend, err);
}
