/**
 * `*` wildcard patterns (`like_` filters, object id patterns of permissions): `*` is any run of
 * characters, everything else is literal, the match is anchored (and case-insensitive for `like_`). Matching takes time linear in the pattern
 * plus the value, whatever the pattern: no regular expression is built from client input (a
 * backtracking `^.*a.*a.*c$` took seconds on a 500-character value).
 *
 * Case-insensitivity is that of a JavaScript `/…/iu` regular expression (Unicode simple case
 * folding), which this matcher replaced: characters are compared through one representative of
 * their case class.
 */

const DOTLESS_I = 0x131; // its own class under simple case folding, though it upper-cases to I

function singleCodePoint(text: string): number | undefined {
  const first = text.codePointAt(0);
  return first !== undefined && text.length === String.fromCodePoint(first).length ? first : undefined;
}

/**
 * The representative of a code point's case class. `folded` caches the others for one compiled
 * pattern: a process-wide cache would keep every code point clients ever sent, and tests could
 * then only ever see the first folding of each.
 */
function foldCase(codePoint: number, folded: Map<number, number>): number {
  if (codePoint < 0x80) return codePoint >= 0x41 && codePoint <= 0x5a ? codePoint + 0x20 : codePoint;
  const known = folded.get(codePoint);
  if (known !== undefined) return known;
  let result = codePoint;
  if (codePoint !== DOTLESS_I && (codePoint < 0xd800 || codePoint > 0xdfff)) {
    const character = String.fromCodePoint(codePoint);
    const upper = singleCodePoint(character.toUpperCase());
    const viaUpper = upper === undefined ? undefined : singleCodePoint(String.fromCodePoint(upper).toLowerCase());
    result = viaUpper ?? singleCodePoint(character.toLowerCase()) ?? codePoint;
  }
  folded.set(codePoint, result);
  return result;
}

/** Code points (a lone surrogate counts as one) through foldCase. */
function foldedCodePoints(text: string, folded: Map<number, number>): number[] {
  const points: number[] = [];
  for (const character of text) points.push(foldCase(character.codePointAt(0)!, folded));
  return points;
}

/** KMP failure table of `needle`. */
function failureTable(needle: readonly number[]): Int32Array {
  const table = new Int32Array(needle.length);
  for (let i = 1, k = 0; i < needle.length; i++) {
    while (k > 0 && needle[i] !== needle[k]) k = table[k - 1]!;
    if (needle[i] === needle[k]) k++;
    table[i] = k;
  }
  return table;
}

interface Segment {
  readonly points: readonly number[];
  readonly table: Int32Array;
}

/** End index of the first occurrence of `segment` in `text[from, to)`, or -1. Linear (KMP). */
function findAfter(text: readonly number[], from: number, to: number, { points, table }: Segment): number {
  for (let i = from, k = 0; i < to; i++) {
    while (k > 0 && text[i] !== points[k]) k = table[k - 1]!;
    if (text[i] === points[k]) k++;
    if (k === points.length) return i + 1;
  }
  return -1;
}

function startsAt(text: readonly number[], at: number, points: readonly number[]): boolean {
  return points.every((point, i) => text[at + i] === point);
}

/** A compiled pattern, case-insensitive unless told otherwise (object id patterns are exact). */
export function wildcardMatcher(pattern: string, { ignoreCase = true }: { ignoreCase?: boolean } = {}): (value: string) => boolean {
  return ignoreCase ? foldedMatcher(pattern) : exactMatcher(pattern);
}

function foldedMatcher(pattern: string): (value: string) => boolean {
  const folded = new Map<number, number>();
  const foldedCodePointsOf = (text: string) => foldedCodePoints(text, folded);
  const parts = pattern.split("*").map(foldedCodePointsOf);
  const first = parts[0] ?? [];
  if (parts.length === 1)
    return (value) => {
      const text = foldedCodePointsOf(value);
      return text.length === first.length && startsAt(text, 0, first);
    };
  const last = parts[parts.length - 1] ?? [];
  const middle: Segment[] = parts
    .slice(1, -1)
    .filter((points) => points.length > 0)
    .map((points) => ({ points, table: failureTable(points) }));
  return (value) => {
    const text = foldedCodePointsOf(value);
    const end = text.length - last.length;
    if (end < first.length || !startsAt(text, 0, first) || !startsAt(text, end, last)) return false;
    // Leftmost occurrences, in order, between the anchored ends: the first fit is always a fit.
    let position = first.length;
    for (const segment of middle) {
      position = findAfter(text, position, end, segment);
      if (position < 0) return false;
    }
    return true;
  };
}

/** Exact patterns are the server's own (object ids), short: plain string search, no copies. */
function exactMatcher(pattern: string): (value: string) => boolean {
  const parts = pattern.split("*");
  const first = parts[0] ?? "";
  if (parts.length === 1) return (value) => value === pattern;
  const last = parts[parts.length - 1] ?? "";
  const middle = parts.slice(1, -1).filter((part) => part.length > 0);
  return (value) => {
    const end = value.length - last.length;
    if (end < first.length || !value.startsWith(first) || !value.endsWith(last)) return false;
    let position = first.length;
    for (const part of middle) {
      const found = value.indexOf(part, position);
      if (found < 0 || found + part.length > end) return false;
      position = found + part.length;
    }
    return true;
  };
}
