/**
 * Which ports each technology serves. Settings name a backend per port (`storage_backend`,
 * `permission_backend`, `cache_backend`); grouped by technology, they tell each technology's
 * container module which port tokens to bind, with which settings.
 */
import type { ContainerModule } from "inversify";
import type { BackendSettings, Settings } from "./settings.js";

/** The ports one technology serves, each with its settings; a port absent here is another's. */
export interface TechnologyRoles {
  readonly storage?: BackendSettings<string>;
  readonly permission?: BackendSettings<string>;
  readonly cache?: BackendSettings<string>;
  /** `feed_catch_up_seconds`: the change broadcast's check of watched scopes (PostgreSQL). */
  readonly feedCatchUpSeconds: number;
  /** `feed_lease_seconds`: the principal fence's lease (PostgreSQL storage; 0: no fence). */
  readonly feedLeaseSeconds: number;
  /** `group_max_depth`: levels of nested groups the permission backend follows. */
  readonly groupMaxDepth: number;
}

/** A technology's container module: binds the port tokens of the roles it is given. */
export type TechnologyModule = (roles: TechnologyRoles) => ContainerModule;

export function rolesByTechnology(settings: Settings): Map<string, TechnologyRoles> {
  const roles = new Map<string, TechnologyRoles>();
  const serve = (port: keyof TechnologyRoles, backend: BackendSettings<string> | undefined) => {
    if (backend)
      roles.set(backend.backend, {
        ...roles.get(backend.backend),
        [port]: backend,
        feedCatchUpSeconds: settings.feedCatchUpSeconds,
        feedLeaseSeconds: settings.feedLeaseSeconds,
        groupMaxDepth: settings.groupMaxDepth,
      });
  };
  serve("storage", settings.storage);
  serve("permission", settings.permission);
  serve("cache", settings.cache);
  return roles;
}
