/** Object id patterns (`*` = any run of characters) as SQL LIKE patterns, every other character literal. */

/** Escapes LIKE's own metacharacters (`\` is the default escape character). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `/a/*` → `/a/%`, with `%`, `_` and `\` of the pattern matching themselves. */
export function wildcardToLike(pattern: string): string {
  return pattern.split("*").map(escapeLike).join("%");
}

/**
 * The half-open range [prefix, upper) of every string starting with `prefix` under COLLATE "C"
 * (byte order = code point order in UTF-8). Lets a B-tree serve a prefix search with bound parameters,
 * where `LIKE $1` cannot. `upper` is undefined when no finite bound exists.
 */
export function prefixRange(prefix: string): { lower: string; upper: string | undefined } {
  const points = [...prefix];
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!;
    let next = last + 1;
    if (next >= 0xd800 && next <= 0xdfff) next = 0xe000; // surrogates are not characters
    if (next <= 0x10ffff) return { lower: prefix, upper: points.join("") + String.fromCodePoint(next) };
  }
  return { lower: prefix, upper: undefined };
}
