/**
 * JSON values printed the way Python's `repr` prints them. Kinto quotes offending values this way
 * in a few validation messages; writing them alike keeps those messages identical on the wire.
 */
import { isJsonObject, type JsonValue } from "../../domain/json.js";

export function pythonRepr(value: JsonValue): string {
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return pythonString(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(", ")}]`;
  if (isJsonObject(value))
    return `{${Object.entries(value)
      .map(([k, v]) => `${pythonString(k)}: ${pythonRepr(v)}`)
      .join(", ")}}`;
  return String(value);
}

/** Single quotes unless the text holds one and no double quote, as Python chooses. */
function pythonString(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const escaped = text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t");
  return `${quote}${quote === "'" ? escaped.replace(/'/g, "\\'") : escaped}${quote}`;
}
