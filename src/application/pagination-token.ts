/**
 * The opaque `_token` of keyset pagination: base64 of JSON holding the last entry's sort values
 * (`last_object`, as Kinto does), the walk's upper timestamp bound, and an HMAC binding both to
 * the query (sort and filters), so a forged or transplanted token is refused with a 400.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { ValidationError } from "../domain/errors.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../domain/json.js";
import type { Filter, PageCursor, SortKey } from "./listing.js";

export interface TokenPosition {
  readonly cursor: PageCursor;
  readonly upTo: number;
}

const invalid = () => ValidationError.single("querystring", "_token", "_token has invalid content");

export class PaginationTokens {
  constructor(private readonly secret: string) {}

  encode(sort: readonly SortKey[], filters: readonly Filter[], position: TokenPosition): string {
    const lastObject: JsonObject = {};
    sort.forEach((key, i) => {
      const value = position.cursor.values[i];
      if (value !== undefined) lastObject[key.field] = value;
    });
    const payload = { last_object: lastObject, up_to: position.upTo };
    const sig = this.sign(sort, filters, payload.last_object, payload.up_to);
    return Buffer.from(JSON.stringify({ ...payload, sig }), "utf8").toString("base64");
  }

  /** Throws a 400 ValidationError for anything that is not a token this server issued for this query. */
  decode(token: string, sort: readonly SortKey[], filters: readonly Filter[]): TokenPosition {
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(token, "base64").toString("utf8"));
    } catch {
      throw invalid();
    }
    if (!isJsonObject(parsed)) throw invalid();
    const { last_object: lastObject, up_to: upTo, sig } = parsed;
    if (!isJsonObject(lastObject) || !Number.isSafeInteger(upTo) || typeof sig !== "string") throw invalid();
    const expected = Buffer.from(this.sign(sort, filters, lastObject, upTo as number), "hex");
    const given = Buffer.from(sig, "hex");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
    return { cursor: { values: sort.map((key) => lastObject[key.field]) }, upTo: upTo as number };
  }

  private sign(sort: readonly SortKey[], filters: readonly Filter[], lastObject: JsonObject, upTo: number): string {
    const material: JsonValue = [
      sort.map((k) => [k.field, k.descending]),
      filters.map((f) => [f.field, f.operator, f.value]),
      Object.entries(lastObject).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      upTo,
    ];
    return createHmac("sha256", this.secret).update(JSON.stringify(material)).digest("hex");
  }
}
