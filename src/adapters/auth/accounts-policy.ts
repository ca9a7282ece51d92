/**
 * Kinto's accounts policy: `Authorization: Basic base64(<account id>:<password>)`; the user id is
 * `account:<id>` (whatever the policy's name in `multiauth.policies`, as in Kinto). A Basic
 * credential that is no account's is left to the next policy.
 */
import type { AccountSignIn } from "../../application/accounts/account-sign-in.js";
import type { Authenticated, AuthenticationPolicy, RequestCredentials } from "../../application/ports/authentication-policy.js";
import { decodeCredentials } from "./basic-auth-policy.js";

/** Longer headers carry no acceptable credential (ids are <= 128 characters, passwords <= 1024). */
const MAX_HEADER_LENGTH = 8192;

export class AccountsPolicy implements AuthenticationPolicy {
  readonly name = "account";
  readonly challenge = 'Basic realm="Realm"';

  constructor(private readonly signIn: AccountSignIn) {}

  async authenticate(request: RequestCredentials): Promise<Authenticated | undefined> {
    const header = request.header("authorization");
    if (!header || header.length > MAX_HEADER_LENGTH) return undefined;
    const match = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    if (!match?.[1]) return undefined;
    const decoded = decodeCredentials(Buffer.from(match[1], "base64"));
    const colon = decoded.indexOf(":");
    if (colon <= 0) return undefined;
    const signedIn = await this.signIn.signIn(decoded.slice(0, colon), decoded.slice(colon + 1), request);
    if (signedIn === undefined) return undefined;
    const { id, passwordTag } = signedIn;
    // Asked again when a stream follows its caller: a password changed or an account deleted ends it.
    return { userId: id, stillValid: () => this.signIn.stillCurrent(id, passwordTag) };
  }
}
