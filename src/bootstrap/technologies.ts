/** The container module of each technology a backend setting may name; only those named are loaded. */
import type { ContainerModule } from "inversify";
import { memoryModule } from "./memory-module.js";
import { postgresModule } from "./postgres-module.js";
import { redisModule } from "./redis-module.js";
import type { Settings } from "./settings.js";
import { rolesByTechnology, type TechnologyModule } from "./technology-roles.js";

const TECHNOLOGY_MODULES: Readonly<Record<string, TechnologyModule>> = {
  memory: memoryModule,
  postgresql: postgresModule,
  redis: redisModule,
};

export function technologyModules(settings: Settings): ContainerModule[] {
  return [...rolesByTechnology(settings)].map(([name, roles]) => {
    const module = TECHNOLOGY_MODULES[name];
    if (!module) throw new Error(`unknown backend "${name}"`);
    return module(roles);
  });
}
