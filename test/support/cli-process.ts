/** Runs `tessera <command>` in its own process, as an operator would. */
import { spawn } from "node:child_process";
import path from "node:path";

const fromSources = import.meta.url.endsWith(".ts");
const root = path.resolve(import.meta.dirname, "..", "..", fromSources ? "" : "..");

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Settings are given as TESSERA_* variables; nothing else of this process's environment leaks in. */
export function runCli(args: readonly string[], settings: Record<string, string> = {}): Promise<CliResult> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "" };
  for (const [name, value] of Object.entries(settings)) env[`TESSERA_${name.toUpperCase().replace(/[.-]/g, "_")}`] = value;
  const entry = fromSources ? ["--import", "tsx", path.join(root, "src/bootstrap/cli.ts")] : [path.join(root, "dist/src/bootstrap/cli.js")];
  const child = spawn(process.execPath, [...entry, ...args], { env, cwd: root });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}
