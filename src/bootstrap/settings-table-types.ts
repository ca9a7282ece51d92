/**
 * The value types of the settings table: each checks a value as written (JSON when it parsed,
 * else a string), gives what the code uses, and names itself for the reference documentation.
 * A problem reads `<name> must <what> (got <value>)`, one line per problem, all listed at startup.
 */
import type { JsonValue } from "../domain/json.js";

export interface Parsed<T> {
  /** The value to use; after a problem, a harmless stand-in so that every other problem is still found. */
  readonly value: T;
  readonly problems: readonly string[];
}

export interface SettingType<T> {
  /** How the reference names the type: `integer ≥ 1`, `seconds > 0`, `one of: memory, postgresql`. */
  readonly label: string;
  /** Null and "" mean "unset" (no value), not a value to check. */
  readonly optional: boolean;
  parse(value: JsonValue, name: string): Parsed<T>;
}

export function problem(name: string, must: string, got: JsonValue): string {
  return `${name} must ${must} (got ${JSON.stringify(got)})`;
}

const ok = <T>(value: T): Parsed<T> => ({ value, problems: [] });
const bad = <T>(value: T, message: string): Parsed<T> => ({ value, problems: [message] });

/** A setting as text: strings as written, other JSON values in JSON form (`5`, `true`). */
export function text(value: JsonValue): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Whitespace-separated list (principals may contain commas). */
export function listValue(value: JsonValue | undefined): string[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.map(text);
  return text(value).split(/\s+/).filter(Boolean);
}

/** Null or "" (an empty `name =` line) means unset. */
export function optional<T>(type: SettingType<T>): SettingType<T | undefined> {
  return {
    label: type.label,
    optional: true,
    parse: (value, name) => (value === null || value === "" ? ok(undefined) : type.parse(value, name)),
  };
}

/** Null is a value of its own (`batch_max_requests = null`: no limit). */
export function orNull<T>(type: SettingType<T>, meaning: string): SettingType<T | null> {
  return {
    label: `${type.label}, or null (${meaning})`,
    optional: false,
    parse: (value, name) => (value === null ? ok(null) : type.parse(value, name)),
  };
}

export function anyText(): SettingType<string> {
  return { label: "text", optional: false, parse: (value) => ok(text(value)) };
}

export function nonEmptyText(what: string): SettingType<string> {
  return {
    label: "text",
    optional: false,
    parse: (value, name) => (value === null || value === "" ? bad("", problem(name, `be ${what}`, value)) : ok(text(value))),
  };
}

export function list(): SettingType<string[]> {
  return { label: "list (whitespace-separated)", optional: false, parse: (value) => ok(listValue(value)) };
}

export function oneOf<Name extends string>(names: readonly Name[]): SettingType<Name> {
  return {
    label: `one of: ${names.join(", ")}`,
    optional: false,
    parse: (value, name) =>
      typeof value === "string" && (names as readonly string[]).includes(value)
        ? ok(value as Name)
        : bad(names[0] as Name, problem(name, `be one of: ${names.join(", ")}`, value)),
  };
}

export function integer(min: number, max = Number.MAX_SAFE_INTEGER): SettingType<number> {
  const bounded = max < Number.MAX_SAFE_INTEGER;
  return {
    label: bounded ? `integer ${min}–${max}` : `integer ≥ ${min}`,
    optional: false,
    parse: (value, name) =>
      typeof value === "number" && Number.isSafeInteger(value) && value >= min && value <= max
        ? ok(value)
        : bad(min, problem(name, `be an integer >= ${min}${bounded ? ` and <= ${max}` : ""}`, value)),
  };
}

export interface SecondsBounds {
  /** Inclusive lower bound; `above` makes it exclusive (0 is then refused). */
  readonly min: number;
  readonly above?: boolean;
  /** Upper bound, with what it stands for (shown in the problem). */
  readonly max?: { readonly value: number; readonly why: string };
}

/** A duration in seconds; fractions allowed. */
export function seconds({ min, above = false, max }: SecondsBounds): SettingType<number> {
  const lower = above ? `> ${min}` : `>= ${min}`;
  return {
    label: `seconds ${above ? ">" : "≥"} ${min}${max ? `, at most ${max.value}` : ""}`,
    optional: false,
    parse: (value, name) => {
      if (typeof value !== "number" || !Number.isFinite(value) || value < min || (above && value === min))
        return bad(min, problem(name, `be a number ${lower}`, value));
      if (max && value > max.value) return bad(min, problem(name, `be at most ${max.value} (${max.why})`, value));
      return ok(value);
    },
  };
}

const TRUE_WORDS = new Set(["true", "yes", "on", "1"]);
const FALSE_WORDS = new Set(["false", "no", "off", "0"]);

/** JSON booleans, and the spellings INI files written for Pyramid use (`True`, `on`, `1`...). */
export function boolean(): SettingType<boolean> {
  return {
    label: "boolean",
    optional: false,
    parse: (value, name) => {
      if (typeof value === "boolean") return ok(value);
      const word = typeof value === "string" || typeof value === "number" ? String(value).toLowerCase() : "";
      if (TRUE_WORDS.has(word)) return ok(true);
      if (FALSE_WORDS.has(word)) return ok(false);
      return bad(false, problem(name, "be true or false", value));
    },
  };
}

/** Text checked by a predicate (a number or boolean is refused); `must` completes "<name> must …". */
export function checkedText(label: string, must: string, valid: (text: string) => boolean): SettingType<string> {
  return {
    label,
    optional: false,
    parse: (value, name) => (typeof value === "string" && valid(value) ? ok(value) : bad("", problem(name, must, value))),
  };
}

/** A list whose entries are checked one by one; the problem names the refused entries only. */
export function checkedList(label: string, must: string, valid: (entry: string) => boolean): SettingType<string[]> {
  return {
    label,
    optional: false,
    parse: (value, name) => {
      const entries = listValue(value);
      const refused = entries.filter((entry) => !valid(entry));
      return refused.length === 0 ? ok(entries) : bad(entries, problem(name, must, refused.join(" ")));
    },
  };
}
