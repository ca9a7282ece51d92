/** Starts the HTTP server from settings and stops it cleanly (server first, then the backends). */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Container } from "inversify";
import type { Logger } from "pino";
import { handleClientErrors } from "../adapters/http/client-errors.js";
import { TrustedProxies } from "../adapters/http/client-address.js";
import { ClosingResponses } from "../adapters/http/closing-responses.js";
import { ConnectionAdmission } from "../adapters/http/connection-admission.js";
import type { HttpMetrics } from "../adapters/http/metrics.js";
import { metricsListener } from "../adapters/http/metrics-route.js";
import { buildContainer, type CompositionOptions } from "./container.js";
import type { Settings } from "./settings.js";
import { TOKENS } from "./tokens.js";

export interface RunningServer {
  readonly server: Server;
  readonly container: Container;
  readonly url: string;
  /** The metrics server's URL when `metrics_listen_port` is set. */
  readonly metricsUrl: string | undefined;
  stop(): Promise<void>;
}

export async function startServer(settings: Settings, options: CompositionOptions = {}): Promise<RunningServer> {
  const container = buildContainer(settings, options);
  try {
    const app = await container.getAsync(TOKENS.App);
    const logger = container.get(TOKENS.Logger);
    for (const warning of settings.warnings) logger.warn(warning);
    const declared = new Set((options.extensions ?? []).flatMap((extension) => extension.settings ?? []));
    for (const name of settings.unknown) if (!declared.has(name)) logger.warn(`unknown setting "${name}" is ignored`);
    const metrics = (await container.getAsync(TOKENS.HttpServices)).metrics;
    const metricsServer =
      metrics && settings.metricsListenPort !== undefined
        ? await listen(createServer(metricsListener(metrics)), settings.metricsListenPort, settings.listenHost)
        : undefined;
    const api = createLimitedServer(settings, app.callback(), metrics);
    // Tracked from the first request: a stop makes the answers under way close their connections too.
    const responses = ClosingResponses.install(api);
    const server = await listen(api, settings.listenPort, settings.listenHost).catch(async (error: unknown) => {
      if (metricsServer) await closeServer(metricsServer, logger);
      throw error;
    });
    handleClientErrors(server, logger, metrics);
    // After listening, a server error (say, out of file descriptors on accept) is logged, never a crash.
    for (const listening of [server, metricsServer]) listening?.on("error", (error) => logger.error({ err: error }, "server error"));
    const url = urlOf(server, settings.listenHost);
    const metricsUrl = metricsServer && urlOf(metricsServer, settings.listenHost);
    logger.info({ url, ...(metricsUrl ? { metrics_url: metricsUrl } : {}) }, "tessera listening");
    let stopping: Promise<void> | undefined;
    // No new connection first; then the live feed's streams, which never end by themselves, are
    // handed over (their clients resume elsewhere at once), so that the server can close.
    const stop = () =>
      (stopping ??= Promise.all([
        closeServer(server, logger, { beforeIdle: () => handOverStreams(container, logger), responses }),
        metricsServer && closeServer(metricsServer, logger),
      ]).then(() => container.unbindAllAsync()));
    return { server, container, url, metricsUrl, stop };
  } catch (error) {
    await container.unbindAllAsync();
    throw error;
  }
}

/**
 * Slow or idle clients cannot hold the server: the whole request (headers and body) must arrive
 * within the request timeout, its headers within the headers timeout, an idle keep-alive socket
 * is closed after the keep-alive timeout, and connections are admitted within the caps (total
 * and per client address), idle ones giving way to new ones (ConnectionAdmission).
 */
function createLimitedServer(
  settings: Settings,
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  metrics: HttpMetrics | undefined,
): Server {
  const limits = settings.connections;
  const ms = (seconds: number) => Math.round(seconds * 1000);
  const timeouts = [limits.requestTimeoutSeconds, limits.headersTimeoutSeconds].filter((s) => s > 0).map(ms);
  const server = createServer(
    {
      requestTimeout: ms(limits.requestTimeoutSeconds),
      headersTimeout: ms(limits.headersTimeoutSeconds),
      keepAliveTimeout: ms(limits.keepAliveTimeoutSeconds),
      // node checks the two timeouts on this period (30 s by default): a quarter of the smaller one.
      connectionsCheckingInterval: Math.max(50, Math.min(1000, ...timeouts.map((t) => t / 4))),
    },
    (req, res) => void handle(req, res),
  );
  const admission = ConnectionAdmission.install(
    server,
    { ...limits, trustedProxies: new TrustedProxies(limits.trustedProxies) },
    { retryAfterSeconds: settings.retryAfterSeconds, challenge: undefined, infoLink: settings.errorInfoLink },
    metrics,
  );
  metrics?.observeConnections(() => admission.counts);
  return server;
}

function listen(server: Server, port: number, host: string): Promise<Server> {
  return new Promise<Server>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}

function urlOf(server: Server, host: string): string {
  const { port } = server.address() as AddressInfo;
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/**
 * Stops accepting connections, ends what `beforeIdle` ends, then closes each connection as soon
 * as it has no request in flight; resolves once none is left. A keep-alive connection (from a
 * client's pool, or a load balancer's) must not carry new requests to a process that is about to
 * close its backends: every answer from now on says `Connection: close`.
 */
function closeServer(
  server: Server,
  logger: Logger,
  { beforeIdle = () => Promise.resolve(), responses }: { beforeIdle?: () => Promise<void>; responses?: ClosingResponses } = {},
): Promise<void> {
  return new Promise((resolve) => {
    responses?.closeEach();
    const idle = setInterval(() => server.closeIdleConnections(), 50);
    server.close(() => {
      clearInterval(idle);
      resolve();
    });
    void beforeIdle()
      .catch((error: unknown) => logger.error({ err: error }, "live feed streams could not be handed over"))
      .finally(() => server.closeIdleConnections());
    // Requests in flight get a moment to finish; then the remaining sockets are cut.
    setTimeout(() => server.closeAllConnections(), 5000).unref();
    logger.info("tessera stopping");
  });
}

/** Hands every open stream over, then closes the feed (its readers and its lease). */
async function handOverStreams(container: RunningServer["container"], logger: Logger): Promise<void> {
  const services = await container.getAsync(TOKENS.HttpServices);
  const handedOver = services.feedStreams.drain();
  if (handedOver > 0) logger.info({ streams: handedOver }, "live feed streams handed over");
  services.feed?.close();
}
