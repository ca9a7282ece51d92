/** Records, tombstones, ids and the data-level transitions of spec §3 and api-contract §2. */
import { isJsonObject, type JsonObject, type JsonValue } from "./json.js";

/** A live record: its own fields in `data` (never `id` or `last_modified`). */
export interface StoredRecord {
  readonly id: string;
  readonly lastModified: number;
  readonly data: JsonObject;
  readonly deleted?: false;
}

/** What a deleted record leaves behind until purged. */
export interface Tombstone {
  readonly id: string;
  readonly lastModified: number;
  readonly deleted: true;
}

export type RecordOrTombstone = StoredRecord | Tombstone;

export const MAX_ID_LENGTH = 255;
const ID_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_-]*$/;

export function isValidRecordId(id: unknown): id is string {
  return typeof id === "string" && id.length <= MAX_ID_LENGTH && ID_PATTERN.test(id);
}

/** The record as the API shows it: data fields plus `id` and `last_modified`. */
export function recordBody(record: StoredRecord): JsonObject {
  return { ...record.data, id: record.id, last_modified: record.lastModified };
}

export function tombstoneBody(tombstone: Tombstone): JsonObject {
  return { id: tombstone.id, last_modified: tombstone.lastModified, deleted: true };
}

export function bodyOf(entry: RecordOrTombstone): JsonObject {
  return entry.deleted ? tombstoneBody(entry) : recordBody(entry);
}

/** Client data without the managed fields, and the client's `last_modified` when it is an integer. */
export function splitManagedFields(data: JsonObject): { fields: JsonObject; lastModified: number | undefined } {
  const { id: _id, last_modified: lastModified, ...fields } = data;
  return {
    fields,
    lastModified: Number.isSafeInteger(lastModified) && (lastModified as number) >= 0 ? (lastModified as number) : undefined,
  };
}

/** PATCH with `application/json`: top-level keys replace stored ones, `null` included. */
export function shallowPatch(stored: JsonObject, changes: JsonObject): JsonObject {
  return { ...stored, ...changes };
}

/** PATCH with `application/merge-patch+json` (RFC 7396): recursive merge, `null` removes. */
export function mergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isJsonObject(patch)) return patch;
  const result: JsonObject = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** Timestamp of a new write: strictly above the collection's, honouring a newer client value. */
export function nextTimestamp(collectionTimestamp: number, now: number, requested?: number): number {
  if (requested !== undefined && requested > collectionTimestamp) return requested;
  return Math.max(now, collectionTimestamp + 1);
}
