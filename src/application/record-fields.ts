/** Reading a (dotted) field of a record or tombstone, as filters and sorting see it. */
import { isJsonObject, type JsonValue } from "../domain/json.js";
import type { RecordOrTombstone } from "../domain/records.js";
import { ID_FIELD, MODIFIED_FIELD } from "./listing.js";

/** The value at `field`, or undefined when missing. Tombstones have only id, last_modified, deleted. */
export function fieldValue(entry: RecordOrTombstone, field: string): JsonValue | undefined {
  if (field === ID_FIELD) return entry.id;
  if (field === MODIFIED_FIELD) return entry.lastModified;
  if (entry.deleted) return field === "deleted" ? true : undefined;
  let current: JsonValue | undefined = entry.data;
  for (const part of field.split(".")) {
    if (!isJsonObject(current) || !Object.hasOwn(current, part)) return undefined;
    current = current[part];
  }
  return current;
}
