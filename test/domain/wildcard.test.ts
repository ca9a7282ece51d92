import { expect } from "chai";
import { wildcardMatcher } from "../../src/domain/wildcard.js";

/** The matcher this one replaced, kept here as the reference of the semantics (client patterns never reach it in src). */
function referenceRegex(pattern: string, ignoreCase: boolean): RegExp {
  const source = pattern
    .split("*")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"))
    .join(ignoreCase ? ".*" : "[\\s\\S]*");
  return new RegExp(`^${source}$`, ignoreCase ? "isu" : "");
}

/**
 * A small deterministic generator (bounded, reproducible). It draws from the high bits of the
 * state: the low bits of this congruential generator repeat with a short period (`state % 2`
 * alternates), which left whole families of patterns and values out.
 */
function generator(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((state / 2 ** 31) * n);
  };
}

const ALPHABET = [
  "a",
  "A",
  "b",
  "B",
  "*",
  ".",
  "%",
  "_",
  "\\",
  "ſ",
  "s",
  "S",
  "K",
  "k",
  "\u212a",
  "ı",
  "i",
  "I",
  "İ",
  "ß",
  "ẞ",
  "σ",
  "ς",
  "Σ",
  "😀",
  "\n",
  "é",
  "É",
];

describe("wildcard matching", () => {
  it("agrees with the anchored, case-insensitive /…/isu reference on 4,000 random patterns and values", () => {
    const random = generator(42);
    const text = (max: number, withStar: boolean) =>
      Array.from({ length: random(max) }, () => ALPHABET[random(ALPHABET.length)])
        .filter((c) => withStar || c !== "*")
        .join("");
    for (let i = 0; i < 4000; i++) {
      const pattern = text(7, true);
      const value = text(10, false);
      expect(wildcardMatcher(pattern)(value), `${JSON.stringify(pattern)} ~ ${JSON.stringify(value)}`).to.equal(
        referenceRegex(pattern, true).test(value),
      );
    }
  });

  it("agrees with the case-sensitive reference (object id patterns)", () => {
    const random = generator(7);
    const text = (max: number, withStar: boolean) =>
      Array.from({ length: random(max) }, () => ["/", "a", "A", "*", "b", "\ud83d"][random(6)])
        .filter((c) => withStar || c !== "*")
        .join("");
    for (let i = 0; i < 3000; i++) {
      const pattern = text(7, true);
      const value = text(10, false);
      expect(wildcardMatcher(pattern, { ignoreCase: false })(value), `${JSON.stringify(pattern)} ~ ${JSON.stringify(value)}`).to.equal(
        referenceRegex(pattern, false).test(value),
      );
    }
  });

  it("agrees with both references on a two-letter alphabet, where segments overlap themselves (KMP fallbacks)", () => {
    const random = generator(2024);
    const text = (max: number, letters: string[]) =>
      Array.from({ length: random(max + 1) }, () => letters[random(letters.length)]).join("");
    for (let i = 0; i < 6000; i++) {
      const pattern = text(9, ["a", "b", "A", "*", "*"]);
      const value = text(14, ["a", "b", "A"]);
      for (const ignoreCase of [true, false]) {
        expect(wildcardMatcher(pattern, { ignoreCase })(value), `${pattern} ~ ${value} (ignoreCase: ${ignoreCase})`).to.equal(
          referenceRegex(pattern, ignoreCase).test(value),
        );
      }
    }
  });

  it("finds a middle segment only after a fallback inside it, and never inside the anchored end", () => {
    const cases: [string, string, boolean][] = [
      ["*aab*", "aaab", true],
      ["*abab*", "abaabab", true],
      ["*aabaaa*", "aabaabaaa", true],
      ["*abcabd*", "abcabcabd", true],
      ["*aa*", "aba", false],
      ["a*b*b", "ab", false],
      ["a*b*b", "abb", true],
      ["*a*", "a", true],
      ["*aabb*", "aababb", false],
      ["*aba*", "abba", false],
      ["ab*ba", "aba", false],
      ["a*a", "a", false],
      ["*ab*b", "ab", false],
      ["x*ab*ab*y", "xababy", true],
      ["x*ab*ab*y", "xaby", false],
    ];
    for (const [pattern, value, expected] of cases) {
      for (const ignoreCase of [true, false]) {
        expect(wildcardMatcher(pattern, { ignoreCase })(value), `${pattern} ~ ${value} (ignoreCase: ${ignoreCase})`).to.equal(expected);
      }
    }
  });

  it("folds ASCII letters only: the neighbours of A-Z and a-z stay themselves", () => {
    const cases: [string, string, boolean][] = [
      ["A", "a", true],
      ["Z", "z", true],
      ["@", "`", false],
      ["[", "{", false],
      ["ß", "s", false],
      ["ß", "SS", false],
      ["ǅ", "ǆ", true],
      ["é", "ü", false],
    ];
    for (const [pattern, value, expected] of cases) expect(wildcardMatcher(pattern)(value), `${pattern} ~ ${value}`).to.equal(expected);
  });

  it("folds case exactly as /u regular expressions do, for every code point with a case mapping", () => {
    const single = (s: string) => ([...s].length === 1 ? s : undefined);
    const cased: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const c = String.fromCodePoint(cp);
      if (c.toLowerCase() !== c || c.toUpperCase() !== c) cased.push(c);
    }
    expect(cased.length).to.be.greaterThan(2000);
    let compared = 0;
    for (const c of cased) {
      const reference = new RegExp(`^\\u{${c.codePointAt(0)!.toString(16)}}$`, "iu");
      const related = new Set(
        [c.toLowerCase(), c.toUpperCase(), c.toUpperCase().toLowerCase(), c.toLowerCase().toUpperCase()]
          .map(single)
          .filter((d): d is string => d !== undefined),
      );
      for (const d of related) {
        expect(wildcardMatcher(c)(d), `U+${c.codePointAt(0)!.toString(16)} ~ U+${d.codePointAt(0)!.toString(16)}`).to.equal(
          reference.test(d),
        );
        compared++;
      }
    }
    expect(compared).to.be.greaterThan(4000);
  });

  it("treats `*` as any run, everything else literally", () => {
    const cases: [string, string, boolean][] = [
      ["*", "", true],
      ["", "", true],
      ["", "a", false],
      ["a*", "ABC", true],
      ["*c", "abC", true],
      ["a*c", "ac", true],
      ["ab*bc", "abc", false],
      ["*a*a*", "xax", false],
      ["*a*a*", "xaxa", true],
      ["%_\\", "%_\\", true],
      ["%", "x", false],
      ["a.c", "abc", false],
    ];
    for (const [pattern, value, expected] of cases) expect(wildcardMatcher(pattern)(value), `${pattern} ~ ${value}`).to.equal(expected);
  });

  it("finishes *a*a*a*a*c on 200,000 characters of a (a backtracking regex would not)", () => {
    const value = "a".repeat(200_000);
    expect(wildcardMatcher("*a*a*a*a*c")(value)).to.equal(false);
    expect(wildcardMatcher("*a*a*a*a*")(value)).to.equal(true);
    expect(wildcardMatcher("a*aab*c", { ignoreCase: false })(value)).to.equal(false);
  });
});
