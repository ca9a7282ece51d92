/**
 * What the page keeps of a sign-in, and where (issue 27: no reversible credential in storage).
 * - A password (an account's, or a Basic Auth pair's): in memory only, in `Credential`. The
 *   `Basic` header is the password itself (base64 is an encoding, not a hash), and sessionStorage
 *   is readable by every script of the origin and saved to disk with a restored browser session.
 *   The price: a reload asks to sign in again.
 * - A provider's bearer token: in sessionStorage, this tab only. It is not a password: it
 *   expires (dropped here at its expiry), it is good for this service only and cannot be turned
 *   back into the user's provider password, and keeping it spares a new round trip through the
 *   provider at every reload.
 */
import type { TokenSession } from "./openid.js";

export interface Credential {
  /** The `Authorization` header value. */
  readonly authorization: string;
  /** The provider's name when signed in with a bearer token. */
  readonly provider: string | undefined;
}

const TOKEN_KEY = "tessera.admin.token";

export function basicAuthorization(user: string, password: string): string {
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

export function passwordCredential(user: string, password: string): Credential {
  return { authorization: basicAuthorization(user, password), provider: undefined };
}

export function tokenCredential(token: TokenSession): Credential {
  return { authorization: token.authorization, provider: token.provider };
}

export function keepToken(token: TokenSession): void {
  sessionStorage.setItem(TOKEN_KEY, JSON.stringify(token));
}

/** The kept token, unless it has expired (then it is forgotten). */
export function keptToken(): TokenSession | undefined {
  const saved = sessionStorage.getItem(TOKEN_KEY);
  if (!saved) return undefined;
  const token = JSON.parse(saved) as TokenSession;
  if (token.expiresAt !== undefined && token.expiresAt <= Date.now()) {
    forgetToken();
    return undefined;
  }
  return token;
}

export function forgetToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}
