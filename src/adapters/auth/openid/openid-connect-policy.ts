/**
 * Kinto's OpenIDConnectPolicy, verifying locally: `Authorization: <header_type> <token>` where the
 * token is a JWT signed by one of the provider's keys (issuer, audience, expiry and not-before
 * checked, with `clock_skew_seconds` of tolerance; asymmetric algorithms only). An opaque token
 * is asked to the provider's userinfo endpoint, when `userinfo` is on. The user id is `<policy name>:<userid_field>`;
 * the groups claim gives `group:<value>` principals.
 *
 * A token this provider does not vouch for yields no user (the next policy may know it; with
 * none, the request is anonymous and a 401 comes where authentication is needed), as in Kinto.
 * A provider that cannot be reached makes the request fail with a 503 (BackendError), never a 500.
 */
import { errors, jwtVerify } from "jose";
import type { Authenticated, AuthenticationPolicy, RequestCredentials } from "../../../application/ports/authentication-policy.js";
import type { Cache } from "../../../application/ports/cache.js";
import { BackendError } from "../../../domain/errors.js";
import type { OpenIdSettings } from "./openid-settings.js";
import { ProviderUnavailable } from "./provider-fetch.js";
import { ProviderKeys } from "./provider-keys.js";
import { RememberedTokens } from "./remembered-tokens.js";
import { identityFrom, type TokenIdentity } from "./token-claims.js";
import { tokenFrom, tokenShape } from "./token-shape.js";
import { UserinfoLookup } from "./userinfo-lookup.js";

/** Signature algorithms with a public key; `none` and the HMAC ones (HS*) are never accepted. */
export const ASYMMETRIC_ALGORITHMS: readonly string[] = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

/** Distinct accepted tokens remembered per provider. */
const REMEMBERED_TOKENS = 10_000;
/** A remembered token is checked again at least this often (a key withdrawn by the provider). */
const REMEMBER_AT_MOST_MS = 5 * 60_000;

export interface OpenIdPolicyOptions {
  readonly cache: Cache;
  /** Keys the hash of opaque tokens in the cache. */
  readonly hashKey: string;
  readonly now?: () => number;
  /** Told about a background key refresh that failed (the old keys keep serving). */
  readonly onBackgroundFailure?: (error: unknown) => void;
}

export class OpenIdConnectPolicy implements AuthenticationPolicy {
  readonly name: string;
  readonly challenge: string;
  private readonly keys: ProviderKeys;
  private readonly userinfo: UserinfoLookup;
  private readonly remembered: RememberedTokens;
  private readonly now: () => number;

  constructor(
    readonly settings: OpenIdSettings,
    options: OpenIdPolicyOptions,
  ) {
    this.name = settings.name;
    this.challenge = `${settings.headerType} realm="Realm"`;
    this.now = options.now ?? Date.now;
    this.keys = new ProviderKeys(settings, this.now, options.onBackgroundFailure);
    this.userinfo = new UserinfoLookup(settings, this.keys, options.cache, options.hashKey, this.now);
    this.remembered = new RememberedTokens(REMEMBERED_TOKENS, this.now);
  }

  /** The user id (`userid_field`) and the groups claim's `group:<value>` principals. */
  async authenticate(request: RequestCredentials): Promise<Authenticated | undefined> {
    const identity = await this.identify(request);
    return identity && { userId: identity.subject, principals: identity.groups };
  }

  /** Who the request's token names, with their groups; undefined when it carries no token this provider vouches for. */
  async identify(request: RequestCredentials): Promise<TokenIdentity | undefined> {
    const token = tokenFrom(request.header("authorization"), this.settings.headerType);
    if (token === undefined) return undefined;
    const known = this.remembered.get(token);
    if (known) return known;
    try {
      return await this.verify(token, request.clientAddress);
    } catch (error) {
      if (error instanceof ProviderUnavailable) throw new BackendError(`openid:${this.name}`, error);
      throw error;
    }
  }

  /** Fetches the discovery document and keys now, so that an unreachable or misconfigured provider shows at startup. */
  warmUp(): Promise<void> {
    return this.keys.discovery().then(() => undefined);
  }

  private async verify(token: string, clientAddress: string | undefined): Promise<TokenIdentity | undefined> {
    const shape = tokenShape(token);
    if (shape.form === "junk") return undefined;
    if (shape.form === "opaque") {
      // Off: this provider vouches for JWTs only, and an invented opaque token costs nothing.
      if (!this.settings.userinfo) return undefined;
      const found = await this.userinfo.identify(token, clientAddress);
      if (found) this.remembered.remember(token, found.identity, this.now() + Math.min(found.seconds * 1000, REMEMBER_AT_MOST_MS));
      return found?.identity;
    }
    // Another provider's token (or a forged issuer) is not ours to judge, nor worth a key fetch.
    if (shape.claims.iss !== this.settings.issuer || !ASYMMETRIC_ALGORITHMS.includes(String(shape.header.alg))) return undefined;
    let claims;
    try {
      ({ payload: claims } = await jwtVerify(token, this.keys.key, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        algorithms: [...ASYMMETRIC_ALGORITHMS],
        clockTolerance: this.settings.clockSkewSeconds,
        requiredClaims: ["exp"],
        currentDate: new Date(this.now()),
      }));
    } catch (error) {
      // jose's errors are verdicts on the token; ProviderUnavailable (keys not fetched) is not one.
      if (error instanceof errors.JOSEError) return undefined;
      throw error;
    }
    const identity = identityFrom(claims, this.settings.useridField, this.settings.groupsClaim);
    const expires = (claims.exp ?? 0) * 1000 + this.settings.clockSkewSeconds * 1000;
    if (identity) this.remembered.remember(token, identity, Math.min(expires, this.now() + REMEMBER_AT_MOST_MS));
    return identity;
  }
}
