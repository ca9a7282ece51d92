/**
 * PostgreSQL clusters of a test's own (initdb + pg_ctl), beside the shared server: for setups
 * the shared server cannot give, such as a streaming standby. PostgreSQL refuses to run as
 * root, so under root every program runs as the `postgres` user, in directories it owns: through
 * setpriv where there is one, as runuser spends half a second per call opening a PAM session.
 */
import { execFile, spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { appendFile, readFile, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);
const PROGRAMS = ["initdb", "pg_ctl", "pg_basebackup"] as const;
type Program = (typeof PROGRAMS)[number];

/** Where the programs are and who runs them (undefined: this process's own user). */
export interface LocalPostgres {
  readonly binDir: string;
  readonly owner: { readonly uid: number; readonly gid: number; readonly switchUser: "setpriv" | "runuser" } | undefined;
}

/** Directories that may hold the programs, best first: pg_config's, the distribution's (newest major first), PATH. */
async function candidateDirectories(): Promise<string[]> {
  const directories: string[] = [];
  try {
    directories.push((await execFileAsync("pg_config", ["--bindir"])).stdout.trim());
  } catch {
    // No pg_config on PATH: the other places may still hold the programs.
  }
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const majors = readdirSync(debian).filter((name) => /^\d+$/.test(name));
    directories.push(...majors.sort((a, b) => Number(b) - Number(a)).map((major) => path.join(debian, major, "bin")));
  }
  directories.push(...(process.env.PATH ?? "").split(path.delimiter).filter((entry) => entry !== ""));
  return directories;
}

async function idOf(flag: "-u" | "-g", user: string): Promise<number> {
  return Number((await execFileAsync("id", [flag, user])).stdout.trim());
}

function onPath(program: string): boolean {
  return (process.env.PATH ?? "").split(path.delimiter).some((dir) => dir !== "" && existsSync(path.join(dir, program)));
}

async function lookUp(): Promise<LocalPostgres | string> {
  const candidates = await candidateDirectories();
  const binDir = candidates.find((dir) => PROGRAMS.every((program) => existsSync(path.join(dir, program))));
  if (binDir === undefined) return `PostgreSQL server programs (${PROGRAMS.join(", ")}) not found in ${candidates.join(", ")}`;
  if (process.getuid?.() !== 0) return { binDir, owner: undefined };
  try {
    const [uid, gid] = [await idOf("-u", "postgres"), await idOf("-g", "postgres")];
    return { binDir, owner: { uid, gid, switchUser: onPath("setpriv") ? "setpriv" : "runuser" } };
  } catch {
    return "running as root, and PostgreSQL refuses root, but there is no postgres user to run it as";
  }
}

let found: Promise<LocalPostgres | string> | undefined;

/** The programs and their user, or why this machine cannot run a cluster of its own. Looked up once. */
export function localPostgres(): Promise<LocalPostgres | string> {
  found ??= lookUp();
  return found;
}

/** The command line running `program`, as `postgres` when this process is root. */
function commandLine(postgres: LocalPostgres, program: Program, args: readonly string[]): [string, string[]] {
  const file = path.join(postgres.binDir, program);
  if (postgres.owner === undefined) return [file, [...args]];
  if (postgres.owner.switchUser === "runuser") return ["runuser", ["-u", "postgres", "--", file, ...args]];
  return ["setpriv", ["--reuid=postgres", "--regid=postgres", "--init-groups", "--", file, ...args]];
}

/** The environment of a program: HOME where its user may read (setpriv keeps root's, where libpq looks for .pgpass). */
function environment(cwd: string): NodeJS.ProcessEnv {
  return { ...process.env, HOME: cwd };
}

/** Runs a program to its end; `cwd` must be readable by its user (initdb and pg_ctl complain otherwise). */
export async function runProgram(postgres: LocalPostgres, program: Program, args: readonly string[], cwd: string): Promise<void> {
  const [file, argv] = commandLine(postgres, program, args);
  try {
    await execFileAsync(file, argv, { cwd, env: environment(cwd) });
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`${program} ${args.join(" ")} failed: ${(stderr || stdout || String(error)).trim()}`, { cause: error });
  }
}

