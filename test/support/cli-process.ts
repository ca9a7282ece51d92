/** Runs `tessera <command>` in its own process, as an operator would. */
import { spawn } from "node:child_process";
import { PROJECT_ROOT, settingsEnv, tesseraArgs } from "./tessera-process.js";

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A command that should end by itself but does not (say, a server started by mistake) is killed after 60 s: code null. */
export function runCli(args: readonly string[], settings: Record<string, string> = {}): Promise<CliResult> {
  const child = spawn(process.execPath, tesseraArgs(args), { env: settingsEnv(settings), cwd: PROJECT_ROOT });
  const stuck = setTimeout(() => child.kill("SIGKILL"), 60_000);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(stuck);
      resolve({ code, stdout, stderr });
    }),
  );
}
