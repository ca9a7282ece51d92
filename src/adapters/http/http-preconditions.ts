/** `If-Match` / `If-None-Match` headers become plain expected timestamps (api-contract §7). */
import { ValidationError } from "../../domain/errors.js";
import type { ETagCondition, Preconditions } from "../../application/preconditions.js";

type HeaderReader = (name: string) => string | undefined;

function condition(header: string, value: string | undefined): ETagCondition {
  if (value === undefined || value === "") return undefined;
  const trimmed = value.trim();
  if (trimmed === "*") return "*";
  const digits = /^"(\d+)"$/.exec(trimmed)?.[1];
  const ts = digits === undefined ? NaN : Number(digits);
  if (!Number.isSafeInteger(ts)) throw ValidationError.single("header", header, "The value should be integer between double quotes."); // Kinto's text
  return ts;
}

export function preconditionsOf(header: HeaderReader): Preconditions {
  return { ifMatch: condition("If-Match", header("if-match")), ifNoneMatch: condition("If-None-Match", header("if-none-match")) };
}
