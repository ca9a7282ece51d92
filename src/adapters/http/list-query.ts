/**
 * The listing query string (api-contract §6) turned into typed filters, sort, limit and token.
 * Every problem found becomes one `details` entry of a single 400.
 */
import { ValidationError, type ValidationDetail } from "../../domain/errors.js";
import { jsonOrText as parseJsonOrText, type JsonValue } from "../../domain/json.js";
import { clientJsonDetail } from "./client-json.js";
import type { InputLimits } from "./input-limits.js";
import { FILTER_OPERATORS, ID_FIELD, MODIFIED_FIELD, type Filter, type FilterOperator, type SortKey } from "../../application/listing.js";

export interface ListQueryOptions {
  readonly paginateBy: number | undefined;
  readonly maxFetchSize: number;
  readonly now: number;
  readonly limits: Pick<InputLimits, "maxJsonDepth" | "maxFilters" | "maxSortFields">;
}

export interface ParsedListQuery {
  readonly filters: Filter[];
  readonly sort: SortKey[];
  readonly limit: number;
  readonly token: string | undefined;
  readonly fields: string[] | undefined;
  readonly includeDeleted: boolean;
  /** The deprecated `_to` was used: the response carries an `Alert`. */
  readonly usedDeprecatedTo: boolean;
}

const OPERATOR_PATTERN = new RegExp(`^(${[...FILTER_OPERATORS].join("|")})_(.+)$`);
const FIELD_PATTERN = /^[A-Za-z0-9_$@-]+(?:\.[A-Za-z0-9_$@-]+)*$/;
const DAY_MS = 24 * 3600 * 1000;
const BOUND_PARAMS: Readonly<Record<"_since" | "since" | "_before" | "_to", FilterOperator>> = {
  _since: "gt",
  since: "gt",
  _before: "lt",
  _to: "lt",
};
const isBoundParam = (name: string): name is keyof typeof BOUND_PARAMS => Object.hasOwn(BOUND_PARAMS, name);

export function parseListQuery(params: URLSearchParams, options: ListQueryOptions): ParsedListQuery {
  const problems: ValidationDetail[] = [];
  const bad = (name: string | null, description: string) => problems.push({ location: "querystring", name, description });
  const filters: Filter[] = [];
  let sort: SortKey[] = [];
  let limit: number | undefined;
  let token: string | undefined;
  let fields: string[] | undefined;
  let usedDeprecatedTo = false;

  const { limits } = options;
  for (const [rawName, value] of params) {
    // Stops early: a query of thousands of filters is refused without parsing them all.
    if (filters.length > limits.maxFilters) break;
    const name = rawName.trim();
    if (name.includes("\u0000") || value.includes("\u0000")) {
      bad(name, "Invalid character 0x00");
      continue;
    }
    if (name === "_limit") {
      limit = /^\d+$/.test(value) && Number.isSafeInteger(Number(value)) ? Number(value) : undefined;
      if (limit === undefined) bad(name, `"${value}" is not a positive integer`);
    } else if (name === "_sort") {
      sort = parseSort(value, limits.maxSortFields, bad);
    } else if (name === "_token") {
      token = value;
    } else if (name === "_fields") {
      fields = value
        .split(",")
        .map((f) => f.trim())
        .filter(Boolean);
      if (fields.some((f) => !FIELD_PATTERN.test(f))) bad(name, "Invalid _fields parameter");
    } else if (isBoundParam(name)) {
      if (name === "_to") usedDeprecatedTo = true;
      if (value === "null") continue; // Kinto accepts `_since=null` as "no bound"
      const ts = timestampValue(value, options.now);
      if (ts === undefined) bad(name, `Invalid value for ${name}`);
      else filters.push({ field: MODIFIED_FIELD, operator: BOUND_PARAMS[name], value: ts });
    } else if (!name.startsWith("_")) {
      const filter = parseFilter(name, value, options, bad);
      if (filter) filters.push(filter);
    }
  }
  if (filters.length > limits.maxFilters) bad(null, `At most ${limits.maxFilters} filters are allowed`);
  if (problems.length > 0) throw new ValidationError(problems);
  return {
    filters,
    sort,
    limit: effectiveLimit(limit, options),
    token,
    fields,
    includeDeleted: filters.some((f) => f.field === MODIFIED_FIELD),
    usedDeprecatedTo,
  };
}

