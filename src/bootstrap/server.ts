/** Starts the HTTP server from settings and stops it cleanly (server first, then the backends). */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Container } from "inversify";
import type { Logger } from "pino";
import { buildContainer, type CompositionOptions } from "./container.js";
import type { Settings } from "./settings.js";
import { TOKENS } from "./tokens.js";

export interface RunningServer {
  readonly server: Server;
  readonly container: Container;
  readonly url: string;
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
    const server = await new Promise<Server>((resolve, reject) => {
      const listening = app.listen(settings.listenPort, settings.listenHost, () => resolve(listening));
      listening.once("error", reject);
    });
    server.keepAliveTimeout = 65_000;
    const { port } = server.address() as AddressInfo;
    const url = `http://${settings.listenHost.includes(":") ? `[${settings.listenHost}]` : settings.listenHost}:${port}`;
    logger.info({ url }, "tessera listening");
    let stopping: Promise<void> | undefined;
    const stop = () => (stopping ??= closeServer(server, logger).then(() => container.unbindAllAsync()));
    return { server, container, url, stop };
  } catch (error) {
    await container.unbindAllAsync();
    throw error;
  }
}

function closeServer(server: Server, logger: Logger): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    // Requests in flight get a moment to finish; then the remaining sockets are cut.
    setTimeout(() => server.closeAllConnections(), 5000).unref();
    logger.info("tessera stopping");
  });
}