/** The same, blocking and ignoring failure: for exit hooks, where nothing asynchronous runs any more. */
export function runProgramNow(postgres: LocalPostgres, program: Program, args: readonly string[], cwd: string): void {
  const [file, argv] = commandLine(postgres, program, args);
  spawnSync(file, argv, { cwd, env: environment(cwd), stdio: "ignore", timeout: 30_000 });
}

/** A port free on 127.0.0.1 right now (another process may still take it first: callers retry). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Settings of a primary that streams to standbys. fsync is off: these clusters are thrown away,
 * never recovered from a machine crash. No Unix socket: everything connects over TCP, and the
 * distribution's socket directory belongs to the shared server.
 */
const PRIMARY_SETTINGS = `
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
wal_level = replica
max_wal_senders = 8
max_replication_slots = 8
hot_standby = on
hot_standby_feedback = on
fsync = off
`;

const TRUST_FROM_THIS_MACHINE = `
local all all trust
local replication all trust
host all all 127.0.0.1/32 trust
host replication all 127.0.0.1/32 trust
`;

/** One data directory and the server running on it (on the same port across restarts). */
export class LocalCluster {
  private port = 0;

  constructor(
    private readonly postgres: LocalPostgres,
    readonly dataDir: string,
  ) {}

  get url(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** initdb with the primary settings above (same encoding and locale as the shared server). */
  async initPrimary(): Promise<void> {
    await runProgram(
      this.postgres,
      "initdb",
      ["-D", this.dataDir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"],
      this.cwd,
    );
    await appendFile(path.join(this.dataDir, "postgresql.conf"), PRIMARY_SETTINGS);
    await writeFile(path.join(this.dataDir, "pg_hba.conf"), TRUST_FROM_THIS_MACHINE);
  }

  /** A standby of `primary`: its base backup, the WAL it needs, a replication slot that keeps WAL for it while it is down. */
  async initStandbyOf(primary: LocalCluster, slot: string): Promise<void> {
    const from = ["-h", "127.0.0.1", "-p", String(primary.port), "-U", "postgres"];
    await runProgram(
      this.postgres,
      "pg_basebackup",
      [...from, "-D", this.dataDir, "-R", "-X", "stream", "-c", "fast", "-C", "-S", slot],
      this.cwd,
    );
  }

  /** Starts the server: on a new free port the first time (a few tries, as another process may take it), on the same one later. */
  async start(): Promise<void> {
    const fixed = this.port !== 0;
    for (let attempt = 1; ; attempt += 1) {
      if (!fixed) this.port = await freePort();
      try {
        return await this.pgCtl(["start", "-w", "-t", "60", "-l", `${this.dataDir}.log`, "-o", `-p ${this.port}`]);
      } catch (error) {
        if (fixed || attempt === 3) throw new Error(`${String(error)}\n${await this.logTail()}`, { cause: error });
      }
    }
  }

  /** Stops the server; `immediate` skips the shutdown checkpoint (as a crash would). */
  stop(mode: "fast" | "immediate"): Promise<void> {
    return this.pgCtl(["stop", "-w", "-m", mode]);
  }

  /** Ends recovery: a standby becomes a primary of its own. */
  promote(): Promise<void> {
    return this.pgCtl(["promote", "-w"]);
  }

  /** The end of the server's log, which says why it would not start. */
  private async logTail(): Promise<string> {
    const log = await readFile(`${this.dataDir}.log`, "utf8").catch(() => "(no log)");
    return log.split("\n").slice(-15).join("\n");
  }

  private pgCtl(args: readonly string[]): Promise<void> {
    return runProgram(this.postgres, "pg_ctl", ["-D", this.dataDir, ...args], this.cwd);
  }

  private get cwd(): string {
    return path.dirname(this.dataDir);
  }
}
