#!/usr/bin/env node
/**
 * `tessera serve | migrate | purge [--before <ms|ISO date>] [--config FILE]`.
 * Configuration problems are printed all at once and exit with status 2 before anything starts.
 */
import "reflect-metadata";
import { openBackends } from "./backends.js";
import { SystemClock } from "../adapters/system/system-clock.js";
import { startServer } from "./server.js";
import { loadSettings, SettingsError, type Settings } from "./settings.js";

const USAGE = "usage: tessera <serve|migrate|purge> [--config FILE] [--before TIMESTAMP]";

async function serve(settings: Settings): Promise<void> {
  const running = await startServer(settings);
  const shutdown = (signal: string) => {
    process.stderr.write(`received ${signal}, shutting down\n`);
    running.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
}

async function withBackends(settings: Settings, work: (backends: Awaited<ReturnType<typeof openBackends>>) => Promise<void>): Promise<void> {
  const backends = await openBackends(settings, new SystemClock());
  try {
    await work(backends);
  } finally {
    await backends.close();
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
  const command = argv.find((a) => !a.startsWith("-") && argv[argv.indexOf(a) - 1] !== "--config" && argv[argv.indexOf(a) - 1] !== "--before") ?? "serve";
  const settings = loadSettings({ argv, env: process.env });
  switch (command) {
    case "serve":
      return serve(settings);
    case "migrate":
      return withBackends(settings, async (backends) => {
        await backends.migrate();
        process.stdout.write(`schemas of the ${settings.storage.backend} storage, ${settings.permission?.backend ?? "no"} permission and ${settings.cache.backend} cache backends are up to date\n`);
      });
    case "purge": {
      const before = beforeOption(argv);
      return withBackends(settings, async (backends) => {
        const purged = await backends.records.purgeTombstones(undefined, before);
        process.stdout.write(`purged ${purged} tombstone(s)${before === undefined ? "" : ` older than ${new Date(before).toISOString()}`}\n`);
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
