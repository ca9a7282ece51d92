/**
 * Checks of JSON a client sends (request bodies, filter values) that every backend must answer
 * the same way, run before any adapter walks the value recursively:
 * - nesting deeper than the limit (the walk is iterative, so the check itself cannot overflow);
 * - text PostgreSQL cannot store or JSON cannot carry: NUL characters and lone surrogates, in
 *   keys as in values;
 * - numbers that do not survive a round trip: `1e400` parses to Infinity (stored as `null`) and
 *   `1e-400` to 0. The second looks like any 0 once parsed, so numbers are judged on the raw text.
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

/** A number literal whose value is not what it says: out of range, or non-zero digits read as 0. */
function lossyNumber(literal: string): boolean {
  const value = Number(literal);
  if (!Number.isFinite(value)) return true;
  if (value !== 0) return false;
  const mantissa = literal.split(/[eE]/)[0] ?? literal;
  return /[1-9]/.test(mantissa);
}

/** The first number literal of valid JSON text that would not be stored as written. One linear pass. */
function lossyNumberIn(json: string): string | undefined {
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
      if (lossyNumber(literal)) return literal;
      i = end - 1;
    }
  }
  return undefined;
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
  if (lossy !== undefined)
    return {
      location,
      name,
      description: `Number ${lossy.length > 40 ? `${lossy.slice(0, 40)}…` : lossy} cannot be stored as written (out of range)`,
    };
  const problem = jsonValueProblem(parsed, maxDepth);
  if (problem === undefined) return undefined;
  const inner = problem.name === null ? name : name === null ? problem.name : `${name}.${problem.name}`;
  return { location, name: inner, description: problem.description };
}
