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
