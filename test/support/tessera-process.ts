/** How tests launch the `tessera` command in its own process, from sources (tsx) or from dist. */
import path from "node:path";

const fromSources = import.meta.url.endsWith(".ts");
export const PROJECT_ROOT = path.resolve(import.meta.dirname, "..", "..", fromSources ? "" : "..");

/** Node arguments that run `tessera <args>`. */
export function tesseraArgs(args: readonly string[]): string[] {
  const entry = fromSources
    ? ["--import", "tsx", path.join(PROJECT_ROOT, "src/bootstrap/cli.ts")]
    : [path.join(PROJECT_ROOT, "dist/src/bootstrap/cli.js")];
  return [...entry, ...args];
}

/** Settings as TESSERA_* variables; nothing else of this process's environment leaks in. */
export function settingsEnv(settings: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "" };
  for (const [name, value] of Object.entries(settings)) env[`TESSERA_${name.toUpperCase().replace(/[.-]/g, "_")}`] = value;
  return env;
}
