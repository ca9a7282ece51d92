/**
 * A total order over JSON values that mimics PostgreSQL's jsonb ordering, so that the memory
 * store sorts and compares exactly like the PostgreSQL one (api-contract §6):
 * null < string < number < boolean < array < object, and a missing value (`undefined`) last.
 * Strings compare by code point (PostgreSQL with the "C" collation); arrays shorter first, then
 * element by element; objects with fewer keys first, then pair by pair in jsonb key order.
 */
import type { JsonObject, JsonValue } from "../../domain/json.js";

const NULL = 0;
const STRING = 1;
const NUMBER = 2;
const BOOLEAN = 3;
const ARRAY = 4;
const OBJECT = 5;

function typeRank(value: JsonValue): number {
  if (value === null) return NULL;
  switch (typeof value) {
    case "string":
      return STRING;
    case "number":
      return NUMBER;
    case "boolean":
      return BOOLEAN;
    default:
      return Array.isArray(value) ? ARRAY : OBJECT;
  }
}

/**
 * Code point order. JavaScript's `<` compares UTF-16 code units, which puts astral characters
 * (surrogate pairs, 0xD800–0xDFFF) before 0xE000–0xFFFF; shifting the ranges restores code point order.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointWeight(x) - codePointWeight(y);
  }
  return a.length - b.length;
}

function codePointWeight(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}

/** jsonb stores object keys shorter first (in UTF-8 bytes), then bytewise: the order pairs compare in. */
function jsonbKeyOrder(object: JsonObject): string[] {
  return Object.keys(object).sort((a, b) => Buffer.byteLength(a) - Buffer.byteLength(b) || compareCodePoints(a, b));
}

function compareArrays(a: readonly JsonValue[], b: readonly JsonValue[]): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i += 1) {
    const order = compareJson(a[i], b[i]);
    if (order !== 0) return order;
  }
  return 0;
}

function compareObjects(a: JsonObject, b: JsonObject): number {
  const keysA = jsonbKeyOrder(a);
  const keysB = jsonbKeyOrder(b);
  if (keysA.length !== keysB.length) return keysA.length - keysB.length;
  for (let i = 0; i < keysA.length; i += 1) {
    const keyA = keysA[i] ?? "";
    const keyB = keysB[i] ?? "";
    const order = compareCodePoints(keyA, keyB) || compareJson(a[keyA] ?? null, b[keyB] ?? null);
    if (order !== 0) return order;
  }
  return 0;
}

/** Negative, zero or positive as `a` sorts before, with or after `b`; `undefined` (missing) sorts last. */
export function compareJson(a: JsonValue | undefined, b: JsonValue | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  const rank = typeRank(a) - typeRank(b);
  if (rank !== 0) return rank;
  if (typeof a === "string") return compareCodePoints(a, b as string);
  if (typeof a === "number") return a < (b as number) ? -1 : a > (b as number) ? 1 : 0;
  if (typeof a === "boolean") return Number(a) - Number(b);
  if (Array.isArray(a)) return compareArrays(a, b as JsonValue[]);
  if (a === null) return 0;
  return compareObjects(a, b as JsonObject);
}
