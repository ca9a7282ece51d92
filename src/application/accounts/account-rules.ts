/** What an account id and a password may be (checked before any hash or storage call). */

/** Kinto's account ids: a letter or digit, then letters, digits and `.@_-` (no `:`: it ends a Basic username). */
const ACCOUNT_ID = /^[a-zA-Z0-9][.@a-zA-Z0-9_-]{0,127}$/;

/** Longer passwords are refused: hashing cost is bounded, and no one types 1024 characters. */
export const MAX_PASSWORD_LENGTH = 1024;

export const ACCOUNT_PREFIX = "account:";

export function isValidAccountId(id: string): boolean {
  return ACCOUNT_ID.test(id);
}

/** Why a password is refused, or undefined. */
export function passwordProblem(password: unknown): string | undefined {
  if (typeof password !== "string") return "Required";
  if (password.length === 0) return "Shorter than minimum length 1";
  if (password.length > MAX_PASSWORD_LENGTH) return `Longer than maximum length ${MAX_PASSWORD_LENGTH}`;
  // Control characters cannot be typed in a Basic Auth prompt; a lone surrogate has no UTF-8 form (two would hash alike).
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(password) || /[\uD800-\uDFFF]/u.test(password)) return "Contains characters a password may not hold";
  return undefined;
}

export function accountUserId(id: string): string {
  return `${ACCOUNT_PREFIX}${id}`;
}
