/**
 * The only reader of the config file and of `process.env`. Precedence: defaults < config file
 * < environment (`TESSERA_<NAME>`). Values are parsed as JSON when they parse. Every problem is
 * collected and reported at once, before anything listens.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { jsonOrText, type JsonValue } from "../domain/json.js";
import { COLLECTION_NAME_PATTERN, type ResourceKind } from "../application/resources.js";
import { parseAddressRange } from "../adapters/http/client-address.js";
import { AUTH_DEFAULTS, authSettings, type AuthSettings } from "./auth-settings.js";
import { parseIni } from "./ini.js";
import { fromKintoBackend, fromKintoName, KINTO_PREFIX, unsupportedKintoSettings } from "./kinto-settings.js";
import { projectRoot } from "./project-root.js";

export const PROJECT_NAME = "tessera";
const PREFIX = `${PROJECT_NAME}.`;
export const DEVELOPMENT_SECRET = "development-secret-change-me";
export const DEFAULT_CONFIG_FILE = path.join(projectRoot(), "config", "tessera.ini");

export type StorageBackendName = "memory" | "postgresql";
export type PermissionBackendName = "memory" | "postgresql" | "redis";
export type CacheBackendName = "memory" | "postgresql" | "redis";

export interface BackendSettings<Name extends string> {
  readonly backend: Name;
  readonly url: string | undefined;
  readonly poolSize: number;
  readonly maxOverflow: number;
  readonly maxBacklog: number;
  readonly poolRecycleSeconds: number;
  readonly poolTimeoutSeconds: number;
  /** Longest statement on PostgreSQL (server-side, and client-side for a silent peer); 0: none. */
  readonly statementTimeoutSeconds: number;
  readonly passwordFile: string | undefined;
  readonly prefix: string;
}

export interface ResourceDeclaration {
  readonly name: string;
  readonly kind: ResourceKind;
}

export interface Settings {
  readonly listenHost: string;
  readonly listenPort: number;
  readonly resources: readonly ResourceDeclaration[];
  readonly storage: BackendSettings<StorageBackendName>;
  readonly permission: BackendSettings<PermissionBackendName> | undefined;
  readonly cache: BackendSettings<CacheBackendName>;
  readonly userIdHmacSecret: string;
  readonly multiauthPolicies: readonly string[];
  readonly auth: AuthSettings;
  readonly paginateBy: number | undefined;
  readonly storageMaxFetchSize: number;
  readonly batchMaxRequests: number | null;
  readonly retryAfterSeconds: number;
  readonly backoff: string | undefined;
  readonly corsOrigins: readonly string[];
  /** Undefined (empty setting): no Access-Control-Max-Age. */
  readonly corsMaxAgeSeconds: number | undefined;
  readonly errorInfoLink: string;
  readonly versionPrefixRedirectEnabled: boolean;
  readonly trailingSlashRedirectEnabled: boolean;
  /** -1: redirects carry no cache headers. */
  readonly versionPrefixRedirectTtlSeconds: number;
  readonly trailingSlashRedirectTtlSeconds: number;
  readonly httpScheme: string | undefined;
  readonly httpHost: string | undefined;
  readonly publicSettings: readonly string[];
  readonly readonly: boolean;
  readonly maxBodyBytes: number;
  readonly maxJsonDepth: number;
  readonly maxFilters: number;
  readonly maxSortFields: number;
  readonly maxUrlLength: number;
  readonly connections: ConnectionLimits;
  readonly heartbeatTimeoutSeconds: number;
  /** Live feed: seconds between keep-alive comment lines; bytes a subscriber may leave unread before it is dropped. */
  readonly feedKeepaliveSeconds: number;
  /** Period of the feed's check of watched collections' counters: the bound on a missed signal's delay. */
  readonly feedCatchUpSeconds: number;
  /** After SIGTERM, the process exits at the latest after this long, drained or not. */
  readonly shutdownTimeoutSeconds: number;
  readonly feedBufferBytes: number;
  /** Live feed: open streams per client address and per user; seconds a stream lasts before it ends cleanly (0: no limit). */
  readonly feedMaxStreamsPerAddress: number;
  readonly feedMaxStreamsPerUser: number;
  readonly feedMaxLifetimeSeconds: number;
  readonly logLevel: string;
  readonly metricsEnabled: boolean;
  /** A port of its own for `/v1/__metrics__` (then not served on the API port). */
  readonly metricsListenPort: number | undefined;
  readonly adminEnabled: boolean;
  /** Every setting, unprefixed, for per-collection lookups (`articles_read_principals`...). */
  readonly all: Readonly<Record<string, JsonValue>>;
  /** Problems that do not stop the service (development secret, unread sections). */
  readonly warnings: readonly string[];
  /** Setting names Tessera does not know; extensions may read them, the others are ignored. */
  readonly unknown: readonly string[];
}

