/** Runs the configured authentication policies in order and builds the request's Requester. */
import type { AuthenticationPolicy, RequestCredentials } from "./ports/authentication-policy.js";
import { anonymousRequester, authenticatedRequester, type GroupFinder, type Requester } from "./requester.js";

export class Authenticator {
  /** `WWW-Authenticate` for 401 responses: the first policy's challenge. */
  readonly challenge: string | undefined;

  constructor(
    private readonly policies: readonly AuthenticationPolicy[],
    private readonly groupFinder: GroupFinder,
    /** The finder is the permission backend's userPrincipals (so a store may read them with a record). */
    private readonly groupsFromPermissions = false,
  ) {
    this.challenge = policies.find((p) => p.challenge)?.challenge;
  }

  async identify(request: RequestCredentials): Promise<Requester> {
    for (const policy of this.policies) {
      const id = await policy.authenticate(request);
      if (id !== undefined) return authenticatedRequester(`${policy.name}:${id}`, this.groupFinder, this.groupsFromPermissions);
    }
    return anonymousRequester();
  }
}
