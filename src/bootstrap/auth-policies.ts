/**
 * The authentication policy chain built from `multiauth.policies`: a registry from an
 * implementation's name (`multiauth.policy.<name>.use`, see auth-settings.ts) to the factory that
 * builds it from the policy's name, its `multiauth.policy.<name>.*` options and shared services.
 * To add an implementation, add one line to POLICY_FACTORIES.
 */
import type { JsonValue } from "../domain/json.js";
import type { ExtensionContext, TesseraExtension } from "../application/extension.js";
import type { AuthenticationPolicy } from "../application/ports/authentication-policy.js";
import type { Cache } from "../application/ports/cache.js";
import { AccountsPolicy } from "../adapters/auth/accounts-policy.js";
import { BasicAuthPolicy } from "../adapters/auth/basic-auth-policy.js";
import type { Accounts } from "./auth-accounts.js";
import type { PolicySetting } from "./auth-settings.js";
import type { Settings } from "./settings.js";

/** What a policy may need to be built. */
export interface PolicyDeps {
  readonly settings: Settings;
  /** The cache backend, shared by every process (verified credentials, provider keys...). */
  readonly cache: Cache;
  readonly context: ExtensionContext;
  readonly warn: (message: string) => void;
  /** Present when a policy uses accounts. */
  readonly accounts?: Accounts;
}

export type PolicyFactory = (name: string, options: Readonly<Record<string, JsonValue>>, deps: PolicyDeps) => AuthenticationPolicy;

/** Implementations by their short name (`.use` values; Kinto's dotted names are mapped in auth-settings.ts). */
export const POLICY_FACTORIES: Readonly<Record<string, PolicyFactory>> = {
  basicauth: (name, _options, deps) => new BasicAuthPolicy(deps.settings.userIdHmacSecret, name),
  accounts: (_name, _options, deps) => new AccountsPolicy(required(deps.accounts, "accounts").signIn),
};

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`the ${what} policy needs a storage backend that keeps ${what}`);
  return value;
}

/** The registry with the policies code registers (by the name `multiauth.policies` uses). */
function registry(extensions: readonly TesseraExtension[]): Record<string, PolicyFactory> {
  const factories: Record<string, PolicyFactory> = { ...POLICY_FACTORIES };
  for (const extension of extensions)
    for (const [use, create] of Object.entries(extension.authenticationPolicies ?? {}))
      factories[use] = (_n, _o, deps) => create(deps.context);
  return factories;
}

/** One startup problem per configured policy whose implementation nobody registers. */
export function unregisteredPolicies(policies: readonly PolicySetting[], extensions: readonly TesseraExtension[]): string[] {
  const factories = registry(extensions);
  const known = Object.keys(factories).join(", ");
  return policies
    .filter((policy) => factories[policy.use] === undefined)
    .map((policy) =>
      policy.use === policy.name
        ? `multiauth.policies names "${policy.name}", which no code registers (set multiauth.policy.${policy.name}.use to one of: ${known})`
        : `multiauth.policy.${policy.name}.use is "${policy.use}", which no code registers (known: ${known})`,
    );
}

/** The configured chain, in order. */
export function authenticationPolicies(
  policies: readonly PolicySetting[],
  extensions: readonly TesseraExtension[],
  deps: PolicyDeps,
): AuthenticationPolicy[] {
  const factories = registry(extensions);
  return policies.flatMap((policy) => factories[policy.use]?.(policy.name, policy.options, deps) ?? []);
}

/** The root view's `capabilities` for the enabled policies, as Kinto announces its plugins. */
export function authCapabilities(policies: readonly PolicySetting[], docs: string): Record<string, JsonValue> {
  const uses = new Set(policies.map((p) => p.use));
  const capabilities: Record<string, JsonValue> = {};
  if (uses.has("basicauth"))
    capabilities.basicauth = { description: "Very basic authentication sessions. Not for production use.", url: docs };
  if (uses.has("accounts")) capabilities.accounts = { description: "Manage user accounts.", url: docs };
  return capabilities;
}
