/**
 * Checks of JSON a client sends (request bodies, filter values) that every backend must answer
 * the same way, run before any adapter walks the value recursively:
 * - nesting deeper than the limit (the walk is iterative, so the check itself cannot overflow);
 * - text PostgreSQL cannot store or JSON cannot carry: NUL characters and lone surrogates, in
 *   keys as in values;
 * - numbers that would not be stored exactly as written (numbers are JSON doubles everywhere):
 *   `1e400` parses to Infinity, `1e-400` and `-0` to 0, `9007199254740993` to 9007199254740992.
 *   Parsed, they look like any other number, so they are judged on the raw text.
 */
import type { ValidationDetail } from "../../domain/errors.js";

interface JsonProblem {
  /** Dotted path of the offending key or value; null for the document as a whole. */
  readonly name: string | null;
  readonly description: string;
}

interface Visit {
  readonly value: unknown;
  readonly depth: number;
  readonly parent: Visit | undefined;
  readonly key: string;
}

function pathOf(visit: Visit | undefined): string | null {
  const keys: string[] = [];
  for (let at = visit; at?.parent !== undefined; at = at.parent) keys.push(at.key);
  return keys.length === 0 ? null : keys.reverse().join(".");
}

/** Why `text` cannot be stored as given, or undefined. */
function textProblem(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 0) return "Invalid character 0x00";
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else return "Invalid unicode: lone surrogate";
    } else if (unit >= 0xdc00 && unit <= 0xdfff) return "Invalid unicode: lone surrogate";
  }
  return undefined;
}

/** The first problem of a parsed value: nesting deeper than `maxDepth`, bad text, non-finite numbers. */
function jsonValueProblem(value: unknown, maxDepth: number): JsonProblem | undefined {
  const stack: Visit[] = [{ value, depth: 0, parent: undefined, key: "" }];
  for (let visit = stack.pop(); visit !== undefined; visit = stack.pop()) {
    const current = visit.value;
    if (typeof current === "string") {
      const problem = textProblem(current);
      if (problem !== undefined) return { name: pathOf(visit), description: problem };
    } else if (typeof current === "number") {
      if (!Number.isFinite(current)) return { name: pathOf(visit), description: "Number out of range" };
    } else if (typeof current === "object" && current !== null) {
      const depth = visit.depth + 1;
      if (depth > maxDepth) return { name: null, description: `JSON nesting is limited to ${maxDepth} levels` };
      const entries = Array.isArray(current) ? current.map((item, i) => [String(i), item] as const) : Object.entries(current);
      for (const [key, item] of entries) {
        const child: Visit = { value: item, depth, parent: visit, key };
        const problem = Array.isArray(current) ? undefined : textProblem(key);
        if (problem !== undefined) return { name: pathOf(child), description: `${problem} in a key` };
        stack.push(child);
      }
    }
  }
  return undefined;
}

const ZERO = 48;
const NINE = 57;
const MINUS = 45;
const QUOTE = 34;
const BACKSLASH = 92;

function isNumberPart(unit: number): boolean {
  return (
    (unit >= ZERO && unit <= NINE) || unit === MINUS || unit === 43 /* + */ || unit === 46 /* . */ || unit === 101 /* e */ || unit === 69
  ); /* E */
}

/** A decimal's exact value as (significant digits, power of ten of the last one); zero is ("", 0). */
function decimalValue(literal: string): { digits: string; exponent: number } {
  const [mantissa = "", power = "0"] = literal.replace(/^-/, "").split(/[eE]/);
  const [whole = "", fraction = ""] = mantissa.split(".");
  let digits = `${whole}${fraction}`.replace(/^0+/, "");
  let exponent = Number(power) - fraction.length;
  const trailing = digits.length - digits.replace(/0+$/, "").length;
  digits = digits.slice(0, digits.length - trailing);
  exponent += trailing;
  return digits === "" ? { digits, exponent: 0 } : { digits, exponent };
}

