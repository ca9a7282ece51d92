/**
 * Every setting Tessera reads: name, type, default and meaning, in one table. The parser
 * (settings.ts) takes its defaults, environment names, checks and problem texts from here, and
 * docs/configuration.md's reference is generated from it (`npm run docs:settings`). A new setting
 * is one row here, plus the code that uses it.
 *
 * A name is written `<name>` or `tessera.<name>` in the config file (`kinto.<name>` in a Kinto
 * file, with `kinto` below where Kinto spells it differently), `TESSERA_<NAME>` in the
 * environment (upper case, dots to underscores).
 */
import type { JsonValue } from "../domain/json.js";
import { COLLECTION_NAME_PATTERN, type ResourceKind } from "../application/resources.js";
import { DEFAULT_GROUP_MAX_DEPTH } from "../application/ports/permission-store.js";
import { DEFAULT_GROUP_MAX_MEMBERS } from "../application/groups/group-members.js";
import { unknownSystemPrincipal } from "../domain/principals.js";
import { parseAddressRange } from "../adapters/http/client-address.js";
import {
  anyText,
  boolean,
  checkedList,
  checkedText,
  integer,
  list,
  listValue,
  nonEmptyText,
  oneOf,
  optional,
  orNull,
  seconds,
  type SettingType,
} from "./settings-table-types.js";

export type Section =
  "Server" | "Resources and authentication" | "Backends" | "API" | "Limits and connections" | "Live feed" | "End of service" | "Operations";

export interface SettingRow<T> {
  readonly section: Section;
  readonly type: SettingType<T>;
  /** As if written in the config file; undefined: unset, and then absent from `Settings.all`. */
  readonly default: JsonValue | undefined;
  /** The default in words, where the value alone would mislead (`10 (Redis permissions: 50)`). */
  readonly shownDefault?: string;
  readonly description: string;
  /** Kinto's spelling of the name, where it differs (read from `kinto.<kinto>`). */
  readonly kinto?: string;
  /** Rows repeated per backend are shown once, under this name (`<kind>_pool_size`). */
  readonly family?: string;
}

/** A family of names built from another setting's values (a collection's name, a policy's name). */
export interface SettingPattern {
  /** As the reference shows it: `<collection>_<permission>_principals`. */
  readonly pattern: string;
  readonly matches: RegExp;
  /** Means something only in front of a declared resource's name (else a Kinto file is told it is unsupported). */
  readonly perResource: boolean;
  readonly type: SettingType<unknown>;
  /** The parsed value replaces the written one in `Settings.all` (booleans written `off`, `no`...). */
  readonly normalized: boolean;
  readonly shownDefault: string;
  readonly description: string;
  /** How the environment gives it, where `TESSERA_<NAME>` alone would mislead. */
  readonly environment?: string;
}

export const BACKENDS = ["storage", "permission", "cache"] as const;
export type BackendKind = (typeof BACKENDS)[number];

/** More processes than this on one machine would only contend. */
export const MAX_WORKERS = 64;
/** `eos_message` while `eos` alone is set (unset, `eos_message` keeps the end of service off). */
export const DEFAULT_EOS_MESSAGE = "The service will soon be decommissioned.";
/** A timer fires at most 2^31-1 ms ahead (node fires a longer one at once): about 24 days. */
export const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

const row = <T>(section: Section, type: SettingType<T>, defaultValue: JsonValue | undefined, description: string, more = {}) =>
  ({ section, type, default: defaultValue, description, ...more }) as SettingRow<T>;

/** The kinds a `resources` entry may name (what each means is for kinds/ to say). */
const RESOURCE_KINDS: readonly ResourceKind[] = ["user", "shareable"];

export interface ResourceDeclaration {
  readonly name: string;
  readonly kind: ResourceKind;
}

/** `<name>:user` or `<name>:shareable`, each collection once. */
function resourceList(): SettingType<ResourceDeclaration[]> {
  return {
    label: "list of `<name>:user` or `<name>:shareable`",
    optional: false,
    parse: (value) => {
      const resources: ResourceDeclaration[] = [];
      const problems: string[] = [];
      for (const entry of listValue(value)) {
        const [name = "", kind = "", ...rest] = entry.split(":");
        const known = RESOURCE_KINDS.find((k) => k === kind);
        if (!COLLECTION_NAME_PATTERN.test(name))
          problems.push(`resources: "${entry}" has an invalid collection name (letters, digits, _; starting with a letter)`);
        else if (known === undefined || rest.length > 0) problems.push(`resources: "${entry}" must be <name>:user or <name>:shareable`);
        else if (resources.some((r) => r.name === name)) problems.push(`resources: "${name}" is declared twice`);
        else resources.push({ name, kind: known });
      }
      return { value: resources, problems };
    },
  };
}

