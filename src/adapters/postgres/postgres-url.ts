/** Connection URL helpers. */
import { readFileSync } from "node:fs";

/**
 * The URL with the password read from `passwordFile` (its trailing newline ignored), if any.
 * Put in the URL because pg lets a URL's (even empty) password win over a `password` option.
 */
export function urlWithPassword(url: string, passwordFile: string | undefined): string {
  if (passwordFile === undefined) return url;
  const password = readFileSync(passwordFile, "utf8").replace(/\r?\n$/, "");
  const parsed = new URL(url);
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}

/**
 * The URL with `sessionOptions` (`-c name=value ...`) put before any `options` it already has, so
 * that an operator's own settings (`?options=-c synchronous_commit=off`) still apply and win.
 * A URL the WHATWG parser refuses is returned as is, with the options to pass separately.
 */
export function urlWithSessionOptions(url: string, sessionOptions: string): { url: string; options?: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url, options: sessionOptions };
  }
  const own = parsed.searchParams.get("options");
  parsed.searchParams.set("options", own ? `${sessionOptions} ${own}` : sessionOptions);
  return { url: parsed.toString() };
}
