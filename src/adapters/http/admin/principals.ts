/** Principals as people read them: names stay names, a Basic Auth hash is cut short (its full text in a tooltip). */

export interface ReadablePrincipal {
  readonly text: string;
  /** The full principal, and what a system principal means; undefined when the text says it all. */
  readonly title: string | undefined;
}

const MEANINGS: Readonly<Record<string, string>> = {
  "system.Everyone": "everyone, signed in or not",
  "system.Authenticated": "every signed-in user",
};
/** `basicauth:` and 64 hex digits: a hash of `user:password`, meaningless to read in full. */
const HASHED = /^(basicauth:)([0-9a-f]{64})$/i;
const SHOWN_DIGITS = 8;

export function readablePrincipal(principal: string, you?: string): ReadablePrincipal {
  const yours = you !== undefined && principal === you ? " (you)" : "";
  const hashed = HASHED.exec(principal);
  if (hashed) return { text: `${hashed[1]}${hashed[2]?.slice(0, SHOWN_DIGITS)}…${yours}`, title: principal };
  const meaning = MEANINGS[principal];
  return { text: `${principal}${yours}`, title: meaning === undefined ? undefined : `${principal}: ${meaning}` };
}

/**
 * What the sharing field makes of what was typed: a principal as is (`account:bob`, `group:x`,
 * `system.Authenticated`, a hash), and a bare name (`bob`) as that account when the service has
 * accounts, since that is the only thing a bare name can mean there.
 */
export function principalFromInput(typed: string, accounts: boolean): string {
  const trimmed = typed.trim();
  if (accounts && /^[A-Za-z0-9_.@+-]+$/.test(trimmed) && !trimmed.includes(":") && !trimmed.startsWith("system."))
    return `account:${trimmed}`;
  return trimmed;
}
