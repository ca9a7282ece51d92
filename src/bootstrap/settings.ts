/**
 * The only reader of the config file and of `process.env`. Precedence: defaults < config file
 * < environment (`TESSERA_<NAME>`). Values are parsed as JSON when they parse. Every problem is
 * collected and reported at once, before anything listens.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { jsonOrText, type JsonValue } from "../domain/json.js";
import { authSettings, type AuthSettings } from "./auth-settings.js";
import { parseIni } from "./ini.js";
import { fromKintoBackend, fromKintoName, KINTO_PREFIX, unsupportedKintoSettings } from "./kinto-settings.js";
import { projectRoot } from "./project-root.js";
import {
  BACKENDS,
  environmentName,
  SETTINGS,
  settingPattern,
  settingRow,
  type BackendKind,
  type ResourceDeclaration,
  type SettingName,
  type SettingRow,
  type SettingValue,
} from "./settings-table.js";
import { listValue, text } from "./settings-table-types.js";

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
  /** PostgreSQL streaming replicas that may answer reads (storage and permission backends); none: every read on `url`. */
  readonly replicaUrls: readonly string[];
  /** Longest wait of a read for a replica (`replica_max_wait_milliseconds`). */
  readonly replicaMaxWaitMs: number;
}

export type { ResourceDeclaration } from "./settings-table.js";

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
  /** Records one group change may give or take per holder and collection before its clients are asked to resync. */
  readonly groupChangeMaxRecords: number;
  /** Period of the feed's check of watched collections' counters: the bound on a missed signal's delay. */
  readonly feedCatchUpSeconds: number;
  /** Lease of a serving process in the principal fence (docs/feed-fence.md); 0: no fence, signals only. */
  readonly feedLeaseSeconds: number;
  /** Levels of nested groups the permission backend follows in a user's principals. */
  readonly groupMaxDepth: number;
  /** Who may create groups (the group resource), and how many members one may list. */
  readonly groupCreatePrincipals: readonly string[];
  readonly groupMaxMembers: number;
  /** Who may create buckets of the tree; whether tree collections' `schema` validates their records. */
  readonly bucketCreatePrincipals: readonly string[];
  readonly collectionSchemaValidation: boolean;
  /** Key of users' `default` bucket ids. */
  readonly defaultBucketHmacSecret: string;
  /** After SIGTERM, the process exits at the latest after this long, drained or not. */
  readonly shutdownTimeoutSeconds: number;
  readonly feedBufferBytes: number;
  /** Live feed: open streams per client address and per user; seconds a stream lasts before it ends cleanly (0: no limit). */
  readonly feedMaxStreamsPerAddress: number;
  readonly feedMaxStreamsPerUser: number;
  readonly feedMaxLifetimeSeconds: number;
  /** Live feed: the reconnection delay told to clients (`retry:`). */
  readonly feedRetrySeconds: number;
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

/** Every setting with a default, as if written in the config file (the table's unset ones stay absent). */
const DEFAULTS: Readonly<Record<string, JsonValue>> = Object.fromEntries(
  Object.entries(SETTINGS as Record<string, SettingRow<unknown>>).flatMap(([name, row]) =>
    row.default === undefined ? [] : [[name, row.default]],
  ),
);

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
  for (const kind of BACKENDS) raw[`${kind}_backend`] = fromKintoBackend(raw[`${kind}_backend`]) ?? null;
  const collections = listValue(raw.resources).map((entry) => entry.split(":")[0] ?? "");
  const meaningful = (name: string) => {
    if (settingRow(name)) return true;
    const pattern = settingPattern(name);
    return pattern !== undefined && (!pattern.perResource || collections.some((c) => name.startsWith(`${c}_`)));
  };
  problems.push(...unsupportedKintoSettings(kintoKeys, meaningful));
  const unknown = Object.keys(raw).filter((key) => !settingRow(key) && !settingPattern(key));
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
    [...Object.keys(SETTINGS), ...Object.keys(raw)].filter((k) => /[.-]/.test(k)).map((k) => [environmentName(k), k]),
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

