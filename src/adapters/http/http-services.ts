/** Everything the HTTP adapter needs, as plain objects: tests build it without the container. */
import type { LiveFeed } from "../../application/feed/live-feed.js";
import type { FeedStreams } from "./feed-streams.js";
import type { Logger } from "pino";
import type { JsonObject, JsonValue } from "../../domain/json.js";
import type { AccountService } from "../../application/accounts/account-service.js";
import type { Authenticator } from "../../application/authenticator.js";
import type { HealthService } from "../../application/health-service.js";
import type { Clock } from "../../application/ports/clock.js";
import type { InputLimits } from "./input-limits.js";
import type { UnitOfWork } from "../../application/ports/unit-of-work.js";
import type { RecordService } from "../../application/record-service.js";
import type { AccessService } from "../../application/access/access-service.js";
import type { ResourceDefinition } from "../../application/resources.js";
import type { HttpMetrics } from "./metrics.js";
import type { HttpTree } from "./http-tree.js";

export type Endpoint = "collection" | "record";

/** A declared collection as HTTP serves it. */
export interface HttpResource {
  readonly definition: ResourceDefinition;
  /** Methods switched off by `<name>_<endpoint>_<method>_enabled = false`, e.g. "record:DELETE". */
  readonly disabled: ReadonlySet<string>;
  /** `<name>_cache_expires_seconds`: anonymous reads may be cached this long. */
  readonly cacheExpiresSeconds: number | undefined;
}

export interface EndOfService {
  /** From this date on, every API request gets 410. */
  readonly hardEol: Date | undefined;
  readonly message: string;
  readonly url: string;
}

export interface HttpOptions {
  readonly projectName: string;
  readonly projectVersion: string;
  readonly projectDocs: string;
  readonly versionPrefixRedirectEnabled: boolean;
  readonly trailingSlashRedirectEnabled: boolean;
  /** Cache lifetime of the version and trailing-slash redirects; negative: no cache headers. */
  readonly versionPrefixRedirectTtlSeconds: number;
  readonly trailingSlashRedirectTtlSeconds: number;
  readonly paginateBy: number | undefined;
  readonly storageMaxFetchSize: number;
  readonly retryAfterSeconds: number;
  readonly backoff: string | undefined;
  readonly corsOrigins: readonly string[];
  /** Undefined: no Access-Control-Max-Age. */
  readonly corsMaxAgeSeconds: number | undefined;
  readonly errorInfoLink: string;
  readonly httpScheme: string | undefined;
  readonly httpHost: string | undefined;
  readonly readonly: boolean;
  readonly maxBodyBytes: number;
  readonly batchMaxRequests: number | null;
  readonly inputLimits: InputLimits;
  readonly endOfService: EndOfService | undefined;
  /** Settings shown by the root view, already named as they must appear. */
  readonly publicSettings: Readonly<Record<string, JsonValue>>;
  readonly capabilities: JsonObject;
  /** `metrics_enabled` and no `metrics_listen_port`: `/v1/__metrics__` on the API's port. */
  readonly metricsOnApiPort: boolean;
  /** `admin_enabled`: the admin page at `/v1/admin/`. */
  readonly adminEnabled: boolean;
  /** Live feed: unread bytes after which a subscriber is dropped (`feed_buffer_bytes`). */
  readonly feedBufferBytes: number;
  /** Live feed: open streams per client address and per user, and seconds a stream lives (0: no limit); absent: unbounded. */
  readonly feedLimits?: FeedLimits;
  /** Addresses and CIDR ranges of reverse proxies whose `X-Forwarded-For` names the client. */
  readonly trustedProxies?: readonly string[];
}

export interface FeedLimits {
  readonly maxStreamsPerAddress: number;
  readonly maxStreamsPerUser: number;
  readonly maxLifetimeSeconds: number;
}

export interface HttpServices {
  readonly options: HttpOptions;
  readonly records: RecordService;
  /** Explain, readers and `/permissions`; absent: those routes are not served. */
  readonly access?: AccessService;
  readonly authenticator: Authenticator;
  readonly resources: ReadonlyMap<string, HttpResource>;
  readonly health: HealthService;
  /** Wraps a batch: one transaction where the backends share one. */
  readonly unitOfWork: UnitOfWork;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly versionInfo: JsonObject;
  /** Absent when `metrics_enabled` is false. */
  readonly metrics?: HttpMetrics;
  /** The live change feed (SSE on collection URLs); absent: no feed. */
  readonly feed?: LiveFeed;
  /** The feed's open streams in this process (what a graceful stop hands over). */
  readonly feedStreams: FeedStreams;
  /** Kinto's resource tree (`/buckets/...`); absent without a permission backend. */
  readonly tree?: HttpTree;
  /** `/accounts` (Kinto's accounts plugin); absent: accounts are off. */
  readonly accounts?: AccountService;
}
