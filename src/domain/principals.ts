/** Principals: who a request acts as. Any string is a principal; these are the special ones. */
export const EVERYONE = "system.Everyone";
export const AUTHENTICATED = "system.Authenticated";

/** The identity of one request: its user id (absent when anonymous) and every principal it holds. */
export interface Caller {
  readonly userId: string | undefined;
  readonly principals: readonly string[];
}

export const ANONYMOUS: Caller = Object.freeze({ userId: undefined, principals: Object.freeze([EVERYONE]) });

/**
 * Principals of an authenticated user: Everyone, Authenticated, the user id first among the
 * user's own, then the extra principals the permission backend holds for them (groups...).
 */
export function callerPrincipals(userId: string, extra: Iterable<string>): Caller {
  const principals = new Set<string>([userId, EVERYONE, AUTHENTICATED]);
  for (const p of extra) principals.add(p);
  return { userId, principals: [...principals] };
}

/** The principal written into `write` on create/update: the user id, or Everyone when anonymous. */
export function writerPrincipal(caller: Caller): string {
  return caller.userId ?? EVERYONE;
}

/** A principal is any non-empty string without control characters. */
export function isValidPrincipal(value: unknown): value is string {
  // eslint-disable-next-line no-control-regex
  return typeof value === "string" && value.length > 0 && value.length <= 1024 && !/[\u0000-\u001f]/.test(value);
}

/** The `system.` principals that exist: any other (`system.everyone`) is a typo that would grant nothing. */
const SYSTEM_PRINCIPALS: ReadonlySet<string> = new Set([EVERYONE, AUTHENTICATED]);

/** Why a list of principals is refused for naming an unknown `system.` principal, or undefined. */
export function unknownSystemPrincipal(principals: Iterable<string>): string | undefined {
  for (const principal of principals)
    if (/^system\./i.test(principal) && !SYSTEM_PRINCIPALS.has(principal))
      return `"${principal}" is not a system principal (${[...SYSTEM_PRINCIPALS].join(", ")})`;
  return undefined;
}
