/** How records, lists and timestamps are written into Koa responses. */
import type { Context } from "koa";
import { isJsonObject, type JsonObject } from "../../domain/json.js";
import { bodyOf, recordBody, type RecordOrTombstone } from "../../domain/records.js";
import type { RecordResult } from "../../application/record-service.js";
import { JsonTextRecord } from "../../domain/json-text-record.js";
import { JsonText } from "./json-text.js";

// The last timestamp formatted: reads of an unchanged record or collection reuse it.
let lastFormatted = { timestamp: NaN, date: "" };

/** `ETag: "<ts>"` and `Last-Modified` as an HTTP date. */
export function setTimestampHeaders(ctx: Context, timestamp: number): void {
  if (lastFormatted.timestamp !== timestamp) lastFormatted = { timestamp, date: new Date(timestamp).toUTCString() };
  ctx.set("ETag", `"${timestamp}"`);
  ctx.set("Last-Modified", lastFormatted.date);
}

export function respondWithRecord(ctx: Context, status: number, result: RecordResult, fields?: readonly string[]): void {
  setTimestampHeaders(ctx, result.record.lastModified);
  const data = recordBody(result.record);
  const body: JsonObject = { data: fields ? project(data, fields) : data };
  if (result.permissions !== undefined) {
    body.permissions = Object.fromEntries(Object.entries(result.permissions).map(([perm, principals]) => [perm, [...principals]]));
  }
  ctx.status = status;
  ctx.body = body;
}

export function respondWithList(ctx: Context, entries: readonly RecordOrTombstone[], fields?: readonly string[]): void {
  ctx.status = 200;
  ctx.body = fields
    ? { data: entries.map((e) => project(bodyOf(e), fields)) }
    : new JsonText(`{"data":[${entries.map(entryJson).join(",")}]}`);
}

/** An entry as JSON text: records read as text keep it, the others are serialised. */
function entryJson(entry: RecordOrTombstone): string {
  return JsonTextRecord.bodyJson(entry) ?? JSON.stringify(bodyOf(entry));
}

/** `_fields`: only the named (dotted) fields, plus `id`, `last_modified` and `deleted`. */
export function project(body: JsonObject, fields: readonly string[]): JsonObject {
  const result: JsonObject = { id: body.id ?? null, last_modified: body.last_modified ?? null };
  if (body.deleted !== undefined) result.deleted = body.deleted;
  for (const field of fields) copyPath(body, result, field.split("."));
  return result;
}

function copyPath(source: JsonObject, target: JsonObject, path: readonly string[]): void {
  const [head, ...rest] = path;
  const value = head === undefined ? undefined : source[head];
  if (head === undefined || value === undefined || !Object.hasOwn(source, head)) return;
  if (rest.length === 0) {
    target[head] = value;
    return;
  }
  if (!isJsonObject(value)) return;
  const child = isJsonObject(target[head]) ? target[head] : {};
  copyPath(value, child, rest);
  if (Object.keys(child).length > 0) target[head] = child;
}
