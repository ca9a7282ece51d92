#!/usr/bin/env node
/**
 * `tessera serve | migrate | purge [--before <ms|ISO date>] [--config FILE]`.
 * Configuration problems are printed all at once and exit with status 2 before anything starts.
 */
import "reflect-metadata";
import type { Container } from "inversify";
import { buildContainer } from "./container.js";
import { startServer } from "./server.js";
import { loadSettings, SettingsError, type Settings } from "./settings.js";
import { TOKENS } from "./tokens.js";
import { superviseWorkers } from "./workers.js";

const USAGE = "usage: tessera <serve|migrate|purge> [--config FILE] [--before TIMESTAMP]";

async function serve(settings: Settings): Promise<void> {
  if (await superviseWorkers(settings)) return;
  const running = await startServer(settings);
  let stopping = false;
  // `on`, not `once`: a second signal (the group's and the primary's) must not kill a draining worker.
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`received ${signal}, shutting down\n`);
    // A stalled database can hold the drain forever (pools wait for their connections): bounded.
    setTimeout(() => {
      process.stderr.write(`shutdown did not finish within shutdown_timeout_seconds (${settings.shutdownTimeoutSeconds}); exiting\n`);
      process.exit(1);
    }, settings.shutdownTimeoutSeconds * 1000).unref();
    running.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}

/** A one-off command over the same container as `serve`; unbinding it closes what it opened. */
async function withContainer(settings: Settings, work: (container: Container) => Promise<void>): Promise<void> {
  const container = buildContainer(settings);
  try {
    await work(container);
  } finally {
    await container.unbindAllAsync();
  }
}

/** `--before` as milliseconds since the epoch or an ISO date. */
function beforeOption(argv: readonly string[]): number | undefined {
  const index = argv.indexOf("--before");
  if (index < 0) return undefined;
  const text = argv[index + 1] ?? "";
  const value = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(value)) throw new SettingsError([`--before "${text}" is neither a timestamp in milliseconds nor a date`]);
  return value;
}

async function main(argv: readonly string[]): Promise<void> {
  const command =
    argv.find((a) => !a.startsWith("-") && argv[argv.indexOf(a) - 1] !== "--config" && argv[argv.indexOf(a) - 1] !== "--before") ?? "serve";
  const settings = loadSettings({ argv, env: process.env });
  switch (command) {
    case "serve":
      return serve(settings);
    case "migrate":
      return withContainer(settings, async (container) => {
        await (await container.getAsync(TOKENS.Migrator)).migrate();
        process.stdout.write(
          `schemas of the ${settings.storage.backend} storage, ${settings.permission?.backend ?? "no"} permission and ${settings.cache.backend} cache backends are up to date\n`,
        );
      });
    case "purge": {
      const before = beforeOption(argv);
      return withContainer(settings, async (container) => {
        const purged = await (await container.getAsync(TOKENS.RecordStore)).purgeTombstones(undefined, before);
        process.stdout.write(
          `purged ${purged} tombstone(s)${before === undefined ? "" : ` older than ${new Date(before).toISOString()}`}\n`,
        );
      });
    }
    default:
      throw new SettingsError([`unknown command "${command}"`, USAGE]);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof SettingsError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`tessera failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