/** How long a client may take and how many connections may be open (0 seconds: no limit). */
export interface ConnectionLimits {
  readonly requestTimeoutSeconds: number;
  readonly headersTimeoutSeconds: number;
  readonly keepAliveTimeoutSeconds: number;
  readonly maxConnections: number;
  /** Per client address (IPv6: per /64); a trusted proxy's connections count in the total only. */
  readonly maxConnectionsPerAddress: number;
  /** Addresses and CIDR ranges whose `X-Forwarded-For` is believed. */
  readonly trustedProxies: readonly string[];
}

export class SettingsError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

const DEFAULTS: Record<string, JsonValue> = {
  listen_host: "127.0.0.1",
  listen_port: 8888,
  resources: "",
  storage_backend: "memory",
  cache_backend: "memory",
  userid_hmac_secret: null,
  "multiauth.policies": "basicauth",
  paginate_by: null,
  storage_max_fetch_size: 10000,
  batch_max_requests: 25,
  retry_after_seconds: 30,
  backoff: null,
  cors_origins: "*",
  cors_max_age_seconds: 3600,
  error_info_link: "https://github.com/tessera-records/tessera/issues/",
  version_prefix_redirect_enabled: true,
  trailing_slash_redirect_enabled: true,
  version_prefix_redirect_ttl_seconds: -1,
  trailing_slash_redirect_ttl_seconds: 3600,
  http_scheme: null,
  http_host: null,
  public_settings: "",
  readonly: false,
  max_body_bytes: 1048576,
  max_json_depth: 64,
  max_filters: 20,
  max_sort_fields: 10,
  max_url_length: 8192,
  request_timeout_seconds: 30,
  headers_timeout_seconds: 10,
  keepalive_timeout_seconds: 5,
  max_connections: 1000,
  max_connections_per_address: 100,
  trusted_proxies: "",
  heartbeat_timeout_seconds: 10,
  feed_keepalive_seconds: 15,
  feed_catch_up_seconds: 2,
  shutdown_timeout_seconds: 15,
  feed_buffer_bytes: 1048576,
  feed_max_streams_per_address: 50,
  feed_max_streams_per_user: 10,
  feed_max_lifetime_seconds: 3600,
  log_level: "info",
  metrics_enabled: true,
  metrics_listen_port: null,
  admin_enabled: true,
  // Read by workers.ts: processes sharing the listening port.
  workers: 1,
  ...AUTH_DEFAULTS,
};

const BACKEND_KINDS = ["storage", "permission", "cache"] as const;
const POOL_DEFAULTS = {
  url: null,
  pool_size: null,
  maxoverflow: 10,
  max_backlog: -1,
  pool_recycle: -1,
  pool_timeout: 30,
  statement_timeout_seconds: 15,
  password_file: null,
  prefix: null,
};
for (const kind of BACKEND_KINDS) for (const [name, value] of Object.entries(POOL_DEFAULTS)) DEFAULTS[`${kind}_${name}`] = value;
DEFAULTS.permission_backend = null;

/** Setting names built from a collection name; the collection is validated separately. */
const DYNAMIC_SETTING =
  /^[a-zA-Z][a-zA-Z0-9_]*_(?:[a-z][a-z0-9_:]*_principals|cache_expires_seconds|(?:collection|record)_[a-z]+_enabled)$|^multiauth\.|^eos(?:_|$)/;

export interface SettingsSources {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Read config/tessera.ini when no file is named (true unless said otherwise). */
  readonly defaultFile?: boolean;
}

