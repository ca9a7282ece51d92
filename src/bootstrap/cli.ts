#!/usr/bin/env node
/**
 * `tessera serve | migrate | purge [--before <ms|ISO date>] [--config FILE]`, `tessera help`.
 * Configuration problems and unknown options are printed all at once and exit with status 2
 * before anything starts.
 */
import "reflect-metadata";
import { parseArgs } from "node:util";
import type { Container } from "inversify";
import { loadSettings, SettingsError, type Settings } from "./settings.js";
import { purgeStorage } from "./purge.js";
import { TOKENS } from "./tokens.js";
import { superviseWorkers } from "./workers.js";

const USAGE = "usage: tessera [serve|migrate|purge|help] [--config FILE] [--before TIMESTAMP]";
const HELP = `${USAGE}

  serve     start the server (the default command)
  migrate   create or upgrade the backends' tables
  purge     remove tombstones, all of them or those older than --before
  help      print this help (also --help, -h)

  --config FILE         an .ini file (settings in [app:main]); TESSERA_<NAME> variables win over it
  --before TIMESTAMP    purge only: milliseconds since the epoch, or a date (2026-01-01)
`;

const OPTIONS = {
  config: { type: "string" },
  before: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

interface CommandLine {
  readonly command: string;
  readonly before: string | undefined;
}

/** The command and its options; anything unknown or misplaced is a usage error (status 2). */
function parseCommandLine(argv: readonly string[]): CommandLine {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    // Node's message, without its advice about positionals that start with "-".
    throw new SettingsError([(error instanceof Error ? error.message : String(error)).split(". ")[0] ?? "", USAGE]);
  }
  const [command = "serve", ...extra] = parsed.positionals;
  if (parsed.values.help) return { command: "help", before: undefined };
  if (extra.length > 0) throw new SettingsError([`unexpected argument "${extra[0]}"`, USAGE]);
  if (parsed.values.before !== undefined && command !== "purge") throw new SettingsError(["--before applies to purge only", USAGE]);
  return { command, before: parsed.values.before };
}

async function serve(settings: Settings): Promise<void> {
  if (await superviseWorkers(settings)) return;
  // Loaded only to run: help and usage errors answer at once, without the whole application.
  const { startServer } = await import("./server.js");
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
  const { buildContainer } = await import("./container.js");
  const container = buildContainer(settings);
  try {
    await work(container);
  } finally {
    await container.unbindAllAsync();
  }
}

/** `--before` as milliseconds since the epoch or an ISO date. */
function beforeOption(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(value)) throw new SettingsError([`--before "${text}" is neither a timestamp in milliseconds nor a date`]);
  return value;
}

async function main(argv: readonly string[]): Promise<void> {
  const { command, before: beforeText } = parseCommandLine(argv);
  if (command === "help") {
    process.stdout.write(HELP);
    return;
  }
  if (!["serve", "migrate", "purge"].includes(command)) throw new SettingsError([`unknown command "${command}"`, USAGE]);
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
      const before = beforeOption(beforeText);
      return withContainer(settings, async (container) => {
        const purged = await purgeStorage(container, before);
        process.stdout.write(
          `purged ${purged} tombstone(s)${before === undefined ? "" : ` older than ${new Date(before).toISOString()}`}\n`,
        );
      });
    }
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
