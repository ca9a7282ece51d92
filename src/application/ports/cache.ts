import type { JsonValue } from "../../domain/json.js";

/**
 * A key-value cache with expiry. Keys are strings, values JSON. Adapters keep their keys under
 * their own prefix and wrap driver failures in BackendError("cache").
 */
export interface Cache {
  /** Creates tables if the backend needs them; idempotent. */
  initializeSchema(): Promise<void>;

  /** The value, or undefined when missing or expired. */
  get(key: string): Promise<JsonValue | undefined>;

  /** Stores the value for `ttlSeconds` (> 0; fractions allowed), replacing any previous one. */
  set(key: string, value: JsonValue, ttlSeconds: number): Promise<void>;

  /** Sets a new time to live on an existing key; a no-op when missing. */
  expire(key: string, ttlSeconds: number): Promise<void>;

  /**
   * Adds `by` (an integer, may be negative) to the integer at `key` and returns the new value, atomically
   * across every process sharing the backend. A missing or expired key (or one holding a non-integer)
   * starts from 0 and lives `ttlSeconds` (> 0, fractions allowed) from now; an existing key keeps its expiry.
   */
  increment(key: string, by: number, ttlSeconds: number): Promise<number>;

  /** Seconds left before the key expires (fractions allowed), or a negative number when missing. */
  ttl(key: string): Promise<number>;

  /** Removes the key; returns its value, or undefined when it was missing. */
  delete(key: string): Promise<JsonValue | undefined>;

  /** Removes every key of this cache (only under its prefix). */
  flush(): Promise<void>;

  heartbeat(): Promise<boolean>;

  close(): Promise<void>;
}