/**
 * Why a number literal would not be stored exactly as written, or undefined. Numbers are kept as
 * JSON doubles on every backend: a literal is accepted when its exact decimal value is that of
 * the double it parses to (as that double prints: `1.10` and `1.1` alike), so integers beyond
 * 2^53 that are not doubles, decimals with more digits than a double keeps, values out of range
 * and negative zero (stored as 0) are refused.
 */
function lossyNumber(literal: string): string | undefined {
  const value = Number(literal);
  if (!Number.isFinite(value)) return "out of range";
  if (Object.is(value, -0) || (value === 0 && literal.startsWith("-"))) return "negative zero";
  const written = decimalValue(literal);
  const stored = decimalValue(String(value));
  if (written.digits === stored.digits && written.exponent === stored.exponent) return undefined;
  return value === 0 ? "out of range" : `not exactly a double: it would be stored as ${String(value)}`;
}

/** The first number literal of valid JSON text that would not be stored as written. One linear pass. */
function lossyNumberIn(json: string): { literal: string; at: number; reason: string } | undefined {
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const unit = json.charCodeAt(i);
    if (inString) {
      if (unit === BACKSLASH) i++;
      else if (unit === QUOTE) inString = false;
    } else if (unit === QUOTE) {
      inString = true;
    } else if (unit === MINUS || (unit >= ZERO && unit <= NINE)) {
      let end = i + 1;
      while (end < json.length && isNumberPart(json.charCodeAt(end))) end++;
      const literal = json.slice(i, end);
      const reason = lossyNumber(literal);
      if (reason !== undefined) return { literal, at: i, reason };
      i = end - 1;
    }
  }
  return undefined;
}

interface Frame {
  readonly array: boolean;
  key: string;
  index: number;
  /** In an object, the next string is a key (after `{` or `,`, until `:`). */
  expectKey: boolean;
}

/** The dotted path of the value starting at offset `at` of valid JSON text (null: the document). */
function pathAt(json: string, at: number): string | null {
  const frames: Frame[] = [];
  for (let i = 0; i < at; i++) {
    const char = json[i];
    const top = frames.at(-1);
    if (char === '"') {
      let end = i + 1;
      while (end < json.length && json[end] !== '"') end += json[end] === "\\" ? 2 : 1;
      if (top && !top.array && top.expectKey) top.key = JSON.parse(json.slice(i, end + 1)) as string;
      i = end;
    } else if (char === "{" || char === "[") {
      frames.push({ array: char === "[", key: "", index: 0, expectKey: char === "{" });
    } else if (char === "}" || char === "]") {
      frames.pop();
    } else if (char === ",") {
      if (top?.array) top.index += 1;
      else if (top) top.expectKey = true;
    } else if (char === ":" && top) {
      top.expectKey = false;
    }
  }
  return frames.length === 0 ? null : frames.map((f) => (f.array ? String(f.index) : f.key)).join(".");
}

function joinPath(outer: string | null, inner: string | null): string | null {
  if (inner === null) return outer;
  return outer === null ? inner : `${outer}.${inner}`;
}

/** Every check for JSON received as text and already parsed, as a validation detail. */
export function clientJsonDetail(
  text: string,
  parsed: unknown,
  maxDepth: number,
  location: ValidationDetail["location"],
  name: string | null,
): ValidationDetail | undefined {
  const lossy = lossyNumberIn(text);
  if (lossy !== undefined) {
    const { literal, at, reason } = lossy;
    return {
      location,
      name: joinPath(name, pathAt(text, at)),
      description: `Number ${literal.length > 40 ? `${literal.slice(0, 40)}…` : literal} cannot be stored as written (${reason})`,
    };
  }
  const problem = jsonValueProblem(parsed, maxDepth);
  if (problem === undefined) return undefined;
  const inner = problem.name === null ? name : name === null ? problem.name : `${name}.${problem.name}`;
  return { location, name: inner, description: problem.description };
}
