/**
 * Kinto config files read as they are: the `kinto.` prefix, Kinto's backend module names and its
 * spelling of a few settings are accepted where the setting means the same here; every other
 * `kinto.` setting is named at startup (a Kinto feature silently ignored would surprise).
 */
import type { JsonValue } from "../domain/json.js";
import { SETTINGS, type SettingRow } from "./settings-table.js";

export const KINTO_PREFIX = "kinto.";

/** Kinto's backend modules (kinto-redis for Redis) → our backend names. */
const BACKEND_MODULES: Readonly<Record<string, string>> = {
  "kinto.core.storage.memory": "memory",
  "kinto.core.storage.postgresql": "postgresql",
  "kinto.core.permission.memory": "memory",
  "kinto.core.permission.postgresql": "postgresql",
  "kinto_redis.permission": "redis",
  "kinto.core.cache.memory": "memory",
  "kinto.core.cache.postgresql": "postgresql",
  "kinto_redis.cache": "redis",
};

/** Settings Kinto spells differently (Kinto's name → ours), from the settings table's `kinto` column. */
const RENAMED: ReadonlyMap<string, string> = new Map(
  Object.entries(SETTINGS as Record<string, SettingRow<unknown>>).flatMap(([name, row]) =>
    row.kinto === undefined ? [] : [[row.kinto, name] as const],
  ),
);

export function fromKintoName(name: string): string {
  return RENAMED.get(name) ?? name;
}

/** A `*_backend` value, Kinto's module name replaced by ours. */
export function fromKintoBackend(value: JsonValue | undefined): JsonValue | undefined {
  return typeof value === "string" ? (BACKEND_MODULES[value] ?? value) : value;
}

/** One problem per `kinto.` setting (`kintoKeys`: our name → the key as written) that means nothing here. */
export function unsupportedKintoSettings(kintoKeys: ReadonlyMap<string, string>, supported: (name: string) => boolean): string[] {
  return [...kintoKeys]
    .filter(([name]) => !supported(name))
    .map(([, key]) => `${key}: this Kinto setting is not supported by Tessera (remove it)`);
}
