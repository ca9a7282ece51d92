/**
 * Authentication settings as Kinto (pyramid_multiauth) names them: `multiauth.policies` lists
 * policy names, each defined by `multiauth.policy.<name>.use` and its other
 * `multiauth.policy.<name>.*` options; `account_*` settings drive the accounts policy.
 * Parsed here so that settings.ts only calls `authSettings`.
 */
import type { JsonValue } from "../domain/json.js";
import { unknownSystemPrincipal } from "../domain/principals.js";
import { reservedPolicyName } from "./policy-names.js";
import type { SettingName, SettingValue } from "./settings-table.js";

/** One entry of `multiauth.policies`. */
export interface PolicySetting {
  /** The name in `multiauth.policies` (the user id prefix of most policies). */
  readonly name: string;
  /** Which implementation: our short name, Kinto's dotted names already mapped to it. */
  readonly use: string;
  /** Every `multiauth.policy.<name>.<option>` but `use`, by option name. */
  readonly options: Readonly<Record<string, JsonValue>>;
}

export interface AccountSettings {
  /** Who may sign up (`account_create_principals`, Kinto's default: anyone). */
  readonly createPrincipals: readonly string[];
  /** Administrators: may manage (write) every account / see (read) every account. */
  readonly writePrincipals: readonly string[];
  readonly readPrincipals: readonly string[];
  /** How long a verified credential is remembered in the cache backend. */
  readonly cacheTtlSeconds: number;
  /** How long each process trusts a verified credential without the cache read (0: never). */
  readonly localCacheSeconds: number;
  /** scrypt's cost as log2(N): 17 means N = 131072 (128 MiB with r = 8). */
  readonly scryptCost: number;
  /** Failed sign-ins allowed per account and per client address within the window, then 429. */
  readonly maxFailedSignIns: number;
  readonly failedSignInWindowSeconds: number;
}

export interface AuthSettings {
  readonly policies: readonly PolicySetting[];
  readonly accounts: AccountSettings;
}

/** Kinto's and our names of each implementation → our short name. */
const USE_ALIASES: Readonly<Record<string, string>> = {
  basicauth: "basicauth",
  "kinto.core.authentication.BasicAuthAuthenticationPolicy": "basicauth",
  accounts: "accounts",
  "kinto.plugins.accounts.AccountsPolicy": "accounts",
  "kinto.plugins.accounts.authentication.AccountsAuthenticationPolicy": "accounts",
  openid: "openid",
  "kinto.plugins.openid.OpenIDConnectPolicy": "openid",
};

/** Names that need no `.use`, as in Kinto's documented configurations. */
const IMPLICIT_USE: Readonly<Record<string, string>> = { basicauth: "basicauth", account: "accounts" };

/** Kinto plugins (`kinto.includes`) whose features are built in here. */
const BUILT_IN_PLUGINS = new Set(["kinto.plugins.accounts", "kinto.plugins.openid", "kinto.plugins.admin", "kinto.plugins.default_bucket"]);

/** The implementation a `use` value names: aliases mapped, any other name kept (code may register it). */
export function canonicalUse(use: string): string {
  return USE_ALIASES[use] ?? use;
}

/** The typed value of a setting of the table (settings.ts's parser). */
export type SettingValues = <Name extends SettingName>(name: Name) => SettingValue<Name>;

export function authSettings(
  raw: Readonly<Record<string, JsonValue>>,
  value: SettingValues,
  problems: string[],
  warnings: string[],
): AuthSettings {
  const policies = value("multiauth.policies").map((name) => policySetting(raw, name));
  const uses = new Set(policies.map((p) => p.use));
  for (const policy of policies) {
    const reserved = reservedPolicyName(policy.name, policy.use);
    if (reserved !== undefined) problems.push(reserved);
  }
  for (const name of value("includes"))
    if (!BUILT_IN_PLUGINS.has(name)) problems.push(`kinto.includes: the Kinto plugin "${name}" is not supported by Tessera (remove it)`);
  if (uses.has("accounts") && !value("userid_hmac_secret"))
    problems.push("userid_hmac_secret is required while an accounts policy is on (it keys the verified-credential cache)");
  if (uses.has("accounts") && value("resources").some((resource) => resource.name === "accounts"))
    problems.push('resources: "accounts" is the accounts endpoint while an accounts policy is on (rename the collection)');
  const basic = policies.find((p) => p.use === "basicauth");
  const real = policies.filter((p) => p.use !== "basicauth").map((p) => p.name);
  if (basic && real.length > 0 && !truthy(basic.options.wanted))
    warnings.push(
      `multiauth.policies: "${basic.name}" (Basic Auth where any user:password is a user) is on beside ${real.join(", ")}; ` +
        `a mistyped password signs in as another, empty user. Remove it, or set multiauth.policy.${basic.name}.wanted = true`,
    );
  return { policies, accounts: accountSettings(value, problems) };
}

function policySetting(raw: Readonly<Record<string, JsonValue>>, name: string): PolicySetting {
  const prefix = `multiauth.policy.${name}.`;
  const options: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(raw)) if (key.startsWith(prefix)) options[key.slice(prefix.length)] = value;
  const { use, ...rest } = options;
  const named = typeof use === "string" && use !== "" ? use : undefined;
  return { name, use: canonicalUse(named ?? IMPLICIT_USE[name] ?? name), options: rest };
}

function truthy(value: JsonValue | undefined): boolean {
  return value === true || (typeof value === "string" && ["true", "yes", "on", "1"].includes(value.toLowerCase())) || value === 1;
}

function accountSettings(value: SettingValues, problems: string[]): AccountSettings {
  const principals = (name: "account_create_principals" | "account_write_principals" | "account_read_principals"): string[] => {
    const list = value(name);
    const typo = unknownSystemPrincipal(list);
    if (typo !== undefined) problems.push(`${name}: ${typo}`);
    return list;
  };
  return {
    createPrincipals: principals("account_create_principals"),
    writePrincipals: principals("account_write_principals"),
    readPrincipals: principals("account_read_principals"),
    cacheTtlSeconds: value("account_cache_ttl_seconds"),
    localCacheSeconds: value("account_local_cache_seconds"),
    scryptCost: value("account_scrypt_cost"),
    maxFailedSignIns: value("account_max_failed_sign_ins"),
    failedSignInWindowSeconds: value("account_failed_sign_in_window_seconds"),
  };
}
