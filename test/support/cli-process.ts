/** Runs `tessera <command>` in its own process, as an operator would. */
import { spawn } from "node:child_process";
import { PROJECT_ROOT, settingsEnv, tesseraArgs } from "./tessera-process.js";

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function runCli(args: readonly string[], settings: Record<string, string> = {}): Promise<CliResult> {
  const child = spawn(process.execPath, tesseraArgs(args), { env: settingsEnv(settings), cwd: PROJECT_ROOT });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}
