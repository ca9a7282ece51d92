/**
 * Prometheus metrics of one app instance (tests run many apps in one process, so every app has
 * its own registry); the process-wide default metrics live in one registry of their own and are
 * appended to every scrape. Labels are bounded: method, route template, status, backend, pool.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/** One PostgreSQL pool as metrics see it; `name` says which backends use it ("storage,permission"). */
export interface PoolProbe {
  readonly name: string;
  status(): Promise<{ total: number; idle: number; waiting: number }>;
  backlogRefusals(): number;
  /** Its streaming replicas, when reads may go to them; absent: none. */
  replicas?(): ReplicaFigures;
}

/** Who answered the reads of a pool with replicas, and how far behind each replica is. */
export interface ReplicaFigures {
  readonly primaryReads: number;
  /** `up`: it may answer reads now (not left alone after a failure, a promotion, another primary). */
  readonly replicas: readonly { readonly label: string; readonly up: boolean; readonly lagBytes: number; readonly served: number }[];
}

export const BACKENDS = ["storage", "permission", "cache"] as const;
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
/** Requests that reached no route (unknown URLs, redirects before routing). */
export const UNMATCHED_ROUTE = "unmatched";

/** Why a connection or an event stream was refused (the `reason` label of tessera_http_refused_total). */
export const REFUSAL_REASONS = ["max_connections", "connections_per_address", "streams_per_address", "streams_per_user"] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

let processRegistry: Registry | undefined;

/** Default process metrics, registered once per process: they describe the process, not an app. */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

