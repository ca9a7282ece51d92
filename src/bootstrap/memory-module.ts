/** `memory` in settings: the in-process adapters (one process, nothing survives a restart). */
import { ContainerModule } from "inversify";
import type { Clock } from "../application/ports/clock.js";
import { MemoryCache } from "../adapters/memory/memory-cache.js";
import { MemoryPermissionStore } from "../adapters/memory/memory-permission-store.js";
import { MemoryRecordStore } from "../adapters/memory/memory-record-store.js";
import { DirectUnitOfWork } from "../adapters/system/direct-unit-of-work.js";
import { MemoryAccountStore } from "../adapters/memory/account-memory-store.js";
import { ACCOUNT_STORE } from "./auth-accounts.js";
import type { TechnologyModule } from "./technology-roles.js";
import { TOKENS } from "./tokens.js";

export const memoryModule: TechnologyModule = (roles) =>
  new ContainerModule(({ bind }) => {
    if (roles.storage) {
      bind(TOKENS.RecordStore).toResolvedValue((clock: Clock) => new MemoryRecordStore(clock), [TOKENS.Clock]);
      // Records and ACLs are separate maps: nothing to commit together.
      bind(TOKENS.UnitOfWork).toResolvedValue(() => new DirectUnitOfWork());
      bind(ACCOUNT_STORE).toResolvedValue(() => new MemoryAccountStore());
    }
    if (roles.permission) bind(TOKENS.PermissionStore).toResolvedValue(() => new MemoryPermissionStore(roles.groupMaxDepth));
    const cache = roles.cache;
    if (cache) bind(TOKENS.Cache).toResolvedValue((clock: Clock) => new MemoryCache(cache.prefix, clock), [TOKENS.Clock]);
  });
