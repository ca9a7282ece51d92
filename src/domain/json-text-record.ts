/**
 * A record whose data a store already holds as JSON text (a database's `jsonb` read as text). Its
 * data is parsed only when something reads it, and a listing can put the text into its answer as
 * it is: a page of records then costs no parse, no copy and no serialisation per record.
 */
import type { JsonObject } from "./json.js";
import type { RecordOrTombstone, StoredRecord } from "./records.js";

export class JsonTextRecord implements StoredRecord {
  // `data` is an own enumerable accessor, so that spreads, JSON.stringify and deep equality see a plain field.
  static readonly #data = {
    enumerable: true,
    get(this: JsonTextRecord): JsonObject {
      return (this.#parsed ??= JSON.parse(this.#json) as JsonObject);
    },
  };

  declare readonly data: JsonObject;
  readonly #json: string;
  #parsed: JsonObject | undefined;

  constructor(
    readonly id: string,
    readonly lastModified: number,
    /**
     * The data's JSON text: an object without `id` or `last_modified` (as `StoredRecord.data` is),
     * nothing around its braces, `{}` when empty (as PostgreSQL prints `jsonb`).
     */
    json: string,
  ) {
    this.#json = json;
    Object.defineProperty(this, "data", JsonTextRecord.#data);
  }

  /**
   * The record as the API shows it (`recordBody`), as JSON text, when its data came as text:
   * the data's members, then `id` and `last_modified`.
   */
  static bodyJson(record: RecordOrTombstone): string | undefined {
    if (!(record instanceof JsonTextRecord)) return undefined;
    const json = record.#json;
    const managed = `"id":${JSON.stringify(record.id)},"last_modified":${record.lastModified}}`;
    return `${json.slice(0, -1)}${json.length === 2 ? "" : ","}${managed}`;
  }
}