/** Reads, merges and validates; throws SettingsError listing every problem. */
export function loadSettings(sources: SettingsSources = { argv: process.argv.slice(2), env: process.env }): Settings {
  const problems: string[] = [];
  const warnings: string[] = [];
  const raw: Record<string, JsonValue> = { ...DEFAULTS };
  const configFile = configPath(sources);
  const kintoKeys = new Map<string, string>();
  if (configFile !== undefined) mergeFile(configFile, raw, problems, warnings, kintoKeys);
  const fromEnvironment = mergeEnvironment(sources.env, raw, problems);
  restoreCollectionCase(raw, fromEnvironment);
  for (const kind of BACKEND_KINDS) raw[`${kind}_backend`] = fromKintoBackend(raw[`${kind}_backend`]) ?? null;
  const collections = listValue(raw.resources).map((entry) => entry.split(":")[0] ?? "");
  const meaningful = (name: string) =>
    name in DEFAULTS ||
    /^multiauth\.|^eos(?:_|$)/.test(name) ||
    (DYNAMIC_SETTING.test(name) && collections.some((c) => name.startsWith(`${c}_`)));
  problems.push(...unsupportedKintoSettings(kintoKeys, meaningful));
  const unknown = Object.keys(raw).filter((key) => !(key in DEFAULTS) && !DYNAMIC_SETTING.test(key));
  const settings = { ...interpret(raw, problems, warnings), unknown };
  if (problems.length > 0) throw new SettingsError(problems);
  return settings;
}

function configPath({ argv, env, defaultFile = true }: SettingsSources): string | undefined {
  const flag = argv.indexOf("--config");
  if (flag >= 0 && argv[flag + 1]) return argv[flag + 1];
  const inline = argv.find((a) => a.startsWith("--config="));
  if (inline) return inline.slice("--config=".length);
  if (env.TESSERA_CONFIG) return env.TESSERA_CONFIG;
  return defaultFile && existsSync(DEFAULT_CONFIG_FILE) ? DEFAULT_CONFIG_FILE : undefined;
}

/** `kintoKeys` receives the settings written with Kinto's prefix (our name → key as written). */
function mergeFile(
  file: string,
  raw: Record<string, JsonValue>,
  problems: string[],
  warnings: string[],
  kintoKeys: Map<string, string>,
): void {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    problems.push(`cannot read config file ${file}: ${(error as Error).message}`);
    return;
  }
  const doc = parseIni(text);
  problems.push(...doc.errors.map((e) => `${file}: ${e.message}`));
  const used = doc.sections.has("app:main") ? "app:main" : "";
  const section = doc.sections.get(used);
  const ignored = [...doc.sections]
    .filter(([name, keys]) => name !== used && keys.size > 0)
    .map(([name]) => (name === "" ? "(no section)" : `[${name}]`));
  if (ignored.length > 0)
    warnings.push(
      `${file}: settings in ${ignored.join(", ")} are ignored; only ${used === "" ? "keys outside sections are" : "[app:main] is"} read`,
    );
  if (!section) return;
  const seen = new Map<string, { key: string; value: JsonValue }>();
  for (const [key, text] of section) {
    const kinto = key.startsWith(KINTO_PREFIX);
    const name = key.startsWith(PREFIX) ? key.slice(PREFIX.length) : kinto ? fromKintoName(key.slice(KINTO_PREFIX.length)) : key;
    if (kinto) kintoKeys.set(name, key);
    const value = jsonOrText(text);
    const earlier = seen.get(name);
    if (earlier && JSON.stringify(earlier.value) !== JSON.stringify(value)) {
      problems.push(`setting "${name}" is given both as "${earlier.key}" and "${key}" with different values`);
    }
    seen.set(name, { key, value });
    raw[name] = value;
  }
}

/** `TESSERA_STORAGE_URL` → `storage_url`; dotted names (`multiauth.policies`) are matched by their env form. */
function mergeEnvironment(env: Readonly<Record<string, string | undefined>>, raw: Record<string, JsonValue>, problems: string[]): string[] {
  const names: string[] = [];
  const dottedByEnvName = new Map(
    Object.keys(raw)
      .filter((k) => /[.-]/.test(k))
      .map((k) => [envName(k), k]),
  );
  const envPrefix = `${PROJECT_NAME.toUpperCase()}_`;
  for (const [variable, text] of Object.entries(env)) {
    if (!variable.startsWith(envPrefix) || variable === "TESSERA_CONFIG" || text === undefined) continue;
    const name = dottedByEnvName.get(variable) ?? variable.slice(envPrefix.length).toLowerCase();
    if (name.length === 0) problems.push(`environment variable ${variable} names no setting`);
    else {
      raw[name] = jsonOrText(text);
      names.push(name);
    }
  }
  return names;
}

/**
 * Environment names are upper case, so `TESSERA_MYNOTES_READ_PRINCIPALS` reads back as
 * `mynotes_read_principals`; a declared collection `MyNotes` gets it under its own spelling.
 */
