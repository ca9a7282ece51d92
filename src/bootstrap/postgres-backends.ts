import type { BackendRequest, OpenedBackends } from "./backends.js";
import type { Clock } from "../application/ports/clock.js";

// TEMPORARY until the PostgreSQL adapters land (wired in this file).
export function openPostgresBackends(_request: BackendRequest, _clock: Clock): Promise<OpenedBackends> {
  return Promise.reject(new Error("postgresql backends are not wired yet"));
}
