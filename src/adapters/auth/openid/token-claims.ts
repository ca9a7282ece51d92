/**
 * What a verified token (or a userinfo answer) says about its holder: the user id from
 * `userid_field` and the groups from `groups_claim`, as `group:<value>` principals.
 */
import type { JWTPayload } from "jose";
import { isValidPrincipal } from "../../../domain/principals.js";

export interface TokenIdentity {
  /** The `userid_field` value; the user id is `<policy name>:<this>`. */
  readonly subject: string;
  /** `group:<value>` for each value of the groups claim. */
  readonly groups: readonly string[];
}

/** More group values than any real directory gives one person: the rest are ignored. */
const MAX_GROUPS = 256;
const MAX_GROUP_LENGTH = 256;

/** The identity in these claims, or undefined when the user id claim is missing or unusable. */
export function identityFrom(claims: JWTPayload, useridField: string, groupsClaim: string | undefined): TokenIdentity | undefined {
  const raw = claimAt(claims, useridField);
  const subject = typeof raw === "number" && Number.isSafeInteger(raw) ? String(raw) : raw;
  if (typeof subject !== "string" || !isValidPrincipal(subject)) return undefined;
  return { subject, groups: groupsClaim === undefined ? [] : groupPrincipals(claimAt(claims, groupsClaim)) };
}

/** `group:<value>` for each usable value: a list of strings, or one string. */
export function groupPrincipals(value: unknown): string[] {
  const values = typeof value === "string" ? [value] : Array.isArray(value) ? value : [];
  const groups = new Set<string>();
  for (const item of values) {
    if (groups.size >= MAX_GROUPS) break;
    if (typeof item !== "string" || item.length > MAX_GROUP_LENGTH) continue;
    const principal = `group:${item}`;
    if (item.length > 0 && isValidPrincipal(principal)) groups.add(principal);
  }
  return [...groups];
}

/** The claim by its exact name, else by a dotted path into nested objects (`realm_access.roles`). */
function claimAt(claims: JWTPayload, name: string): unknown {
  if (Object.hasOwn(claims, name)) return claims[name];
  let value: unknown = claims;
  for (const part of name.split(".")) {
    if (typeof value !== "object" || value === null || Array.isArray(value) || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}
