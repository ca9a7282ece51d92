/** What an authentication policy sees of a request. */
export interface RequestCredentials {
  header(name: string): string | undefined;
  /** The client's address (after trusted proxies), for per-address bounds such as sign-in throttling. */
  readonly clientAddress?: string;
  /**
   * A signal that aborts when the client goes before its answer, so that work queued for it (a
   * password hash) is dropped. Made on demand: most requests never wait for anything.
   */
  clientGone?(): AbortSignal | undefined;
}

/**
 * A policy's answer beside the bare user id: extra principals the credential itself carries
 * (groups from a token claim, `group:<name>`), added to the requester's principals.
 */
export interface Authenticated {
  /** The user id, without the policy prefix. */
  readonly userId: string;
  readonly principals?: readonly string[];
  /**
   * Whether the credential still holds (false once its password was changed or its account
   * deleted): asked again before a long-lived view (an open stream) follows its caller.
   */
  readonly stillValid?: () => Promise<boolean>;
}

/**
 * One policy of `multiauth.policies`. Policies are asked in order; the first that yields a user
 * id wins, and the id is prefixed with the policy name (`basicauth:<hash>`, `account:alice`).
 */
export interface AuthenticationPolicy {
  readonly name: string;
  /** The user id (without prefix) or a fuller answer, or undefined when the request carries no usable credentials. */
  authenticate(request: RequestCredentials): AuthenticationResult | Promise<AuthenticationResult>;
  /** `WWW-Authenticate` challenge sent with a 401, when the policy has one. */
  readonly challenge?: string;
}

export type AuthenticationResult = string | Authenticated | undefined;
