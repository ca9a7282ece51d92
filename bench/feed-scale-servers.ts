/**
 * W8's servers: Tessera on a freshly created PostgreSQL database (settings in an .ini file:
 * thousands of principals overflow an environment variable), optionally counting its statements
 * (statement-counter.ts), and the bare `node:http` fan-out of sse-ceiling-server.ts.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { latestProfile, summarizeProfile } from "./profile.js";
import { backendSettings, baseServerSettings, databaseUrl, recreateDatabase } from "./seed.js";
import { cliOf, freePort, runNode, startProcess, type ServerProcess } from "./server-process.js";
import type { ScaleContext } from "./feed-scale-context.js";
import { writeSettingsFile } from "./settings-file.js";

/** The collection every W8 part subscribes to and writes. */
export const FEED = "feed";

export interface ScaleServer extends ServerProcess {
  /** The bench database (Tessera), for its backends' CPU and counters. */
  readonly sqlUrl: string | undefined;
  /** What the server sent PostgreSQL so far (Tessera started with `countStatements`). */
  statements(): StatementTotals | undefined;
  /** Stops the server and removes its files; returns the summary of its CPU profile (started with `profile`). */
  close(): Promise<string | undefined>;
}

export interface StatementTotals {
  readonly roundTrips: number;
  readonly statements: number;
  readonly byKind: Readonly<Record<string, number>>;
}

export interface TesseraStart {
  /** Build directory of the server (holding dist/). */
  readonly buildDir: string;
  /** Build directory of the bench (its statement counter). */
  readonly benchBuild: string;
  readonly postgres: string;
  readonly database: string;
  /** Streams the server must accept from this one address. */
  readonly streams: number;
  /** Settings over the defaults below (--set, a --compare side). */
  readonly settings: Readonly<Record<string, string>>;
  readonly countStatements?: boolean;
  readonly profile?: boolean;
  /** Another process of a database already created and migrated by the first one started on it. */
  readonly joinDatabase?: boolean;
}

/** Every subscriber restricted: no collection-level read; any authenticated user may create. */
function settingsOf(port: number, start: TesseraStart, sqlUrl: string): Record<string, string> {
  const room = String(start.streams + 200);
  return {
    ...baseServerSettings(port),
    ...backendSettings("postgresql", sqlUrl),
    // Every subscriber holds a connection, all from one address.
    max_connections: room,
    max_connections_per_address: room,
    feed_max_streams_per_address: String(start.streams),
    resources: `${FEED}:shareable`,
    [`${FEED}_create_principals`]: "system.Authenticated",
    ...start.settings,
  };
}

export async function startTessera(start: TesseraStart): Promise<ScaleServer> {
  const sqlUrl = databaseUrl(start.postgres, start.database);
  if (start.joinDatabase !== true) await createAndMigrate(start, sqlUrl);
  const port = await freePort();
  const file = writeSettingsFile(settingsOf(port, start, sqlUrl));
  const work = mkdtempSync(path.join(tmpdir(), "tessera-bench-w8-"));
  const counts = path.join(work, "statements.json");
  const profileDir = start.profile ? path.join(work, "profile") : undefined;
  const nodeFlags = [
    ...(start.countStatements ? ["--import", path.join(start.benchBuild, "dist", "bench", "statement-counter.js")] : []),
    ...(profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []),
  ];
  try {
    const server = await startProcess(
      {
        args: [cliOf(start.buildDir), "serve", ...file.args],
        cwd: start.buildDir,
        env: start.countStatements ? { BENCH_STATEMENTS_FILE: counts } : {},
        nodeFlags,
        readyPath: "/v1/__lbheartbeat__",
      },
      port,
    );
    return {
      ...server,
      sqlUrl,
      statements: () => (existsSync(counts) ? (JSON.parse(readFileSync(counts, "utf8")) as StatementTotals) : undefined),
      close: async () => {
        await server.stop();
        file.remove();
        const summary = profileDir ? summarizeProfile(latestProfile(profileDir)) : undefined;
        rmSync(work, { recursive: true, force: true });
        return summary;
      },
    };
  } catch (error) {
    file.remove();
    rmSync(work, { recursive: true, force: true });
    throw error;
  }
}

async function createAndMigrate(start: TesseraStart, sqlUrl: string): Promise<void> {
  await recreateDatabase(start.postgres, start.database);
  const migrating = writeSettingsFile(settingsOf(0, start, sqlUrl));
  try {
    await runNode([cliOf(start.buildDir), "migrate", ...migrating.args], start.buildDir, {});
  } finally {
    migrating.remove();
  }
}

export async function startCeiling(benchBuild: string): Promise<ScaleServer> {
  const port = await freePort();
  const server = await startProcess(
    { args: [path.join(benchBuild, "dist", "bench", "sse-ceiling-server.js"), String(port)], cwd: benchBuild, env: {}, readyPath: "/" },
    port,
  );
  return {
    ...server,
    sqlUrl: undefined,
    statements: () => undefined,
    close: async () => {
      await server.stop();
      return undefined;
    },
  };
}

/** Tessera on `<database>_<part>` of a W8 run, with room for `streams` streams of one address. */
export function startTesseraFor(
  ctx: ScaleContext,
  part: string,
  streams: number,
  more: Pick<TesseraStart, "countStatements" | "profile" | "joinDatabase"> = {},
): Promise<ScaleServer> {
  return startTessera({
    buildDir: ctx.buildDir,
    benchBuild: ctx.benchBuild,
    postgres: ctx.postgres,
    database: `${ctx.database}_${part}`,
    streams,
    settings: ctx.settings,
    profile: ctx.profile,
    ...more,
  });
}

/** One side of a W8 part: the bare ceiling, or Tessera as startTesseraFor starts it. */
export function startSide(side: "ceiling" | "tessera", ctx: ScaleContext, part: string, streams: number): Promise<ScaleServer> {
  return side === "ceiling" ? startCeiling(ctx.benchBuild) : startTesseraFor(ctx, part, streams);
}
