/**
 * The directories local clusters live in, and their end. Each lives under one root shared by
 * every test process of the machine and names the process that owns it. The owner stops its
 * servers and removes its directories when it exits, even on an uncaught error or a signal; a
 * process killed outright cannot, so every process first sweeps what dead owners left behind.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { chown, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type LocalPostgres, runProgramNow } from "./local-postgres.js";

/** In memory where the machine has a tmpfs for it: a data directory is a thousand small files, slow to write on a busy disk. */
const ROOT = path.join(existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir(), "tessera-local-postgres");
const OWNER_FILE = "owner-pid";
/** A directory without its owner file yet is being created, unless it is older than this. */
const CREATION_GRACE_MS = 60_000;

const owned = new Map<string, LocalPostgres>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"; // exists, owned by another user
  }
}

/** Stops (immediately) every server running in the directory's data directories, then removes it. */
function tearDown(postgres: LocalPostgres, dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const dataDir = path.join(dir, entry.name);
    if (entry.isDirectory() && existsSync(path.join(dataDir, "postmaster.pid"))) {
      runProgramNow(postgres, "pg_ctl", ["-D", dataDir, "stop", "-w", "-m", "immediate"], dir);
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

function abandoned(dir: string): boolean {
  const ownerFile = path.join(dir, OWNER_FILE);
  if (existsSync(ownerFile)) return !alive(Number(readFileSync(ownerFile, "utf8")));
  return Date.now() - statSync(dir).mtimeMs > CREATION_GRACE_MS;
}

/** Stops and removes whatever processes that died without cleaning up left under the root. */
export function sweepAbandonedClusters(postgres: LocalPostgres): void {
  if (!existsSync(ROOT)) return;
  for (const name of readdirSync(ROOT)) {
    const dir = path.join(ROOT, name);
    try {
      if (!owned.has(dir) && abandoned(dir)) tearDown(postgres, dir);
    } catch {
      // Another process swept it at the same time; what it left is swept next time.
    }
  }
}

/** Stops and removes one of this process's directories now; nothing happens at exit for it then. */
export function release(dir: string): void {
  const postgres = owned.get(dir);
  if (postgres === undefined) return;
  owned.delete(dir);
  tearDown(postgres, dir);
}

function releaseAll(): void {
  for (const dir of [...owned.keys()]) release(dir);
}

let hooked = false;

/** Signals that end a process by default; once cleaned up, the signal is raised again to end it as it would have. */
function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on("exit", releaseAll);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const onSignal = () => {
      releaseAll();
      process.removeListener(signal, onSignal);
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

/** A new directory owned by this process (and writable by the cluster's user), removed with its servers at exit. */
export async function ownedDirectory(postgres: LocalPostgres): Promise<string> {
  await mkdir(ROOT, { recursive: true, mode: 0o755 });
  const dir = await mkdtemp(path.join(ROOT, "pair-"));
  await writeFile(path.join(dir, OWNER_FILE), String(process.pid));
  if (postgres.owner !== undefined) await chown(dir, postgres.owner.uid, postgres.owner.gid);
  owned.set(dir, postgres);
  hookExit();
  return dir;
}
