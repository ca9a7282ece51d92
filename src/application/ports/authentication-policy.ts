/** What an authentication policy sees of a request. */
export interface RequestCredentials {
  header(name: string): string | undefined;
}

/**
 * One policy of `multiauth.policies`. Policies are asked in order; the first that yields a user
 * id wins, and the id is prefixed with the policy name (`basicauth:<hash>`).
 */
export interface AuthenticationPolicy {
  readonly name: string;
  /** The user id (without prefix), or undefined when the request carries no usable credentials. */
  authenticate(request: RequestCredentials): string | undefined | Promise<string | undefined>;
  /** `WWW-Authenticate` value sent with a 401, when the policy has one. */
  readonly challenge?: string;
}
