/**
 * Runs Tessera with the publishing extension, configured like `tessera serve` (environment,
 * `--config` or `TESSERA_CONFIG`), with publishing.ini as the default config file.
 */
import path from "node:path";
import { projectRoot } from "../../src/bootstrap/project-root.js";
import { startServer } from "../../src/bootstrap/server.js";
import { loadSettings } from "../../src/bootstrap/settings.js";
import { publishingExtension } from "./publishing-extension.js";

const EXAMPLE_CONFIG = path.join(projectRoot(), "examples", "publishing", "publishing.ini");

const args = process.argv.slice(2);
const configChosen = process.env.TESSERA_CONFIG !== undefined || args.some((a) => a === "--config" || a.startsWith("--config="));
const settings = loadSettings({ argv: configChosen ? args : [...args, "--config", EXAMPLE_CONFIG], env: process.env });
const running = await startServer(settings, { extensions: [publishingExtension()] });
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void running.stop());
