/**
 * Parse Server 9.10 as a peer (`npm run bench -- --peer parse`): installed on first use into a
 * cache folder outside the project's dependencies, started as one process on its own PostgreSQL
 * database, and given the same data shapes and requests as Tessera's W1, W2, W3 and W5: records
 * of ~200 bytes, each with its owner in a per-object ACL, 100 of 10k also readable by a second user.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import type { RequestSpec } from "autocannon";
import { recordData, SHARED_COUNT } from "./seed.js";
import { freePort, startProcess, type ServerProcess } from "./server-process.js";
import type { Figure } from "./workloads.js";

export const PARSE_VERSION = "9.10.0";
const PARSE_APP_ID = "tessera-bench";
const PARSE_MASTER_KEY = "tessera-bench-master-key";
const PARSE_MOUNT = "/parse";
const LIST_SIZE = 10_000;

/** Where Parse Server is installed: `$TESSERA_BENCH_CACHE/parse`, by default under ~/.cache. */
export function parseInstallDir(): string {
  return path.join(process.env.TESSERA_BENCH_CACHE ?? path.join(homedir(), ".cache", "tessera-bench"), "parse");
}

/** Installs Parse Server into the cache folder unless that version is already there. */
export function ensureParseInstalled(log: (line: string) => void): string {
  const dir = parseInstallDir();
  const manifest = path.join(dir, "node_modules", "parse-server", "package.json");
  const installed = existsSync(manifest) ? (JSON.parse(readFileSync(manifest, "utf8")) as { version?: string }).version : undefined;
  if (installed === PARSE_VERSION) return dir;
  log(`installing parse-server@${PARSE_VERSION} into ${dir} (first use)`);
  mkdirSync(dir, { recursive: true });
  execFileSync("npm", ["install", "--prefix", dir, `parse-server@${PARSE_VERSION}`, "--no-audit", "--no-fund", "--loglevel=error"], {
    stdio: "inherit",
    timeout: 15 * 60_000,
  });
  return dir;
}

export async function startParse(buildDir: string, databaseUri: string): Promise<ServerProcess> {
  const port = await freePort();
  const script = path.join(buildDir, "dist", "bench", "parse-server.js");
  return startProcess(
    {
      args: [script, parseInstallDir(), String(port), databaseUri, PARSE_APP_ID, PARSE_MASTER_KEY, PARSE_MOUNT],
      cwd: buildDir,
      env: { NODE_ENV: "production" },
      readyPath: `${PARSE_MOUNT}/health`,
    },
    port,
  );
}

interface Session {
  readonly objectId: string;
  readonly sessionToken: string;
}

interface Caller {
  readonly session?: Session;
  readonly master?: boolean;
}

function headersOf(caller: Caller, body: boolean): Record<string, string> {
  return {
    "X-Parse-Application-Id": PARSE_APP_ID,
    ...(caller.master ? { "X-Parse-Master-Key": PARSE_MASTER_KEY } : {}),
    ...(caller.session ? { "X-Parse-Session-Token": caller.session.sessionToken } : {}),
    ...(body ? { "Content-Type": "application/json" } : {}),
  };
}