/** Shareable resources keep ACLs: they need a permission backend (settings and code both declare resources). */
export function permissionBackendProblem(
  permission: BackendSettings<string> | undefined,
  resources: readonly { name: string; kind: string }[],
): string | undefined {
  const shareable = resources.filter((r) => r.kind === "shareable").map((r) => r.name);
  if (permission || shareable.length === 0) return undefined;
  return `permission_backend is required: shareable resources are declared (${shareable.join(", ")})`;
}

/** Each value checked by its row's (or its pattern's) type: the values the code uses, by name. */
function parseAll(raw: Record<string, JsonValue>, problems: string[]): <Name extends SettingName>(name: Name) => SettingValue<Name> {
  const parsed = new Map<string, unknown>();
  for (const [name, row] of Object.entries(SETTINGS as Record<string, SettingRow<unknown>>)) {
    const result = row.type.parse(raw[name] ?? null, name);
    problems.push(...result.problems);
    parsed.set(name, result.value);
  }
  for (const [name, value] of Object.entries(raw)) {
    const pattern = settingRow(name) ? undefined : settingPattern(name);
    if (!pattern) continue;
    const result = pattern.type.parse(value, name);
    problems.push(...result.problems);
    if (pattern.normalized && result.problems.length === 0) raw[name] = result.value as JsonValue;
  }
  return <Name extends SettingName>(name: Name) => parsed.get(name) as SettingValue<Name>;
}

function interpret(raw: Record<string, JsonValue>, problems: string[], warnings: string[]): Omit<Settings, "unknown"> {
  // An empty `eos =` line means no end of service.
  if (raw.eos === "") raw.eos = null;
  const value = parseAll(raw, problems);
  const resources = value("resources");
  const permissionName = value("permission_backend");
  const storage = backendSettings(value, "storage", value("storage_backend"), problems);
  const permission = permissionName === undefined ? undefined : backendSettings(value, "permission", permissionName, problems);
  const cache = backendSettings(value, "cache", value("cache_backend"), problems);
  const missingBackend = permissionBackendProblem(permission, resources);
  if (missingBackend) problems.push(missingBackend);
  if (permission?.backend === "redis" && cache.backend === "redis" && permission.url === cache.url && permission.prefix === cache.prefix) {
    problems.push(
      "permission_prefix and cache_prefix must differ when both use one Redis database (flushing the cache would delete permissions)",
    );
  }
  const policies = value("multiauth.policies");
  const secret = value("userid_hmac_secret");
  if (policies.includes("basicauth") && secret === undefined)
    problems.push("userid_hmac_secret is required while the basicauth policy is on");
  if (secret === DEVELOPMENT_SECRET)
    warnings.push("userid_hmac_secret is the shipped development value: set your own secret before real use");
  return {
    listenHost: value("listen_host"),
    listenPort: value("listen_port"),
    resources,
    storage,
    permission,
    cache,
    userIdHmacSecret: secret ?? "",
    multiauthPolicies: policies,
    auth: authSettings(raw, value, problems, warnings),
    paginateBy: value("paginate_by"),
    storageMaxFetchSize: value("storage_max_fetch_size"),
    batchMaxRequests: value("batch_max_requests"),
    retryAfterSeconds: value("retry_after_seconds"),
    backoff: value("backoff"),
    corsOrigins: value("cors_origins"),
    corsMaxAgeSeconds: value("cors_max_age_seconds"),
    errorInfoLink: value("error_info_link") ?? "",
    versionPrefixRedirectEnabled: value("version_prefix_redirect_enabled"),
    trailingSlashRedirectEnabled: value("trailing_slash_redirect_enabled"),
    versionPrefixRedirectTtlSeconds: value("version_prefix_redirect_ttl_seconds"),
    trailingSlashRedirectTtlSeconds: value("trailing_slash_redirect_ttl_seconds"),
    httpScheme: value("http_scheme"),
    httpHost: value("http_host"),
    publicSettings: value("public_settings"),
    readonly: value("readonly"),
    maxBodyBytes: value("max_body_bytes"),
    maxJsonDepth: value("max_json_depth"),
    maxFilters: value("max_filters"),
    maxSortFields: value("max_sort_fields"),
    maxUrlLength: value("max_url_length"),
    connections: connectionLimits(value, problems),
    heartbeatTimeoutSeconds: value("heartbeat_timeout_seconds"),
    feedKeepaliveSeconds: value("feed_keepalive_seconds"),
    groupChangeMaxRecords: value("group_change_max_records"),
    feedCatchUpSeconds: value("feed_catch_up_seconds"),
    feedLeaseSeconds: value("feed_lease_seconds"),
    groupMaxDepth: value("group_max_depth"),
    groupCreatePrincipals: value("group_create_principals"),
    groupMaxMembers: value("group_max_members"),
    bucketCreatePrincipals: value("bucket_create_principals"),
    collectionSchemaValidation: value("experimental_collection_schema_validation"),
    defaultBucketHmacSecret: value("default_bucket_hmac_secret") ?? value("userid_hmac_secret") ?? "",
    shutdownTimeoutSeconds: value("shutdown_timeout_seconds"),
    feedBufferBytes: value("feed_buffer_bytes"),
    feedMaxStreamsPerAddress: value("feed_max_streams_per_address"),
    feedMaxStreamsPerUser: value("feed_max_streams_per_user"),
    feedMaxLifetimeSeconds: value("feed_max_lifetime_seconds"),
    feedRetrySeconds: value("feed_retry_seconds"),
    logLevel: value("log_level"),
    metricsEnabled: value("metrics_enabled"),
    metricsListenPort: value("metrics_listen_port"),
    adminEnabled: value("admin_enabled"),
    all: raw,
    warnings,
  };
}

