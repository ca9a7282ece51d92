/**
 * Opens the storage, permission and cache backends named in settings. A table maps each backend
 * name to the module that opens it; only configured backends are instantiated.
 */
import type { Cache } from "../application/ports/cache.js";
import type { ChangeBroadcast } from "../application/ports/change-broadcast.js";
import type { Clock } from "../application/ports/clock.js";
import type { PermissionStore } from "../application/ports/permission-store.js";
import type { RecordStore } from "../application/ports/record-store.js";
import type { UnitOfWork } from "../application/ports/unit-of-work.js";
import type { PoolProbe } from "../adapters/http/metrics.js";
import { InProcessBroadcast } from "../adapters/memory/in-process-broadcast.js";
import { MemoryCache } from "../adapters/memory/memory-cache.js";
import { MemoryPermissionStore } from "../adapters/memory/memory-permission-store.js";
import { MemoryRecordStore } from "../adapters/memory/memory-record-store.js";
import { DirectUnitOfWork } from "../adapters/system/direct-unit-of-work.js";
import { openPostgresBackends } from "./postgres-backends.js";
import { openRedisBackends } from "./redis-backends.js";
import type { BackendSettings, Settings } from "./settings.js";

export interface Backends {
  readonly records: RecordStore;
  readonly permissions: PermissionStore | undefined;
  readonly cache: Cache;
  readonly unitOfWork: UnitOfWork;
  /** Change signals for the live feed: between processes where the storage allows it, else in process. */
  readonly broadcast: ChangeBroadcast;
  /** Records and ACEs in one database: a listing joins them in one query. */
  readonly recordsJoinPermissions: boolean;
  /** Connection pools, for metrics. */
  readonly pools: readonly PoolProbe[];
  /** Creates every backend's tables and indices (`tessera migrate`). */
  migrate(): Promise<void>;
  close(): Promise<void>;
}

/** What one technology contributes for the ports configured to use it. */
export interface OpenedBackends {
  records?: RecordStore;
  permissions?: PermissionStore;
  cache?: Cache;
  /** A unit of work over this technology's records (and permissions, when they share a database). */
  unitOfWork?: UnitOfWork;
  /** Change signals shared by every process using this storage. */
  broadcast?: ChangeBroadcast;
  /** Records and ACEs live in one database: listings join them in one query. */
  recordsJoinPermissions?: boolean;
  pools?: readonly PoolProbe[];
  /** Creates tables and indices; the ports' initializeSchema otherwise. */
  migrate?(): Promise<void>;
  close(): Promise<void>;
}

export interface BackendRequest {
  readonly storage?: BackendSettings<string>;
  readonly permission?: BackendSettings<string>;
  readonly cache?: BackendSettings<string>;
}

type Opener = (request: BackendRequest, clock: Clock) => Promise<OpenedBackends>;

const openMemory: Opener = (request, clock) =>
  Promise.resolve({
    records: request.storage ? new MemoryRecordStore(clock) : undefined,
    permissions: request.permission ? new MemoryPermissionStore() : undefined,
    cache: request.cache ? new MemoryCache(request.cache.prefix, clock) : undefined,
    close: () => Promise.resolve(),
  });

export const BACKEND_MODULES: Readonly<Record<string, Opener>> = {
  memory: openMemory,
  postgresql: openPostgresBackends,
  redis: openRedisBackends,
};

export async function openBackends(settings: Settings, clock: Clock): Promise<Backends> {
  const requests = new Map<string, { storage?: BackendSettings<string>; permission?: BackendSettings<string>; cache?: BackendSettings<string> }>();
  const want = (kind: "storage" | "permission" | "cache", backend: BackendSettings<string> | undefined) => {
    if (!backend) return;
    const request = requests.get(backend.backend) ?? {};
    request[kind] = backend;
    requests.set(backend.backend, request);
  };
  want("storage", settings.storage);
  want("permission", settings.permission);
  want("cache", settings.cache);

  const opened: OpenedBackends[] = [];
  const closeAll = () => Promise.all(opened.map((o) => o.close())).then(() => undefined);
  try {
    for (const [name, request] of requests) {
      const open = BACKEND_MODULES[name];
      if (!open) throw new Error(`unknown backend "${name}"`);
      opened.push(await open(request, clock));
    }
  } catch (error) {
    await closeAll();
    throw error;
  }
  const pick = <K extends "records" | "permissions" | "cache">(key: K) => opened.find((o) => o[key])?.[key];
  const records = pick("records") as RecordStore;
  const permissions = pick("permissions");
  const cache = pick("cache") as Cache;
  const storage = opened.find((o) => o.records);
  return {
    records,
    permissions,
    cache,
    // Records and their ACLs commit together only where one transaction spans both; across
    // technologies (PostgreSQL records, Redis permissions) each write commits on its own.
    unitOfWork: storage?.unitOfWork ?? new DirectUnitOfWork(),
    broadcast: storage?.broadcast ?? new InProcessBroadcast(),
    recordsJoinPermissions: storage?.recordsJoinPermissions ?? false,
    pools: opened.flatMap((o) => o.pools ?? []),
    async migrate() {
      for (const backend of opened) if (backend.migrate) await backend.migrate();
      await records.initializeSchema();
      await permissions?.initializeSchema();
      await cache.initializeSchema();
    },
    close: closeAll,
  };
}