/**
 * `_limit` (0 or absent: no client limit), capped by `paginate_by` when set (the server's page
 * size wins over a larger client limit) and always by the storage's maximum page.
 */
function effectiveLimit(requested: number | undefined, { paginateBy, maxFetchSize }: ListQueryOptions): number {
  const asked = requested === 0 ? undefined : requested;
  const capped = paginateBy === undefined ? asked : Math.min(asked ?? paginateBy, paginateBy);
  return Math.min(capped ?? maxFetchSize, maxFetchSize);
}

function parseSort(value: string, maxFields: number, bad: (name: string, description: string) => void): SortKey[] {
  const keys: SortKey[] = [];
  const entries = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length > maxFields) {
    bad("_sort", `At most ${maxFields} sort fields are allowed`);
    return keys;
  }
  for (const entry of entries) {
    const match = /^([-+]?)(.+)$/.exec(entry);
    const field = match?.[2] ?? "";
    if (!FIELD_PATTERN.test(field)) bad("_sort", `Invalid sort field '${entry}'`);
    else keys.push({ field, descending: match?.[1] === "-" });
  }
  return keys;
}

/** What a client timestamp must be: the rule of `_since`, also applied to `last_modified` sent by clients. */
export const CLIENT_TIMESTAMP_RULE =
  "last_modified must be an integer of milliseconds since the epoch, at most 24 hours ahead of the server clock";

/** A client timestamp as a number (JSON data): a safe integer between 0 and 24 hours from now. */
export function isAcceptableTimestamp(value: unknown, now: number): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 && value <= now + DAY_MS;
}

/** An integer (optionally in ETag quotes) between 0 and 24 hours from now. */
export function timestampValue(text: string, now: number): number | undefined {
  const digits = /^"?(\d+)"?$/.exec(text.trim())?.[1];
  if (digits === undefined) return undefined;
  const ts = Number(digits);
  return isAcceptableTimestamp(ts, now) ? ts : undefined;
}

function parseFilter(
  name: string,
  text: string,
  { now, limits }: ListQueryOptions,
  bad: (name: string, description: string) => void,
): Filter | undefined {
  const match = OPERATOR_PATTERN.exec(name);
  const operator = (match?.[1] ?? "eq") as FilterOperator;
  const field = match?.[2] ?? name;
  if (!FIELD_PATTERN.test(field)) {
    bad(name, `Unknown filter field '${field}'`);
    return undefined;
  }
  const invalid = () => {
    bad(name, `Invalid value for ${name}`);
    return undefined;
  };
  const managed = field === ID_FIELD || field === MODIFIED_FIELD;
  // JSON values reach every store: refused alike when no store could hold them as written.
  let refused = false;
  const jsonOrText = (piece: string): JsonValue => {
    const value = parseJsonOrText(piece);
    const detail = value === piece ? undefined : clientJsonDetail(piece, value, limits.maxJsonDepth, "querystring", name);
    if (detail && !refused) bad(name, detail.description);
    refused ||= detail !== undefined;
    return value;
  };
  const scalar = (piece: string): JsonValue | undefined => {
    if (field === ID_FIELD) return piece;
    if (field === MODIFIED_FIELD) return timestampValue(piece, now);
    return jsonOrText(piece);
  };
  switch (operator) {
    case "in":
    case "exclude": {
      const values = text.split(",").map(scalar);
      if (values.some((v) => v === undefined)) return invalid();
      return { field, operator, value: values as JsonValue[] };
    }
    case "like": {
      const value = field === MODIFIED_FIELD ? undefined : field === ID_FIELD ? text : jsonOrText(text);
      if (typeof value !== "string" || value.length === 0) return invalid();
      // Stores anchor patterns; without any `*` the client means "contains" (Kinto's `*v*`).
      return { field, operator, value: value.includes("*") ? value : `*${value}*` };
    }
    case "has": {
      const value = jsonOrText(text);
      if (value === true || value === 1) return { field, operator, value: true };
      if (value === false || value === 0) return { field, operator, value: false };
      return invalid();
    }
    case "contains":
    case "contains_any": {
      if (managed) {
        bad(name, `Field '${field}' is not an array`);
        return undefined;
      }
      const value = jsonOrText(text);
      return { field, operator, value: Array.isArray(value) ? value : [value] };
    }
    default: {
      const value = scalar(text);
      return value === undefined ? invalid() : { field, operator, value };
    }
  }
}
