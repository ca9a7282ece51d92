/**
 * Builds an OpenID Connect policy from its `multiauth.policy.<name>.*` options, and starts
 * fetching the provider's discovery document at once so that a misconfigured or unreachable
 * provider shows in the log at startup (requests needing it get a 503 until it answers).
 */
import { randomBytes } from "node:crypto";
import type { Cache } from "../../../application/ports/cache.js";
import type { JsonObject, JsonValue } from "../../../domain/json.js";
import { OpenIdConnectPolicy } from "./openid-connect-policy.js";
import { openIdSettings, unknownOpenIdOptions, type OpenIdSettings } from "./openid-settings.js";

export interface OpenIdPolicyDeps {
  readonly cache: Cache;
  /** Keys the hash of opaque tokens in the shared cache; empty: a random key of this process. */
  readonly hashKey: string;
  readonly warn: (message: string) => void;
}

export function createOpenIdPolicy(
  name: string,
  options: Readonly<Record<string, JsonValue>>,
  deps: OpenIdPolicyDeps,
): OpenIdConnectPolicy {
  const settings = openIdSettings(name, options);
  for (const option of unknownOpenIdOptions(options))
    deps.warn(`multiauth.policy.${name}.${option} is not an option of the OpenID Connect policy; ignored`);
  const policy = new OpenIdConnectPolicy(settings, {
    cache: deps.cache,
    hashKey: deps.hashKey || randomBytes(32).toString("hex"),
    onBackgroundFailure: (error) => deps.warn(`OpenID provider "${name}": key refresh failed, old keys kept (${describe(error)})`),
  });
  policy
    .warmUp()
    .catch((error: unknown) => deps.warn(`OpenID provider "${name}" (${settings.issuer}) is not reachable yet: ${describe(error)}`));
  return policy;
}

/**
 * Kinto's `openid` capability: one entry per provider, for clients to find where to sign in
 * (`discovery_url` leads to the authorization, token and userinfo endpoints).
 */
export function openIdCapability(
  policies: readonly { name: string; options: Readonly<Record<string, JsonValue>> }[],
  docs: string,
): JsonObject {
  return {
    description: "OpenID Connect bearer tokens, verified against each provider's keys.",
    url: docs,
    providers: policies.map(({ name, options }) => providerEntry(openIdSettings(name, options))),
  };
}

function providerEntry(s: OpenIdSettings): JsonObject {
  const entry: JsonObject = {
    name: s.name,
    issuer: s.issuer,
    client_id: s.clientId,
    header_type: s.headerType,
    userid_field: s.useridField,
    audience: s.audience,
    discovery_url: `${s.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`,
  };
  if (s.groupsClaim !== undefined) entry.groups_claim = s.groupsClaim;
  return entry;
}

function describe(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return error instanceof Error ? `${error.message}${cause}` : String(error);
}