function restoreCollectionCase(raw: Record<string, JsonValue>, fromEnvironment: readonly string[]): void {
  const collections = listValue(raw.resources).map((entry) => entry.split(":")[0] ?? "");
  for (const collection of collections) {
    const lower = `${collection.toLowerCase()}_`;
    if (lower === `${collection}_`) continue;
    for (const key of fromEnvironment) {
      const value = raw[key];
      if (!key.startsWith(lower) || value === undefined) continue;
      raw[`${collection}_${key.slice(lower.length)}`] = value;
      delete raw[key];
    }
  }
}

function envName(setting: string): string {
  return `${PROJECT_NAME.toUpperCase()}_${setting.toUpperCase().replace(/[.-]/g, "_")}`;
}

/** A setting as text: strings as written, other JSON values in JSON form (`5`, `true`). */
/** Shareable resources keep ACLs: they need a permission backend (settings and code both declare resources). */
export function permissionBackendProblem(
  permission: BackendSettings<string> | undefined,
  resources: readonly { name: string; kind: string }[],
): string | undefined {
  const shareable = resources.filter((r) => r.kind === "shareable").map((r) => r.name);
  if (permission || shareable.length === 0) return undefined;
  return `permission_backend is required: shareable resources are declared (${shareable.join(", ")})`;
}

export function text(value: JsonValue): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Whitespace-separated list (principals may contain commas). */
export function listValue(value: JsonValue | undefined): string[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.map(text);
  return text(value).split(/\s+/).filter(Boolean);
}