async function parseApi(
  base: string,
  method: string,
  route: string,
  caller: Caller,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${base}${PARSE_MOUNT}${route}`, {
    method,
    headers: headersOf(caller, body !== undefined),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

function expectOk(what: string, result: { status: number; json: unknown }): void {
  if (result.status < 200 || result.status >= 300)
    throw new Error(`Parse ${what}: ${result.status} ${JSON.stringify(result.json).slice(0, 300)}`);
}

/** The shape of Tessera's records, as a Parse class. */
const FIELDS = {
  title: { type: "String" },
  done: { type: "Boolean" },
  priority: { type: "Number" },
  tags: { type: "Array" },
  note: { type: "String" },
};

/** A Parse Server with its two users and classes, ready for the workloads. */
export class ParsePeer {
  private owner: Session | undefined;
  private reader: Session | undefined;

  constructor(readonly server: ServerProcess) {}

  async setUp(): Promise<void> {
    const base = this.server.url;
    for (const className of ["Article", "Write", "List"]) {
      const created = await parseApi(base, "POST", `/schemas/${className}`, { master: true }, { className, fields: FIELDS });
      if (created.status !== 200 && !JSON.stringify(created.json).includes("already exists")) expectOk(`schema ${className}`, created);
    }
    this.owner = await this.signUp("owner");
    this.reader = await this.signUp("alice");
  }

  async figures(workload: "W1" | "W2" | "W3" | "W5", connections: number): Promise<Figure[]> {
    switch (workload) {
      case "W1":
        return [
          {
            label: "W1",
            connections,
            requests: [this.request("GET", `/classes/Article/${await this.createOwned("Article", 1)}`, this.ownerSession())],
          },
        ];
      case "W2": {
        const body = { ...recordData(1), ACL: this.ownerAcl() };
        const check = await parseApi(this.server.url, "POST", "/classes/Write", { session: this.ownerSession() }, body);
        expectOk("W2 check", check);
        return [{ label: "W2", connections, requests: [this.request("POST", "/classes/Write", this.ownerSession(), body)] }];
      }
      case "W3":
        return [{ label: "W3", connections, requests: [await this.listing()] }];
      case "W5":
        return [{ label: "W5", connections, requests: [await this.updates(connections)] }];
    }
  }

  /**
   * 10k records of the owner, every 100th also readable by the reader, written through the API
   * one POST at a time, 8 in flight (Parse 9.10's /batch fails routing its sub-requests).
   */
  async seedList(): Promise<number> {
    const started = Date.now();
    const owner = this.ownerSession();
    const reader = this.readerSession();
    let next = 1;
    const worker = async () => {
      while (next <= LIST_SIZE) {
        const i = next++;
        const acl = {
          [owner.objectId]: { read: true, write: true },
          ...(i % (LIST_SIZE / SHARED_COUNT) === 0 ? { [reader.objectId]: { read: true } } : {}),
        };
        expectOk(
          "seeding List",
          await parseApi(this.server.url, "POST", "/classes/List", { session: owner }, { ...recordData(i), ACL: acl }),
        );
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    return (Date.now() - started) / 1000;
  }

  private async listing(): Promise<RequestSpec> {
    const route = "/classes/List?limit=100&order=-updatedAt";
    const check = await parseApi(this.server.url, "GET", route, { session: this.readerSession() });
    const count = (check.json.results as unknown[] | undefined)?.length;
    if (check.status !== 200 || count !== SHARED_COUNT)
      throw new Error(`Parse W3 check: ${check.status}, ${count} results instead of ${SHARED_COUNT}`);
    return this.request("GET", route, this.readerSession());
  }

  /** W5: one record per connection, each PUT writing a new priority (Parse has no If-Match). */
  private async updates(connections: number): Promise<RequestSpec> {
    const ids: string[] = [];
    for (let i = 0; i < connections; i++) ids.push(await this.createOwned("Article", i));
    let handedOut = 0;
    const headers = headersOf({ session: this.ownerSession() }, true);
    return {
      method: "PUT",
      setupRequest(req, context) {
        const state = (context.state ?? {}) as { id?: string; n?: number };
        state.id ??= ids[handedOut++ % ids.length];
        state.n = (state.n ?? 0) + 1;
        context.state = state;
        return { ...req, path: `${PARSE_MOUNT}/classes/Article/${state.id ?? ""}`, headers, body: JSON.stringify({ priority: state.n }) };
      },
    };
  }

  private async createOwned(className: string, n: number): Promise<string> {
    const created = await parseApi(
      this.server.url,
      "POST",
      `/classes/${className}`,
      { session: this.ownerSession() },
      { ...recordData(n), ACL: this.ownerAcl() },
    );
    expectOk(`create ${className}`, created);
    return String(created.json.objectId);
  }

  private request(method: string, route: string, session: Session, body?: unknown): RequestSpec {
    return {
      method,
      path: `${PARSE_MOUNT}${route}`,
      headers: headersOf({ session }, body !== undefined),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    };
  }

  private async signUp(username: string): Promise<Session> {
    const result = await parseApi(this.server.url, "POST", "/users", {}, { username, password: "bench-password" });
    expectOk(`sign-up ${username}`, result);
    return { objectId: String(result.json.objectId), sessionToken: String(result.json.sessionToken) };
  }

  private ownerAcl(): Record<string, { read: boolean; write: boolean }> {
    return { [this.ownerSession().objectId]: { read: true, write: true } };
  }

  private ownerSession(): Session {
    if (!this.owner) throw new Error("ParsePeer.setUp() first");
    return this.owner;
  }

  private readerSession(): Session {
    if (!this.reader) throw new Error("ParsePeer.setUp() first");
    return this.reader;
  }
}
