/** A Tessera server in its own process (`tessera serve`), for tests that need several of them. */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";

export interface ServerProcess {
  readonly url: string;
  stop(): Promise<void>;
}

const fromSources = import.meta.url.endsWith(".ts");
const root = path.resolve(import.meta.dirname, "..", "..", fromSources ? "" : "..");

/** Starts `serve` with the given settings as TESSERA_* variables; resolves once it listens. */
export function startServerProcess(settings: Record<string, string>): Promise<ServerProcess> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", TESSERA_LISTEN_PORT: "0", TESSERA_LOG_LEVEL: "info" };
  for (const [name, value] of Object.entries(settings)) env[`TESSERA_${name.toUpperCase().replace(/[.-]/g, "_")}`] = value;
  const args = fromSources ? ["--import", "tsx", path.join(root, "src/bootstrap/cli.ts"), "serve"] : [path.join(root, "dist/src/bootstrap/cli.js"), "serve"];
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "inherit"], cwd: root });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error("server process did not start within 15 s")), 15_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(error);
    };
    child.once("exit", (code) => fail(new Error(`server process exited with ${code}`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      const url = /"url":"([^"]+)","msg":"tessera listening"/.exec(line)?.[1];
      if (!url) return;
      clearTimeout(timer);
      child.removeAllListeners("exit");
      resolve({ url, stop: () => stop(child) });
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
