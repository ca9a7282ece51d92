/** Runs the configured authentication policies in order and builds the request's Requester. */
import type { AuthenticationPolicy, RequestCredentials } from "./ports/authentication-policy.js";
import { anonymousRequester, authenticatedRequester, type GroupFinder, type Requester } from "./requester.js";

export class Authenticator {
  /** `WWW-Authenticate` for 401 responses: one challenge per scheme of the policies, in policy order. */
  readonly challenge: string | undefined;

  constructor(
    private readonly policies: readonly AuthenticationPolicy[],
    private readonly groupFinder: GroupFinder,
    /** The finder is the permission backend's userPrincipals (so a store may read them with a record). */
    private readonly groupsFromPermissions = false,
  ) {
    const challenges = [...new Set(policies.flatMap((p) => (p.challenge ? [p.challenge] : [])))];
    // RFC 9110 §11.6.1: several challenges may share one header, separated by commas.
    this.challenge = challenges.length > 0 ? challenges.join(", ") : undefined;
  }

  async identify(request: RequestCredentials): Promise<Requester> {
    for (const policy of this.policies) {
      const result = await policy.authenticate(request);
      if (result === undefined) continue;
      const { userId, principals = [], stillValid } = typeof result === "string" ? { userId: result } : result;
      return authenticatedRequester(`${policy.name}:${userId}`, this.groupFinder, this.groupsFromPermissions, principals, stillValid);
    }
    return anonymousRequester();
  }
}
