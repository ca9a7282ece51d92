/**
 * Child processes under test: a Tessera server (`node dist/src/bootstrap/cli.js serve` of a given
 * build, settings as `TESSERA_<NAME>` variables) or a hello server, each on a free port, with a
 * sampler of its resident memory (/proc/<pid>/status).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer } from "node:net";
import path from "node:path";

export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  /** Starts keeping the highest VmRSS seen, sampled every 100 ms, until the returned function is called (it returns MB). */
  sampleRss(): () => number;
  /** VmHWM: the peak resident size since the process started, in MB. */
  highWaterMb(): number;
  stop(): Promise<void>;
}

export interface ServerOptions {
  /** Arguments after `node`, e.g. [`<build>/dist/src/bootstrap/cli.js`, `serve`]. */
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Extra node flags (`--cpu-prof` ...). */
  readonly nodeFlags?: readonly string[];
  /** Path answered once the server is ready (any status). */
  readonly readyPath: string;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** `TESSERA_<NAME>` variables from `{ name: value }` settings, as the settings loader reads them. */
export function settingsEnv(settings: Readonly<Record<string, string>>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(settings)) env[`TESSERA_${name.toUpperCase().replace(/[.-]/g, "_")}`] = value;
  return env;
}

/** Runs `node <args>` to completion (e.g. `cli.js migrate`); rejects with its output on failure. */
export function runNode(args: readonly string[], cwd: string, env: Readonly<Record<string, string>>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...cleanEnv(), ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve(output) : reject(new Error(`node ${args.join(" ")} exited with ${code}:\n${output}`)),
    );
  });
}

/** The parent's environment without its own TESSERA_* settings, so only what the harness says applies. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !name.startsWith("TESSERA_")) env[name] = value;
  return env;
}

export async function startProcess(options: ServerOptions, port: number): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), ...options.args], {
    cwd: options.cwd,
    env: { ...cleanEnv(), ...options.env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  await waitUntilReady(`${url}${options.readyPath}`, child, () => stderr);
  const pid = child.pid ?? 0;
  return {
    url,
    pid,
    sampleRss() {
      let peak = statusKb(pid, "VmRSS");
      const timer = setInterval(() => (peak = Math.max(peak, statusKb(pid, "VmRSS"))), 100);
      return () => {
        clearInterval(timer);
        return Math.round(Math.max(peak, statusKb(pid, "VmRSS")) / 1024);
      };
    },
    highWaterMb: () => Math.round(statusKb(pid, "VmHWM") / 1024),
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function waitUntilReady(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before listening:\n${stderr()}`);
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`server did not answer ${url} within 30 s:\n${stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** A `/proc/<pid>/status` figure in kB (0 once the process is gone). */
function statusKb(pid: number, field: "VmRSS" | "VmHWM"): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match?.[1] ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** The Tessera CLI of a build directory (one holding a compiled `dist/`). */
export function cliOf(buildDir: string): string {
  return path.join(buildDir, "dist", "src", "bootstrap", "cli.js");
}

/**
 * A private copy of a build's `dist/` (with its package.json and a link to its node_modules), so
 * that a rebuild in the working tree (`npm run build` starts by deleting dist/) cannot pull the
 * files from under a run that starts servers for many minutes.
 */
export function snapshotBuild(buildDir: string): string {
  const copy = mkdtempSync(path.join(tmpdir(), "tessera-bench-build-"));
  cpSync(path.join(buildDir, "dist"), path.join(copy, "dist"), {
    recursive: true,
    filter: (source) => !source.includes(`${path.sep}dist${path.sep}test`),
  });
  cpSync(path.join(buildDir, "package.json"), path.join(copy, "package.json"));
  symlinkSync(path.join(buildDir, "node_modules"), path.join(copy, "node_modules"), "dir");
  if (existsSync(path.join(buildDir, "sql"))) symlinkSync(path.join(buildDir, "sql"), path.join(copy, "sql"), "dir");
  return copy;
}

export function removeSnapshot(copy: string): void {
  rmSync(copy, { recursive: true, force: true });
}
