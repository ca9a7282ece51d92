/**
 * What an `Authorization` value carries, read without verifying anything: a signed JWT (three
 * base64url parts whose header names an algorithm), or an opaque token of RFC 6750's syntax.
 * Used to route a token to local verification or to userinfo, and to refuse junk early.
 */
import { decodeJwt, decodeProtectedHeader, type JWSHeaderParameters, type JWTPayload } from "jose";

/** Longer than any token a provider issues; beyond it a value is refused unread. */
export const MAX_TOKEN_LENGTH = 8192;
/** Shorter than any opaque token a provider issues (they carry 128 bits or more): not worth asking about. */
const MIN_OPAQUE_LENGTH = 16;

export type TokenShape =
  | { readonly form: "jwt"; readonly header: JWSHeaderParameters; readonly claims: JWTPayload }
  | { readonly form: "opaque" }
  | { readonly form: "junk" };

const JWS_COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** The token of `Authorization: <headerType> <token>`, or undefined when the header is not of that type. */
export function tokenFrom(header: string | undefined, headerType: string): string | undefined {
  if (header === undefined || header.length > headerType.length + 1 + MAX_TOKEN_LENGTH + 16) return undefined;
  const space = header.indexOf(" ");
  if (space < 0 || header.slice(0, space).toLowerCase() !== headerType.toLowerCase()) return undefined;
  const token = header.slice(space + 1).trim();
  return token.length > 0 && token.length <= MAX_TOKEN_LENGTH ? token : undefined;
}

export function tokenShape(token: string): TokenShape {
  if (JWS_COMPACT.test(token)) {
    try {
      const header = decodeProtectedHeader(token);
      const claims = decodeJwt(token);
      return typeof header.alg === "string" ? { form: "jwt", header, claims } : { form: "junk" };
    } catch {
      return { form: "junk" }; // looks like a JWT and is not one: no provider would answer for it either
    }
  }
  return token.length >= MIN_OPAQUE_LENGTH && B64TOKEN.test(token) && /[A-Za-z0-9]/.test(token) ? { form: "opaque" } : { form: "junk" };
}
