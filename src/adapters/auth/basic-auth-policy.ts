/**
 * Built-in Basic Auth: any user:pass authenticates; the user id is the hex HMAC-SHA256 of
 * "user:pass" keyed with `userid_hmac_secret`, so it is predictable but hides the password.
 */
import { createHmac } from "node:crypto";
import type { AuthenticationPolicy, RequestCredentials } from "../../application/ports/authentication-policy.js";

/** Strict: an invalid sequence throws instead of becoming U+FFFD; a leading BOM is kept, as Python keeps it. */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * UTF-8, else Latin-1, as Kinto (Pyramid) decodes credentials: without loss, so that two byte
 * strings that are not valid UTF-8 never become the same text (and the same user).
 */
export function decodeCredentials(bytes: Buffer): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    return bytes.toString("latin1");
  }
}

/** Distinct Authorization values whose user id is remembered (oldest forgotten first). */
const REMEMBERED = 1000;

export class BasicAuthPolicy implements AuthenticationPolicy {
  readonly challenge = 'Basic realm="Realm"';
  // The HMAC is a pure function of the header: computing it once per client, not per request.
  private readonly remembered = new Map<string, string | undefined>();

  /** `name`: the policy's name in `multiauth.policies`, the user ids' prefix. */
  constructor(
    private readonly secret: string,
    readonly name = "basicauth",
  ) {}

  authenticate(request: RequestCredentials): string | undefined {
    const header = request.header("authorization");
    if (!header) return undefined;
    if (this.remembered.has(header)) return this.remembered.get(header);
    const id = this.identify(header);
    if (this.remembered.size >= REMEMBERED) this.remembered.delete(this.remembered.keys().next().value as string);
    this.remembered.set(header, id);
    return id;
  }

  private identify(header: string): string | undefined {
    const match = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    if (!match?.[1]) return undefined;
    const decoded = decodeCredentials(Buffer.from(match[1], "base64"));
    const colon = decoded.indexOf(":");
    if (colon <= 0) return undefined; // no separator or empty username: anonymous
    return this.userId(decoded);
  }

  /** The id of a `user:pass` pair. */
  userId(credentials: string): string {
    return createHmac("sha256", this.secret).update(credentials, "utf8").digest("hex");
  }
}