function interpret(raw: Record<string, JsonValue>, problems: string[], warnings: string[]): Omit<Settings, "unknown"> {
  const int = (name: string, min: number) => integerSetting(raw, name, min, problems);
  const optionalInt = (name: string, min: number) => (raw[name] === null ? undefined : int(name, min));
  const bool = (name: string) => booleanSetting(raw, name, problems);
  const positiveNumber = (name: string) => {
    if (raw[name] === 0) problems.push(`${name} must be greater than 0 (got 0)`);
    return numberSetting(raw, name, 0, problems);
  };
  const str = (name: string) => (raw[name] === null || raw[name] === undefined || raw[name] === "" ? undefined : text(raw[name]));
  const resources = parseResources(listValue(raw.resources), problems);
  const storage = backendSettings(raw, "storage", ["memory", "postgresql"] as const, problems, 10);
  const permissionName = str("permission_backend");
  const permission =
    permissionName === undefined
      ? undefined
      : backendSettings(raw, "permission", ["memory", "postgresql", "redis"] as const, problems, permissionName === "redis" ? 50 : 10);
  const cache = backendSettings(raw, "cache", ["memory", "postgresql", "redis"] as const, problems, 10);
  const missingBackend = permissionBackendProblem(permission, resources);
  if (missingBackend) problems.push(missingBackend);
  if (permission?.backend === "redis" && cache.backend === "redis" && permission.url === cache.url && permission.prefix === cache.prefix) {
    problems.push(
      "permission_prefix and cache_prefix must differ when both use one Redis database (flushing the cache would delete permissions)",
    );
  }
  const policies = listValue(raw["multiauth.policies"]);
  const secret = str("userid_hmac_secret");
  if (policies.includes("basicauth") && secret === undefined)
    problems.push("userid_hmac_secret is required while the basicauth policy is on");
  if (secret === DEVELOPMENT_SECRET)
    warnings.push("userid_hmac_secret is the shipped development value: set your own secret before real use");
  const batchMax = raw.batch_max_requests === null ? null : int("batch_max_requests", 1);
  for (const key of Object.keys(raw)) {
    if (key.endsWith("_cache_expires_seconds") && raw[key] !== null) integerSetting(raw, key, 0, problems);
  }
  const scheme = str("http_scheme");
  if (scheme !== undefined && !/^https?$/.test(scheme)) problems.push(`http_scheme must be http or https (got ${JSON.stringify(scheme)})`);
  const host = str("http_host");
  if (host !== undefined && !URL.canParse(`http://${host}/`))
    problems.push(`http_host must be a host name with an optional port (got ${JSON.stringify(host)})`);
  // An unreadable date would otherwise silently mean "end of service announced, never reached";
  // an empty `eos =` line means no end of service.
  if (raw.eos === "") raw.eos = null;
  if (raw.eos !== undefined && raw.eos !== null && (typeof raw.eos !== "string" || Number.isNaN(new Date(raw.eos).getTime()))) {
    problems.push(`eos must be a date such as 2030-06-01 (got ${JSON.stringify(raw.eos)})`);
  }
  return {
    listenHost: str("listen_host") ?? "127.0.0.1",
    listenPort: integerSetting(raw, "listen_port", 0, problems, 65535),
    resources,
    storage: storage,
    permission: permission,
    cache: cache,
    userIdHmacSecret: secret ?? "",
    multiauthPolicies: policies,
    auth: authSettings(raw, problems, warnings),
    paginateBy: optionalInt("paginate_by", 1),
    storageMaxFetchSize: int("storage_max_fetch_size", 1),
    batchMaxRequests: batchMax,
    retryAfterSeconds: int("retry_after_seconds", 0),
    backoff: str("backoff"),
    corsOrigins: listValue(raw.cors_origins),
    corsMaxAgeSeconds: raw.cors_max_age_seconds === "" || raw.cors_max_age_seconds === null ? undefined : int("cors_max_age_seconds", 0),
    errorInfoLink: str("error_info_link") ?? "",
    versionPrefixRedirectEnabled: bool("version_prefix_redirect_enabled"),
    trailingSlashRedirectEnabled: bool("trailing_slash_redirect_enabled"),
    versionPrefixRedirectTtlSeconds: int("version_prefix_redirect_ttl_seconds", -1),
    trailingSlashRedirectTtlSeconds: int("trailing_slash_redirect_ttl_seconds", -1),
    httpScheme: scheme,
    httpHost: host,
    publicSettings: listValue(raw.public_settings),
    readonly: bool("readonly"),
    maxBodyBytes: int("max_body_bytes", 1),
    maxJsonDepth: int("max_json_depth", 1),
    maxFilters: int("max_filters", 1),
    maxSortFields: int("max_sort_fields", 1),
    maxUrlLength: int("max_url_length", 16),
    connections: connectionLimits(raw, problems),
    heartbeatTimeoutSeconds: int("heartbeat_timeout_seconds", 0),
    feedKeepaliveSeconds: int("feed_keepalive_seconds", 1),
    feedCatchUpSeconds: positiveNumber("feed_catch_up_seconds"),
    shutdownTimeoutSeconds: positiveNumber("shutdown_timeout_seconds"),
    feedBufferBytes: int("feed_buffer_bytes", 1024),
    feedMaxStreamsPerAddress: int("feed_max_streams_per_address", 1),
    feedMaxStreamsPerUser: int("feed_max_streams_per_user", 1),
    feedMaxLifetimeSeconds: feedLifetime(raw, problems),
    logLevel: str("log_level") ?? "info",
    metricsEnabled: bool("metrics_enabled"),
    metricsListenPort: raw.metrics_listen_port === null ? undefined : integerSetting(raw, "metrics_listen_port", 0, problems, 65535),
    adminEnabled: bool("admin_enabled"),
    all: raw,
    warnings,
  };
}

/** A timer fires at most 2^31-1 ms ahead (node fires a longer one at once): about 24 days. */
const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

function feedLifetime(raw: Record<string, JsonValue>, problems: string[]): number {
  const seconds = numberSetting(raw, "feed_max_lifetime_seconds", 0, problems);
  if (seconds <= MAX_TIMER_SECONDS) return seconds;
  problems.push(`feed_max_lifetime_seconds must be at most ${MAX_TIMER_SECONDS} (about 24 days; 0: no limit) (got ${seconds})`);
  return 0;
}

function connectionLimits(raw: Record<string, JsonValue>, problems: string[]): ConnectionLimits {
  const limits = {
    requestTimeoutSeconds: numberSetting(raw, "request_timeout_seconds", 0, problems),
    headersTimeoutSeconds: numberSetting(raw, "headers_timeout_seconds", 0, problems),
    keepAliveTimeoutSeconds: numberSetting(raw, "keepalive_timeout_seconds", 0, problems),
    maxConnections: integerSetting(raw, "max_connections", 1, problems),
    maxConnectionsPerAddress: integerSetting(raw, "max_connections_per_address", 1, problems),
    trustedProxies: listValue(raw.trusted_proxies),
  };
  const badProxies = limits.trustedProxies.filter((entry) => parseAddressRange(entry) === undefined);
  if (badProxies.length > 0)
    problems.push(`trusted_proxies must list IP addresses or CIDR ranges such as 10.0.0.0/8 (got ${JSON.stringify(badProxies.join(" "))})`);
  // Headers are part of the request: node:http refuses a headers timeout above the request's.
  if (limits.requestTimeoutSeconds > 0 && limits.headersTimeoutSeconds > limits.requestTimeoutSeconds) {
    problems.push(
      `headers_timeout_seconds (${limits.headersTimeoutSeconds}) must not exceed request_timeout_seconds (${limits.requestTimeoutSeconds})`,
    );
  }
  return limits;
}

