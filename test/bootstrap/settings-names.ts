/**
 * Every setting name Tessera reads, written out by hand (not taken from the settings table), each
 * with a value it accepts and, where some value is refused, one it refuses. The table tests and
 * the documentation test compare the product against this list.
 */
export interface KnownSetting {
  readonly name: string;
  /** Accepted, and consistent with every other `good` value of the list. */
  readonly good: string;
  /** Refused with a problem naming the setting; undefined where every value is accepted (text). */
  readonly bad: string | undefined;
}

const known = (name: string, good: string, bad?: string): KnownSetting => ({ name, good, bad });

const perBackend = (kind: string): KnownSetting[] => [
  known(`${kind}_pool_size`, "4", "0"),
  known(`${kind}_maxoverflow`, "3", "-1"),
  known(`${kind}_max_backlog`, "100", "-2"),
  known(`${kind}_pool_recycle`, "600", "-2"),
  known(`${kind}_pool_timeout`, "2.5", "-1"),
  known(`${kind}_statement_timeout_seconds`, "0", "soon"),
  known(`${kind}_password_file`, "/run/secrets/db"),
  known(`${kind}_prefix`, `t:${kind}:`),
];

export const KNOWN_SETTINGS: readonly KnownSetting[] = [
  known("listen_host", "0.0.0.0", ""),
  known("listen_port", "9000", "65536"),
  known("workers", "3", "65"),
  known("readonly", "off", "maybe"),
  known("shutdown_timeout_seconds", "0.5", "0"),
  known("resources", "notes:user articles:shareable", "notes:private"),
  known("userid_hmac_secret", "s3cret"),
  known("multiauth.policies", "basicauth"),
  known("includes", "kinto.plugins.accounts"),
  known("account_create_principals", "system.Authenticated"),
  known("account_write_principals", "account:admin"),
  known("account_read_principals", "account:auditor"),
  known("account_cache_ttl_seconds", "60", "0"),
  known("account_local_cache_seconds", "0", "-1"),
  known("account_scrypt_cost", "10", "21"),
  known("account_max_failed_sign_ins", "5", "0"),
  known("account_failed_sign_in_window_seconds", "60", "0"),
  known("storage_backend", "memory", "mongodb"),
  known("storage_url", "postgresql://localhost/x"),
  known("permission_backend", "memory", "ldap"),
  known("permission_url", "redis://localhost/1"),
  // Replicas need a postgresql backend: the memory and Redis ones above refuse any.
  known("storage_replica_urls", "", "postgresql://replica/x"),
  known("permission_replica_urls", "", "postgresql://replica/x"),
  known("replica_max_wait_milliseconds", "5", "-1"),
  known("group_max_depth", "3", "0"),
  known("group_create_principals", "account:admin system.Authenticated", "system.everyone"),
  known("group_max_members", "100", "0"),
  known("bucket_create_principals", "account:admin system.Authenticated", "system.everyone"),
  known("experimental_collection_schema_validation", "true", "maybe"),
  known("default_bucket_hmac_secret", "bucket-s3cret"),
  known("cache_backend", "memory", "memcached"),
  known("cache_url", "redis://localhost/2"),
  ...perBackend("storage"),
  ...perBackend("permission"),
  ...perBackend("cache"),
  known("paginate_by", "50", "0"),
  known("storage_max_fetch_size", "500", "0"),
  known("retry_after_seconds", "5", "1.5"),
  known("backoff", "10"),
  known("cors_origins", "https://*.example.com"),
  known("cors_max_age_seconds", "60", "-1"),
  known("error_info_link", "https://help.example.com/"),
  known("version_prefix_redirect_enabled", "false", "sometimes"),
  known("trailing_slash_redirect_enabled", "no", "2"),
  known("version_prefix_redirect_ttl_seconds", "60", "-2"),
  known("trailing_slash_redirect_ttl_seconds", "-1", "x"),
  known("http_scheme", "https", "ftp"),
  known("http_host", "example.com:8443", "a b"),
  known("public_settings", "paginate_by tessera.readonly"),
  known("batch_max_requests", "null", "0"),
  known("max_body_bytes", "2048", "0"),
  known("max_json_depth", "8", "0"),
  known("max_filters", "5", "0"),
  known("max_sort_fields", "3", "0"),
  known("max_url_length", "1024", "15"),
  known("request_timeout_seconds", "20", "-1"),
  known("headers_timeout_seconds", "5", "x"),
  known("keepalive_timeout_seconds", "65", "-1"),
  known("max_connections", "10", "0"),
  known("max_connections_per_address", "5", "0"),
  known("trusted_proxies", "10.0.0.0/8 ::1", "proxy.example.com"),
  known("feed_keepalive_seconds", "5", "0"),
  known("group_change_max_records", "0", "-1"),
  known("feed_buffer_bytes", "4096", "1023"),
  known("feed_max_streams_per_address", "5", "0"),
  known("feed_max_streams_per_user", "2", "0"),
  known("feed_max_lifetime_seconds", "0", "2147484"),
  known("feed_retry_seconds", "1.5", "-1"),
  known("feed_catch_up_seconds", "0.25", "0"),
  known("feed_lease_seconds", "0", "-1"),
  known("eos", "2030-06-01", "someday"),
  known("eos_message", "Moving soon"),
  known("eos_url", "https://example.com/eos"),
  known("log_level", "warn", "loud"),
  known("metrics_enabled", "false", "perhaps"),
  known("metrics_listen_port", "0", "-1"),
  known("admin_enabled", "true", "never"),
  known("heartbeat_timeout_seconds", "3", "-1"),
  known("commit", "0123abc"),
];

/** One name of each family built from another setting's values, given `resources` declaring `articles`. */
export const FAMILY_EXAMPLES: readonly KnownSetting[] = [
  known("articles_read_principals", "system.Authenticated"),
  known("articles_cache_expires_seconds", "60", "soon"),
  known("articles_record_delete_enabled", "off", "perhaps"),
  known("multiauth.policy.basicauth.use", "some.module"),
];

/** `multiauth.policies` → `TESSERA_MULTIAUTH_POLICIES`, as the documentation says. */
export const environmentVariable = (name: string) => `TESSERA_${name.toUpperCase().replace(/[.-]/g, "_")}`;
