/**
 * The backend combinations every sync test runs on: memory, PostgreSQL storage + permissions
 * (one database: listings join the ACE table), PostgreSQL storage + Redis permissions (record ids
 * resolved through Redis). Each opens a test server with an extension that hands out the
 * extension context, so tests can change ACLs through the permission backend's port.
 */
import type { Container } from "inversify";
import type { ExtensionContext, TesseraExtension } from "../../src/application/extension.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { startTestServer, type TestServer } from "../support/http.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { REDIS_URL, requireService } from "../support/services.js";
import { flushStorage } from "../support/storage-reset.js";

export interface SyncBackend {
  readonly name: string;
  readonly services: readonly ("postgresql" | "redis")[];
  settings(): Promise<Record<string, string>>;
}

const EVERY_BACKEND: readonly SyncBackend[] = [
  { name: "memory", services: [], settings: () => Promise.resolve({}) },
  {
    name: "postgresql",
    services: ["postgresql"],
    async settings() {
      await ensureDatabase("tessera_sync_test");
      const url = databaseUrl("tessera_sync_test");
      return { storage_backend: "postgresql", storage_url: url, permission_backend: "postgresql", permission_url: url };
    },
  },
  {
    name: "postgresql + redis permissions",
    services: ["postgresql", "redis"],
    async settings() {
      await ensureDatabase("tessera_sync_redis_test");
      const url = databaseUrl("tessera_sync_redis_test");
      return {
        storage_backend: "postgresql",
        storage_url: url,
        permission_backend: "redis",
        permission_url: REDIS_URL,
        permission_prefix: `tessera-sync-test-${process.pid}:`,
      };
    },
  },
];

/**
 * The backends the sync suites run on: all of them, or those named in `TESSERA_SYNC_BACKENDS`
 * (comma-separated). The mutation run names memory alone (test/support/mutation-run.ts): it re-runs
 * every test covering a surviving mutant, and the database backends' servers would triple that.
 */
export const SYNC_BACKENDS: readonly SyncBackend[] = selected(process.env.TESSERA_SYNC_BACKENDS);

function selected(names: string | undefined): readonly SyncBackend[] {
  if (names === undefined || names === "") return EVERY_BACKEND;
  const wanted = names.split(",").map((name) => name.trim());
  const unknown = wanted.filter((name) => !EVERY_BACKEND.some((backend) => backend.name === name));
  if (unknown.length > 0) throw new Error(`TESSERA_SYNC_BACKENDS names unknown backends: ${unknown.join(", ")}`);
  return EVERY_BACKEND.filter((backend) => wanted.includes(backend.name));
}

export interface SyncServer {
  readonly server: TestServer;
  /** The extension context's permission backend (as an extension's code would use it). */
  readonly context: ExtensionContext;
}

/** Declares `before`/`beforeEach`/`after` hooks opening a server on the backend; returns an accessor. */
export function useSyncServer(
  backend: SyncBackend,
  extra: Record<string, string> = {},
  extensions: TesseraExtension[] = [],
): () => SyncServer {
  for (const service of backend.services) requireService(service);
  let opened: SyncServer | undefined;
  before(async function () {
    this.timeout(60_000);
    let context: ExtensionContext | undefined;
    const capture: TesseraExtension = {
      groupFinder: (ctx) => {
        context = ctx;
        return async (userId) => (ctx.permissions ? ctx.permissions.userPrincipals(userId) : []);
      },
    };
    const server = await startTestServer({ ...(await backend.settings()), ...extra }, [...extensions, capture]);
    await (await server.running.container.getAsync(TOKENS.Migrator)).migrate();
    await server.running.container.getAsync(TOKENS.Authenticator);
    if (!context) throw new Error("the extension context was not handed out");
    opened = { server, context };
  });
  beforeEach(async () => {
    if (opened) await flushBackends(opened.server.running.container);
  });
  after(async () => {
    // A test may have stopped the server already (then its backends are closed).
    const container = opened?.server.running.container;
    if (container?.isBound(TOKENS.PermissionStore))
      await (await container.getAsync(TOKENS.PermissionStore).catch(() => undefined))?.flush();
    const closing = opened;
    opened = undefined; // the next run of the suite (as under Stryker) opens its own
    await closing?.server.stop();
  });
  return () => {
    if (!opened) throw new Error("the sync server is not open");
    return opened;
  };
}

/** Empties the records (with their lost-access entries) and the permissions of a test server. */
export async function flushBackends(container: Container): Promise<void> {
  await flushStorage(container);
  if (container.isBound(TOKENS.PermissionStore)) await (await container.getAsync(TOKENS.PermissionStore)).flush();
}