function parseResources(entries: string[], problems: string[]): ResourceDeclaration[] {
  const resources: ResourceDeclaration[] = [];
  for (const entry of entries) {
    const [name = "", kind = "", ...rest] = entry.split(":");
    if (!COLLECTION_NAME_PATTERN.test(name))
      problems.push(`resources: "${entry}" has an invalid collection name (letters, digits, _; starting with a letter)`);
    else if ((kind !== "user" && kind !== "shareable") || rest.length > 0)
      problems.push(`resources: "${entry}" must be <name>:user or <name>:shareable`);
    else if (resources.some((r) => r.name === name)) problems.push(`resources: "${name}" is declared twice`);
    else resources.push({ name, kind });
  }
  return resources;
}

function backendSettings<Name extends string>(
  raw: Record<string, JsonValue>,
  kind: string,
  names: readonly Name[],
  problems: string[],
  defaultPool: number,
): BackendSettings<Name> {
  const backend = text(raw[`${kind}_backend`] ?? null) as Name;
  if (!names.includes(backend)) problems.push(`${kind}_backend "${backend}" is unknown (expected one of: ${names.join(", ")})`);
  const rawUrl = raw[`${kind}_url`];
  const url = rawUrl === null || rawUrl === undefined ? undefined : text(rawUrl);
  if (backend !== "memory" && names.includes(backend) && url === undefined)
    problems.push(`${kind}_url is required for the ${backend} ${kind} backend`);
  const poolSize = raw[`${kind}_pool_size`] === null ? defaultPool : integerSetting(raw, `${kind}_pool_size`, 1, problems);
  const prefix = raw[`${kind}_prefix`];
  const passwordFile = raw[`${kind}_password_file`];
  return {
    backend,
    url,
    poolSize,
    maxOverflow: integerSetting(raw, `${kind}_maxoverflow`, 0, problems),
    maxBacklog: integerSetting(raw, `${kind}_max_backlog`, -1, problems),
    poolRecycleSeconds: integerSetting(raw, `${kind}_pool_recycle`, -1, problems),
    poolTimeoutSeconds: numberSetting(raw, `${kind}_pool_timeout`, 0, problems),
    statementTimeoutSeconds: numberSetting(raw, `${kind}_statement_timeout_seconds`, 0, problems),
    passwordFile: passwordFile === null || passwordFile === undefined ? undefined : text(passwordFile),
    prefix: prefix === null || prefix === undefined ? `${PROJECT_NAME}:${kind}:` : text(prefix),
  };
}

function numberSetting(raw: Record<string, JsonValue>, name: string, min: number, problems: string[]): number {
  const value = raw[name];
  if (typeof value !== "number" || !Number.isFinite(value) || value < min) {
    problems.push(`${name} must be a number >= ${min} (got ${JSON.stringify(value)})`);
    return min;
  }
  return value;
}

function integerSetting(
  raw: Record<string, JsonValue>,
  name: string,
  min: number,
  problems: string[],
  max = Number.MAX_SAFE_INTEGER,
): number {
  const value = raw[name];
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
    problems.push(
      `${name} must be an integer >= ${min}${max < Number.MAX_SAFE_INTEGER ? ` and <= ${max}` : ""} (got ${JSON.stringify(value)})`,
    );
    return min;
  }
  return value;
}

const TRUE_WORDS = new Set(["true", "yes", "on", "1"]);
const FALSE_WORDS = new Set(["false", "no", "off", "0"]);

/** JSON booleans, and the spellings INI files written for Pyramid use (`True`, `on`, `1`...). */
function booleanSetting(raw: Record<string, JsonValue>, name: string, problems: string[]): boolean {
  const value = raw[name];
  if (typeof value === "boolean") return value;
  const word = typeof value === "string" || typeof value === "number" ? String(value).toLowerCase() : "";
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  problems.push(`${name} must be true or false (got ${JSON.stringify(value)})`);
  return false;
}