type Value = ReturnType<typeof parseAll>;

function connectionLimits(value: Value, problems: string[]): ConnectionLimits {
  const limits = {
    requestTimeoutSeconds: value("request_timeout_seconds"),
    headersTimeoutSeconds: value("headers_timeout_seconds"),
    keepAliveTimeoutSeconds: value("keepalive_timeout_seconds"),
    maxConnections: value("max_connections"),
    maxConnectionsPerAddress: value("max_connections_per_address"),
    trustedProxies: value("trusted_proxies"),
  };
  // Headers are part of the request: node:http refuses a headers timeout above the request's.
  if (limits.requestTimeoutSeconds > 0 && limits.headersTimeoutSeconds > limits.requestTimeoutSeconds) {
    problems.push(
      `headers_timeout_seconds (${limits.headersTimeoutSeconds}) must not exceed request_timeout_seconds (${limits.requestTimeoutSeconds})`,
    );
  }
  return limits;
}

/** Redis serves many small commands per connection: its pool defaults larger than a database's. */
const DEFAULT_POOL_SIZE = { relational: 10, redis: 50 } as const;

function backendSettings<Name extends string>(value: Value, kind: BackendKind, backend: Name, problems: string[]): BackendSettings<Name> {
  const url = value(`${kind}_url`);
  if (backend !== "memory" && url === undefined) problems.push(`${kind}_url is required for the ${backend} ${kind} backend`);
  return {
    backend,
    url,
    poolSize:
      value(`${kind}_pool_size`) ?? (kind === "permission" && backend === "redis" ? DEFAULT_POOL_SIZE.redis : DEFAULT_POOL_SIZE.relational),
    maxOverflow: value(`${kind}_maxoverflow`),
    maxBacklog: value(`${kind}_max_backlog`),
    poolRecycleSeconds: value(`${kind}_pool_recycle`),
    poolTimeoutSeconds: value(`${kind}_pool_timeout`),
    statementTimeoutSeconds: value(`${kind}_statement_timeout_seconds`),
    passwordFile: value(`${kind}_password_file`),
    prefix: value(`${kind}_prefix`) ?? `${PROJECT_NAME}:${kind}:`,
    replicaUrls: kind === "cache" ? [] : replicaUrls(value(`${kind}_replica_urls`), kind, backend, problems),
    replicaMaxWaitMs: value("replica_max_wait_milliseconds"),
  };
}

/** Replicas make sense only of a PostgreSQL backend, and each must be a PostgreSQL URL. */
function replicaUrls(urls: readonly string[], kind: BackendKind, backend: string, problems: string[]): readonly string[] {
  if (urls.length === 0) return urls;
  if (backend !== "postgresql") problems.push(`${kind}_replica_urls needs the postgresql ${kind} backend (it is ${backend})`);
  for (const url of urls) if (!/^postgres(ql)?:\/\//.test(url)) problems.push(`${kind}_replica_urls: "${url}" is not a postgresql:// URL`);
  return urls;
}

export { listValue, text };
