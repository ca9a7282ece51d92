/** `memory` in settings: the in-process adapters (one process, nothing survives a restart). */
import { ContainerModule, type ServiceIdentifier } from "inversify";
import type { Clock } from "../application/ports/clock.js";
import { MemoryCache } from "../adapters/memory/memory-cache.js";
import { MemoryPermissionStore } from "../adapters/memory/memory-permission-store.js";
import { memoryStorage } from "../adapters/memory/memory-record-store.js";
import { DirectUnitOfWork } from "../adapters/system/direct-unit-of-work.js";
import { MemoryAccountStore } from "../adapters/memory/account-memory-store.js";
import { ACCOUNT_STORE } from "./auth-accounts.js";
import type { TechnologyModule } from "./technology-roles.js";
import { TOKENS } from "./tokens.js";

type MemoryStorage = ReturnType<typeof memoryStorage>;
const MEMORY_STORAGE = Symbol("MemoryStorage") as ServiceIdentifier<MemoryStorage>;

export const memoryModule: TechnologyModule = (roles) =>
  new ContainerModule(({ bind }) => {
    if (roles.storage) {
      // The record store's listings ask its journal (lost and gained access): both built together, on the same scope clocks.
      bind(MEMORY_STORAGE).toResolvedValue((clock: Clock) => memoryStorage(clock), [TOKENS.Clock]);
      bind(TOKENS.RecordStore).toResolvedValue((storage: MemoryStorage) => storage.records, [MEMORY_STORAGE]);
      bind(TOKENS.AccessJournal).toResolvedValue((storage: MemoryStorage) => storage.journal, [MEMORY_STORAGE]);
      // Records and ACLs are separate maps: nothing to commit together.
      bind(TOKENS.UnitOfWork).toResolvedValue(() => new DirectUnitOfWork());
      bind(ACCOUNT_STORE).toResolvedValue(() => new MemoryAccountStore());
    }
    if (roles.permission) bind(TOKENS.PermissionStore).toResolvedValue(() => new MemoryPermissionStore(roles.groupMaxDepth));
    const cache = roles.cache;
    if (cache) bind(TOKENS.Cache).toResolvedValue((clock: Clock) => new MemoryCache(cache.prefix, clock), [TOKENS.Clock]);
  });
