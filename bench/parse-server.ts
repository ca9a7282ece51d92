/**
 * The Parse Server peer as a child process:
 * `node parse-server.js <install dir> <port> <database URL> <app id> <master key> <mount path>`.
 * Parse Server comes from the benchmark's own install folder (never the project's dependencies),
 * one process, PostgreSQL adapter, per-object ACLs; the harness drives it over REST.
 */
import { createRequire } from "node:module";
import path from "node:path";

interface ParseServerModule {
  ParseServer: { startApp(options: Record<string, unknown>): Promise<unknown> };
}

async function main(): Promise<void> {
  const [installDir = "", port = "", databaseUri = "", appId = "", masterKey = "", mount = ""] = process.argv.slice(2);
  const require = createRequire(path.join(installDir, "package.json"));
  const { ParseServer } = require("parse-server") as ParseServerModule;
  await ParseServer.startApp({
    appId,
    masterKey,
    // Only the harness, from loopback, uses the master key (schema and seeding).
    masterKeyIps: ["127.0.0.1", "::1"],
    databaseURI: databaseUri,
    port: Number(port),
    host: "127.0.0.1",
    mountPath: mount,
    serverURL: `http://127.0.0.1:${port}${mount}`,
    verifyServerUrl: false,
    allowClientClassCreation: false,
    maxLimit: 1000,
    silent: true,
    logLevel: "error",
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`parse server failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