const FEED_END_REASONS = ["buffer", "lifetime", "stop", "unavailable"] as const;
type FeedEndReason = (typeof FEED_END_REASONS)[number];
export class HttpMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: "tessera_http_requests_total",
    help: "HTTP requests answered, by method, route template and status.",
    labelNames: ["method", "route", "status"] as const,
    registers: [this.registry],
  });
  private readonly durations = new Histogram({
    name: "tessera_http_request_duration_seconds",
    help: "Time from receiving a request to handing its response to Node, by method, route template and status.",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly inFlight = new Gauge({
    name: "tessera_http_requests_in_flight",
    help: "HTTP requests being served.",
    registers: [this.registry],
  });
  private readonly backendErrors = new Counter({
    name: "tessera_backend_errors_total",
    help: "Calls to a backend that failed with a backend error (503), by backend.",
    labelNames: ["backend"] as const,
    registers: [this.registry],
  });
  private readonly batchSizes = new Histogram({
    name: "tessera_batch_subrequests",
    help: "Sub-requests per batch request.",
    buckets: [1, 2, 5, 10, 25, 50, 100],
    registers: [this.registry],
  });
  private readonly clientErrors = new Counter({
    name: "tessera_http_client_errors_total",
    help: "Requests refused by Node's HTTP parser before reaching the application (bad syntax, headers too large, too slow), by error code.",
    labelNames: ["code"] as const,
    registers: [this.registry],
  });
  private readonly refusals = new Counter({
    name: "tessera_http_refused_total",
    help: "Connections and event streams refused by a bound, by reason (REFUSAL_REASONS).",
    labelNames: ["reason"] as const,
    registers: [this.registry],
  });
  private readonly reclaims = new Counter({
    name: "tessera_http_idle_connections_reclaimed_total",
    help: "Idle connections closed to make room for a new one (at max_connections or max_connections_per_address).",
    registers: [this.registry],
  });
  private readonly feedEnds = new Counter({
    name: "tessera_feed_streams_ended_total",
    help: "Live-feed streams ended by the server, by reason (buffer: destroyed past feed_buffer_bytes; lifetime: feed_max_lifetime_seconds; stop: handed over by a graceful stop; unavailable: answered `retry` at once, the process could not serve it then).",
    labelNames: ["reason"] as const,
    registers: [this.registry],
  });
  private pools: readonly PoolProbe[] = [];
  private connections: () => { idle: number; busy: number } = () => ({ idle: 0, busy: 0 });
  private feedSubscribers: () => number = () => 0;
  /** Label children by "method route status": the hot path skips prom-client's label hashing. */
  private readonly series = new Map<string, { count: Counter.Internal; duration: Histogram.Internal<"method" | "route" | "status"> }>();

  constructor() {
    processMetrics(); // from startup: what happens before the first scrape (GCs, event-loop delay) counts too
    for (const backend of BACKENDS) this.backendErrors.inc({ backend }, 0);
    for (const reason of REFUSAL_REASONS) this.refusals.inc({ reason }, 0);
    for (const reason of FEED_END_REASONS) this.feedEnds.inc({ reason }, 0);
    const pools = () => this.pools;
    const connections = () => this.connections();
    new Gauge({
      name: "tessera_http_connections",
      help: "Open connections of the API port, by state (busy: a request in flight, event streams included; idle: none).",
      labelNames: ["state"] as const,
      registers: [this.registry],
      collect() {
        const counts = connections();
        this.set({ state: "busy" }, counts.busy);
        this.set({ state: "idle" }, counts.idle);
      },
    });
    const subscribers = () => this.feedSubscribers();
    new Gauge({
      name: "tessera_feed_subscribers",
      help: "Open live-feed (text/event-stream) subscriptions in this process.",
      registers: [this.registry],
      collect() {
        this.set(subscribers());
      },
    });
    new Gauge({
      name: "tessera_db_pool_connections",
      help: "PostgreSQL pool connections, by pool and state (in_use, idle).",
      labelNames: ["pool", "state"] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const pool of pools()) {
          const status = await pool.status().catch(() => undefined);
          if (!status) continue;
          this.set({ pool: pool.name, state: "in_use" }, status.total - status.idle);
          this.set({ pool: pool.name, state: "idle" }, status.idle);
        }
      },
    });
    new Gauge({
      name: "tessera_db_pool_waiting_requests",
      help: "Requests waiting for a PostgreSQL connection, by pool.",
      labelNames: ["pool"] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const pool of pools()) {
          const status = await pool.status().catch(() => undefined);
          if (status) this.set({ pool: pool.name }, status.waiting);
        }
      },
    });
    const replicaPools = () => this.pools.flatMap((pool) => (pool.replicas ? [{ pool: pool.name, figures: pool.replicas() }] : []));
    new Counter({
      name: "tessera_db_reads_total",
      help: "Reads of pools with streaming replicas, by pool and by the server that answered them (primary or a replica's host:port/database).",
      labelNames: ["pool", "server"] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const { pool, figures } of replicaPools()) {
          this.inc({ pool, server: "primary" }, figures.primaryReads);
          for (const replica of figures.replicas) this.inc({ pool, server: replica.label }, replica.served);
        }
      },
    });
    new Gauge({
      name: "tessera_db_replica_lag_bytes",
      help: "Bytes of WAL a streaming replica had yet to replay when last compared with its primary, by pool and replica.",
      labelNames: ["pool", "replica"] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const { pool, figures } of replicaPools())
          for (const replica of figures.replicas) this.set({ pool, replica: replica.label }, replica.lagBytes);
      },
    });
    new Gauge({
      name: "tessera_db_replica_up",
      help: "1 while a streaming replica may answer reads; 0 while it is left alone (down, promoted, or following another primary), by pool and replica.",
      labelNames: ["pool", "replica"] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const { pool, figures } of replicaPools())
          for (const replica of figures.replicas) this.set({ pool, replica: replica.label }, replica.up ? 1 : 0);
      },
    });
    new Counter({
      name: "tessera_db_pool_backlog_refusals_total",
      help: "Requests refused at once because max_backlog requests already waited for a connection, by pool.",
      labelNames: ["pool"] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const pool of pools()) this.inc({ pool: pool.name }, pool.backlogRefusals());
      },
    });
  }

  observePools(pools: readonly PoolProbe[]): void {
    this.pools = pools;
  }

  observeConnections(counts: () => { idle: number; busy: number }): void {
    this.connections = counts;
  }

  refused(reason: RefusalReason): void {
    this.refusals.inc({ reason });
  }

  idleReclaimed(): void {
    this.reclaims.inc();
  }

  feedStreamEnded(reason: FeedEndReason): void {
    this.feedEnds.inc({ reason });
  }

  observeFeed(subscriberCount: () => number): void {
    this.feedSubscribers = subscriberCount;
  }

  /** Call when a request starts; the returned function records it once answered. */
  requestStarted(): (method: string, route: string, status: number) => void {
    this.inFlight.inc();
    const started = performance.now();
    return (method, route, status) => {
      this.inFlight.dec();
      const known = KNOWN_METHODS.has(method) ? method : "other";
      const key = `${known} ${route} ${status}`;
      let series = this.series.get(key);
      if (!series) {
        const labels = { method: known, route, status: String(status) };
        series = { count: this.requests.labels(labels), duration: this.durations.labels(labels) };
        this.series.set(key, series);
      }
      series.count.inc();
      series.duration.observe((performance.now() - started) / 1000);
    };
  }

  clientErrorRefused(code: string): void {
    this.clientErrors.inc({ code });
  }

  backendFailed(backend: string): void {
    this.backendErrors.inc({ backend });
  }

  batchReceived(size: number): void {
    this.batchSizes.observe(size);
  }

  contentType(): string {
    return this.registry.contentType;
  }

  /** The text exposition: this app's metrics, then the process's. */
  async exposition(): Promise<string> {
    return (await this.registry.metrics()) + (await processMetrics().metrics());
  }
}