/** The settings of one backend (`storage_pool_size`...), the same for the three. */
function backendRows<Suffix extends string, T>(
  suffix: Suffix,
  type: SettingType<T>,
  defaultValue: JsonValue,
  description: string,
  more: { shownDefault?: string; kinto?: string } = {},
): Record<`${BackendKind}_${Suffix}`, SettingRow<T>> {
  const rows = {} as Record<`${BackendKind}_${Suffix}`, SettingRow<T>>;
  for (const backend of BACKENDS) {
    const kinto = more.kinto === undefined ? {} : { kinto: `${backend}_${more.kinto}` };
    rows[`${backend}_${suffix}`] = row("Backends", type, defaultValue, description, {
      ...more,
      ...kinto,
      family: `<kind>_${suffix}`,
    });
  }
  return rows;
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

export const SETTINGS = {
  listen_host: row("Server", nonEmptyText("a host name or address"), "127.0.0.1", "address the server listens on"),
  listen_port: row("Server", integer(0, 65535), 8888, "port the server listens on (0: any free port)"),
  workers: row(
    "Server",
    integer(1, MAX_WORKERS),
    1,
    "`serve` processes sharing the port (node:cluster); more than 1 needs PostgreSQL or Redis backends and `metrics_enabled = false`",
  ),
  readonly: row("Server", boolean(), false, "only GET, HEAD and OPTIONS (405 otherwise)"),
  shutdown_timeout_seconds: row(
    "Server",
    seconds({ min: 0, above: true }),
    15,
    "after SIGTERM the process exits within this, drained or not",
  ),

  resources: row(
    "Resources and authentication",
    resourceList(),
    "",
    "the collections served, `<name>:user` (each user's own records) or `<name>:shareable` (records with ACLs)",
  ),
  userid_hmac_secret: row(
    "Resources and authentication",
    optional(anyText()),
    null,
    "key of Basic Auth user ids; required while the `basicauth` policy is on",
  ),
  default_bucket_hmac_secret: row(
    "Resources and authentication",
    optional(anyText()),
    null,
    "key of the ids of users' `default` buckets (as Kinto's); `userid_hmac_secret` when unset",
  ),
  "multiauth.policies": row("Resources and authentication", list(), "basicauth", "authentication policies, in order"),
  includes: row(
    "Resources and authentication",
    list(),
    "",
    "Kinto plugins to include: only those built in (`kinto.plugins.accounts`, `kinto.plugins.openid`, `kinto.plugins.admin`, `kinto.plugins.default_bucket`) are accepted",
  ),
  account_create_principals: row("Resources and authentication", list(), "system.Everyone", "who may create an account (sign up)"),
  account_write_principals: row("Resources and authentication", list(), "", "administrators: may change and delete every account"),
  account_read_principals: row("Resources and authentication", list(), "", "may list and read every account"),
  account_cache_ttl_seconds: row(
    "Resources and authentication",
    integer(1, 86400),
    30,
    "how long a verified account credential is remembered in the cache backend, counted from its hash (use does not extend it)",
  ),
  account_local_cache_seconds: row(
    "Resources and authentication",
    integer(0, 3600),
    1,
    "how long each process trusts a credential it verified without asking the cache backend again (0: ask on every request); a password change or deletion takes effect on other processes within it",
  ),
  account_scrypt_cost: row(
    "Resources and authentication",
    integer(1, 20),
    17,
    "scrypt cost of account passwords as log2(N), with r = 8, p = 1 (17: 128 MiB per hash); below 15 only for tests",
  ),
  account_max_failed_sign_ins: row(
    "Resources and authentication",
    integer(1, 1_000_000),
    10,
    "sign-in tries needing a hash allowed per client address within the window, then 429 for that address; an account with that many failures is checked only from addresses with no other try",
  ),
  account_failed_sign_in_window_seconds: row(
    "Resources and authentication",
    integer(1, 86400),
    300,
    "the window of `account_max_failed_sign_ins`",
  ),

  group_create_principals: row(
    "Resources and authentication",
    checkedList("list of principals", "name no unknown `system.` principal", (entry) => unknownSystemPrincipal([entry]) === undefined),
    "system.Authenticated",
    "who may create groups (`/v1/groups`, served while a permission backend is configured)",
  ),
  group_max_members: row("Resources and authentication", integer(1, 1_000_000), DEFAULT_GROUP_MAX_MEMBERS, "members one group may list"),
  bucket_create_principals: row(
    "Resources and authentication",
    checkedList("list of principals", "name no unknown `system.` principal", (entry) => unknownSystemPrincipal([entry]) === undefined),
    "system.Authenticated",
    "who may create buckets (Kinto's tree under `/v1/buckets`, served while a permission backend is configured); everyone signed in has their own `default` bucket",
  ),
  experimental_collection_schema_validation: row(
    "Resources and authentication",
    boolean(),
    false,
    "records of a tree collection whose `data.schema` holds a JSON Schema are validated against it (Kinto's setting of the same name)",
  ),

  storage_backend: row("Backends", oneOf(["memory", "postgresql"] as const), "memory", "where records live"),
  storage_url: row("Backends", optional(anyText()), null, "database URL; required for `postgresql`"),
  permission_backend: row(
    "Backends",
    optional(oneOf(["memory", "postgresql", "redis"] as const)),
    null,
    "where ACLs and principals live; required while a shareable resource is declared",
  ),
  permission_url: row("Backends", optional(anyText()), null, "database URL; required for `postgresql` and `redis`"),
  group_max_depth: row(
    "Backends",
    integer(1, 20),
    DEFAULT_GROUP_MAX_DEPTH,
    "levels of nested groups in a user's principals: the user's own are level 1, their groups' level 2...; 1: no nesting",
  ),
  cache_backend: row("Backends", oneOf(["memory", "postgresql", "redis"] as const), "memory", "where the cache lives"),
  cache_url: row("Backends", optional(anyText()), null, "database URL; required for `postgresql` and `redis`"),
  ...backendRows("pool_size", optional(integer(1)), null, "connections of the backend", { shownDefault: "10 (Redis permissions: 50)" }),
  ...backendRows("maxoverflow", integer(0), 10, "extra connections under load (PostgreSQL)", { kinto: "max_overflow" }),
  ...backendRows("max_backlog", integer(-1), -1, "requests allowed to wait for a connection, beyond which 503 at once; -1: no limit"),
  ...backendRows("pool_recycle", integer(-1), -1, "longest life of a connection, seconds; -1: no limit"),
  ...backendRows(
    "pool_timeout",
    seconds({ min: 0 }),
    30,
    "longest wait for a connection, then 503; on PostgreSQL it also bounds opening one",
  ),
  ...backendRows(
    "statement_timeout_seconds",
    seconds({ min: 0 }),
    15,
    "PostgreSQL: longest statement, then 503 (the client gives up one second later on a silent server); 0: none",
  ),
  ...backendRows("password_file", optional(anyText()), null, "file holding the database password"),
  storage_replica_urls: row(
    "Backends",
    list(),
    "",
    "URLs of PostgreSQL streaming replicas of `storage_url` that answer reads once they have replayed every write acknowledged before the read (same credentials and password file)",
  ),
  permission_replica_urls: row(
    "Backends",
    list(),
    "",
    "the same for `permission_url` (on the storage database's URL: `storage_replica_urls` is used)",
  ),
  replica_max_wait_milliseconds: row(
    "Backends",
    integer(0, 10000),
    10,
    "longest wait of a read for a replica to replay the writes acknowledged before it; then the primary answers it",
  ),
  ...backendRows("prefix", optional(anyText()), null, "key prefix (Redis, PostgreSQL cache)", { shownDefault: "`tessera:<kind>:`" }),

  paginate_by: row("API", optional(integer(1)), null, "server page size; caps `_limit`"),
  storage_max_fetch_size: row("API", integer(1), 10000, "most records in one page"),
  retry_after_seconds: row("API", integer(0), 30, "`Retry-After` of 503 and 429 answers"),
  backoff: row("API", optional(anyText()), null, "`Backoff` header on every response"),
  cors_origins: row("API", list(), "*", "allowed origins, shell wildcards (`https://*.example.com`)"),
  cors_max_age_seconds: row(
    "API",
    optional(integer(0)),
    3600,
    "how long a browser may cache a preflight answer; empty: no `Access-Control-Max-Age`",
  ),
  error_info_link: row(
    "API",
    optional(anyText()),
    "https://github.com/tessera-records/tessera/issues/",
    "`info` of error bodies; empty: none",
  ),
  version_prefix_redirect_enabled: row("API", boolean(), true, "redirect unprefixed paths to `/v1`"),
  trailing_slash_redirect_enabled: row("API", boolean(), true, "redirect `/path/` to `/path` and `/v1` to `/v1/`"),
  version_prefix_redirect_ttl_seconds: row(
    "API",
    integer(-1),
    -1,
    "`Cache-Control: max-age` and `Expires` of the `/v1` redirect; -1: none",
  ),
  trailing_slash_redirect_ttl_seconds: row("API", integer(-1), 3600, "the same for trailing-slash redirects; -1: none"),
  http_scheme: row("API", optional(oneOf(["http", "https"] as const)), null, "scheme of the URLs the service builds (behind a proxy)"),
  http_host: row(
    "API",
    optional(checkedText("host name, optional `:port`", "be a host name with an optional port", (host) => URL.canParse(`http://${host}/`))),
    null,
    "host of the URLs the service builds (behind a proxy)",
  ),
  public_settings: row("API", list(), "", "settings shown by the root view (`tessera.<name>` shows the prefix)"),
  batch_max_requests: row("API", orNull(integer(1), "no limit"), 25, "sub-requests of one batch"),

  max_body_bytes: row("Limits and connections", integer(1), 1048576, "larger request bodies get 413"),
  max_json_depth: row("Limits and connections", integer(1), 64, "nesting of arrays and objects in a body or a JSON filter value"),
  max_filters: row("Limits and connections", integer(1), 20, "filters of one listing query, `_since` and `_before` included"),
  max_sort_fields: row("Limits and connections", integer(1), 10, "fields of one `_sort`"),
  max_url_length: row("Limits and connections", integer(16), 8192, "characters of path and query, batch sub-request paths included"),
  request_timeout_seconds: row(
    "Limits and connections",
    seconds({ min: 0 }),
    30,
    "the whole request must arrive within it (408); 0: no limit",
  ),
  headers_timeout_seconds: row(
    "Limits and connections",
    seconds({ min: 0 }),
    10,
    "the headers must arrive within it (408); at most `request_timeout_seconds`",
  ),
  keepalive_timeout_seconds: row("Limits and connections", seconds({ min: 0 }), 5, "an idle keep-alive connection is closed after it"),
  max_connections: row(
    "Limits and connections",
    integer(1),
    1000,
    "open connections; at the cap the longest idle one is closed for a new one, else 503",
  ),
  max_connections_per_address: row(
    "Limits and connections",
    integer(1),
    100,
    "open connections of one client address (IPv6: one /64), else 429; a trusted proxy's count in the total only",
  ),
  trusted_proxies: row(
    "Limits and connections",
    checkedList(
      "list of addresses and CIDR ranges",
      "list IP addresses or CIDR ranges such as 10.0.0.0/8",
      (entry) => parseAddressRange(entry) !== undefined,
    ),
    "",
    "reverse proxies whose `X-Forwarded-For` names the client",
  ),

  group_change_max_records: row(
    "Live feed",
    integer(0),
    10000,
    "records a group change may give or take from one holder in one collection and still reach `_since` and open streams record by record; past it, their clients are asked to resync (410, `resync` event)",
  ),
  feed_keepalive_seconds: row("Live feed", integer(1), 15, "seconds between keep-alive comment lines"),
  feed_buffer_bytes: row("Live feed", integer(1024), 1048576, "unread bytes after which a subscriber's connection is reset"),
  feed_max_streams_per_address: row("Live feed", integer(1), 50, "open streams of one client address (429 beyond)"),
  feed_max_streams_per_user: row("Live feed", integer(1), 10, "open streams of one user (429 beyond)"),
  feed_max_lifetime_seconds: row(
    "Live feed",
    seconds({ min: 0, max: { value: MAX_TIMER_SECONDS, why: "about 24 days; 0: no limit" } }),
    3600,
    "a stream ends cleanly after this long (up to a tenth earlier) and the client resumes; 0: never",
  ),
  feed_retry_seconds: row(
    "Live feed",
    seconds({ min: 0, max: { value: 3600, why: "an hour" } }),
    3,
    "reconnection delay told to clients (`retry:`); a stream this process cannot serve now is answered 200 with 1 to 2 times it, a graceful stop hands streams over with less than a second",
  ),
  feed_catch_up_seconds: row(
    "Live feed",
    seconds({ min: 0, above: true }),
    2,
    "on PostgreSQL: period of the check that catches up a lost notification (its longest delay)",
  ),
  feed_lease_seconds: row(
    "Live feed",
    seconds({ min: 0 }),
    10,
    "on PostgreSQL: lease of a serving process in the principal fence, the longest a crashed process delays a principal change; 0: no fence",
  ),

  eos: row(
    "End of service",
    optional(checkedText("date", "be a date such as 2030-06-01", (date) => !Number.isNaN(new Date(date).getTime()))),
    undefined,
    "end-of-service date: an `Alert` header before it, 410 after it",
  ),
  eos_message: row("End of service", optional(anyText()), undefined, "message of the `Alert` header", {
    shownDefault: `“${DEFAULT_EOS_MESSAGE}”`,
  }),
  eos_url: row("End of service", optional(anyText()), undefined, "URL of the `Alert` header", { shownDefault: "the project's page" }),

  log_level: row("Operations", oneOf(LOG_LEVELS), "info", "pino level (`warn` keeps request lines out)"),
  metrics_enabled: row("Operations", boolean(), true, "Prometheus metrics at `/v1/__metrics__`"),
  metrics_listen_port: row("Operations", optional(integer(0, 65535)), null, "serve the metrics on this port instead of the API's"),
  admin_enabled: row("Operations", boolean(), true, "the admin page at `/v1/admin/`"),
  heartbeat_timeout_seconds: row("Operations", integer(0), 10, "time limit of each check of `__heartbeat__`"),
  commit: row("Operations", anyText(), "unknown", "source commit shown by `__version__`"),
};

export type SettingName = keyof typeof SETTINGS;
export type SettingValue<Name extends SettingName> = (typeof SETTINGS)[Name] extends SettingRow<infer T> ? T : never;

const COLLECTION = "[a-zA-Z][a-zA-Z0-9_]*";

export const SETTING_PATTERNS: readonly SettingPattern[] = [
  {
    pattern: "<collection>_<permission>_principals",
    matches: new RegExp(`^${COLLECTION}_[a-z][a-z0-9_:]*_principals$`),
    perResource: true,
    type: list(),
    normalized: false,
    shownDefault: "empty",
    description: "principals holding a permission on every record of the resource (an unknown `system.` principal is refused)",
  },
  {
    pattern: "<collection>_cache_expires_seconds",
    matches: new RegExp(`^${COLLECTION}_cache_expires_seconds$`),
    perResource: true,
    type: optional(integer(0)),
    normalized: false,
    shownDefault: "none",
    description: "`Cache-Control: max-age` of anonymous reads; 0: not cacheable",
  },
  {
    pattern: "<collection>_<collection|record>_<method>_enabled",
    matches: new RegExp(`^${COLLECTION}_(?:collection|record)_[a-z]+_enabled$`),
    perResource: true,
    type: boolean(),
    normalized: true,
    shownDefault: "`true`",
    description: "`false` switches the method off on that endpoint (405 with `Allow`)",
  },
  {
    pattern: "multiauth.<name>",
    matches: /^multiauth\./,
    perResource: false,
    type: anyText(),
    normalized: false,
    shownDefault: "none",
    description: "read by the authentication policy it names",
    environment: "`TESSERA_MULTIAUTH_<NAME>` overrides a name the config file sets",
  },
];

export function settingRow(name: string): SettingRow<unknown> | undefined {
  return Object.hasOwn(SETTINGS, name) ? (SETTINGS as Record<string, SettingRow<unknown>>)[name] : undefined;
}

export function settingPattern(name: string): SettingPattern | undefined {
  return SETTING_PATTERNS.find((p) => p.matches.test(name));
}

/** `multiauth.policies` → `TESSERA_MULTIAUTH_POLICIES`. */
export function environmentName(setting: string): string {
  return `TESSERA_${setting.toUpperCase().replace(/[.-]/g, "_")}`;
}
