/** A Tessera server in its own process (`tessera serve`), for tests that need several of them. */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { PROJECT_ROOT, settingsEnv, tesseraArgs } from "./tessera-process.js";

export interface ServerProcess {
  readonly url: string;
  /** The port it listens on: give it as `listen_port` to start its successor at the same URL. */
  readonly port: number;
  /** Every line the process wrote to stdout (its JSON log), so far. */
  readonly output: readonly string[];
  /** False once the process has exited (on its own: a crash, or after stop()). */
  alive(): boolean;
  /** SIGTERM, then the exit code once the process is gone. */
  stop(): Promise<number | null>;
  /** SIGKILL (a crash: nothing is drained, no lease given up), resolved once the process is gone. */
  kill(): Promise<void>;
}

/**
 * Starts `serve` with the given settings as TESSERA_* variables; resolves once it logs that it
 * listens (log_level info). `listen_port` defaults to 0 (any free port).
 */
export function startServerProcess(settings: Record<string, string>): Promise<ServerProcess> {
  const env = settingsEnv({ listen_port: "0", log_level: "info", ...settings });
  const child = spawn(process.execPath, tesseraArgs(["serve"]), { env, stdio: ["ignore", "pipe", "inherit"], cwd: PROJECT_ROOT });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error("server process did not start within 15 s")), 15_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(error);
    };
    child.once("exit", (code) => fail(new Error(`server process exited with ${code}`)));
    const output: string[] = [];
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      output.push(line);
      const url = /"url":"([^"]+)","msg":"tessera listening"/.exec(line)?.[1];
      if (!url) return;
      clearTimeout(timer);
      child.removeAllListeners("exit");
      resolve({
        url,
        port: Number(new URL(url).port),
        output,
        alive: () => child.exitCode === null && child.signalCode === null,
        stop: () => stop(child),
        kill: () => kill(child),
      });
    });
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    child.once("exit", (code) => resolve(code));
    child.kill("SIGTERM");
  });
}

function kill(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}
