import type { BackendRequest, OpenedBackends } from "./backends.js";
import type { Clock } from "../application/ports/clock.js";

// TEMPORARY until the Redis adapters land (wired in this file).
export function openRedisBackends(_request: BackendRequest, _clock: Clock): Promise<OpenedBackends> {
  return Promise.reject(new Error("redis backends are not wired yet"));
}
