/**
 * The settings of one OpenID Connect policy, read from `multiauth.policy.<name>.*` under Kinto's
 * names (`issuer`, `client_id`, `client_secret`, `audience`, `userid_field`, `header_type`) plus
 * ours (`groups_claim`, clock skew, key refresh and cache times, userinfo lookups).
 */
import type { JsonValue } from "../../../domain/json.js";

/** The `.use` values that select this policy: Kinto's dotted name and our short one. */
export const OPENID_POLICY_NAMES: readonly string[] = ["kinto.plugins.openid.OpenIDConnectPolicy", "openid"];

export interface OpenIdSettings {
  /** The policy name: the user id prefix (`<name>:<sub>`). */
  readonly name: string;
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string | undefined;
  /** Expected `aud` of a JWT: `audience`, else `client_id`. */
  readonly audience: string;
  readonly useridField: string;
  readonly headerType: string;
  /** Claim (a dotted path reaches a nested one) whose values become `group:<value>` principals. */
  readonly groupsClaim: string | undefined;
  readonly clockSkewSeconds: number;
  /** Least time between two key fetches caused by an unknown `kid`. */
  readonly jwksCooldownSeconds: number;
  /** Age after which the discovery document and keys are fetched again (rotation). */
  readonly jwksMaxAgeSeconds: number;
  /** Whether opaque tokens are asked to the userinfo endpoint (`userinfo`, `auto` resolved). */
  readonly userinfo: boolean;
  /** Longest time a userinfo answer for an opaque token is reused. */
  readonly userinfoCacheSeconds: number;
  /** Userinfo lookups one client address may have refused (or pending) per window, then none. */
  readonly userinfoRefusalsPerAddress: number;
  readonly userinfoRefusalWindowSeconds: number;
  /** Time limit of one request to the provider. */
  readonly providerTimeoutSeconds: number;
}

/** Setting suffixes this policy reads (for the unknown-setting check). */
export const OPENID_SETTING_SUFFIXES: readonly string[] = [
  "use",
  "issuer",
  "client_id",
  "client_secret",
  "audience",
  "userid_field",
  "header_type",
  "groups_claim",
  "clock_skew_seconds",
  "jwks_cooldown_seconds",
  "jwks_max_age_seconds",
  "userinfo",
  "userinfo_cache_seconds",
  "userinfo_refusals_per_address",
  "userinfo_refusal_window_seconds",
  "provider_timeout_seconds",
];

export const OPENID_DEFAULTS = {
  useridField: "sub",
  headerType: "Bearer",
  clockSkewSeconds: 30,
  jwksCooldownSeconds: 30,
  jwksMaxAgeSeconds: 600,
  userinfoCacheSeconds: 300,
  userinfoRefusalsPerAddress: 10,
  userinfoRefusalWindowSeconds: 60,
  providerTimeoutSeconds: 5,
} as const;

export class OpenIdSettingsError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join("; "));
  }
}

/**
 * The settings of policy `name` from its options (`multiauth.policy.<name>.<option>` by option
 * name); throws OpenIdSettingsError listing every problem.
 */
export function openIdSettings(name: string, options: Readonly<Record<string, JsonValue>>): OpenIdSettings {
  const prefix = `multiauth.policy.${name}.`;
  const problems: string[] = [];
  const text = (suffix: string): string | undefined => {
    const value = options[suffix];
    if (value === undefined || value === null) return undefined;
    const result = (typeof value === "string" ? value : JSON.stringify(value)).trim();
    return result === "" ? undefined : result;
  };
  const required = (suffix: string): string => {
    const value = text(suffix);
    if (value === undefined) problems.push(`${prefix}${suffix} is required by the OpenID Connect policy "${name}"`);
    return value ?? "";
  };
  const seconds = (suffix: string, fallback: number, least: number): number => {
    const raw = text(suffix);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < least) {
      problems.push(`${prefix}${suffix} must be a number of seconds >= ${least}, not "${raw}"`);
      return fallback;
    }
    return value;
  };
  const count = (suffix: string, fallback: number): number => {
    const raw = text(suffix);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1) {
      problems.push(`${prefix}${suffix} must be a whole number >= 1, not "${raw}"`);
      return fallback;
    }
    return value;
  };
  const userinfo = (text("userinfo") ?? "auto").toLowerCase();
  if (!["true", "false", "auto"].includes(userinfo))
    problems.push(`${prefix}userinfo must be true, false or auto, not "${text("userinfo") ?? ""}"`);

  // Kept as written: a JWT's `iss` must equal it exactly, trailing slash included.
  const issuer = required("issuer");
  if (issuer && !isHttpUrl(issuer)) problems.push(`${prefix}issuer must be an http(s) URL, not "${issuer}"`);
  const clientId = required("client_id");
  const headerType = text("header_type") ?? OPENID_DEFAULTS.headerType;
  if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(headerType)) problems.push(`${prefix}header_type must be one word, not "${headerType}"`);
  const settings: OpenIdSettings = {
    name,
    issuer,
    clientId,
    clientSecret: text("client_secret"),
    audience: text("audience") ?? clientId,
    useridField: text("userid_field") ?? OPENID_DEFAULTS.useridField,
    headerType,
    groupsClaim: text("groups_claim"),
    clockSkewSeconds: seconds("clock_skew_seconds", OPENID_DEFAULTS.clockSkewSeconds, 0),
    jwksCooldownSeconds: seconds("jwks_cooldown_seconds", OPENID_DEFAULTS.jwksCooldownSeconds, 0),
    jwksMaxAgeSeconds: seconds("jwks_max_age_seconds", OPENID_DEFAULTS.jwksMaxAgeSeconds, 1),
    // auto: an `audience` (an API identifier) says tokens are JWT access tokens, checked here.
    userinfo: userinfo === "auto" ? text("audience") === undefined : userinfo === "true",
    userinfoCacheSeconds: seconds("userinfo_cache_seconds", OPENID_DEFAULTS.userinfoCacheSeconds, 0),
    userinfoRefusalsPerAddress: count("userinfo_refusals_per_address", OPENID_DEFAULTS.userinfoRefusalsPerAddress),
    userinfoRefusalWindowSeconds: seconds("userinfo_refusal_window_seconds", OPENID_DEFAULTS.userinfoRefusalWindowSeconds, 1),
    providerTimeoutSeconds: seconds("provider_timeout_seconds", OPENID_DEFAULTS.providerTimeoutSeconds, 0.1),
  };
  if (problems.length > 0) throw new OpenIdSettingsError(problems);
  return settings;
}

/** Options this policy does not know (a typo would otherwise be silently ignored). */
export function unknownOpenIdOptions(options: Readonly<Record<string, JsonValue>>): string[] {
  return Object.keys(options).filter((option) => !OPENID_SETTING_SUFFIXES.includes(option));
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.search === "" && url.hash === "";
  } catch {
    return false;
  }
}
