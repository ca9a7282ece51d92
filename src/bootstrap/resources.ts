/** Resource definitions from the `resources` setting, per-collection settings and extensions. */
import type { JsonValue } from "../domain/json.js";
import { CREATE } from "../domain/permissions.js";
import type { ResourceSpec } from "../application/extension.js";
import { DEFAULT_PERMISSIONS, type ResourceDefinition } from "../application/resources.js";
import type { HttpResource } from "../adapters/http/http-services.js";
import { ENDPOINT_METHODS } from "../adapters/http/record-routes.js";
import { unknownSystemPrincipal } from "../domain/principals.js";
import { listValue, SettingsError } from "./settings.js";

export function buildResources(specs: readonly ResourceSpec[], settings: Readonly<Record<string, JsonValue>>): Map<string, HttpResource> {
  const resources = new Map<string, HttpResource>();
  const problems: string[] = [];
  for (const spec of specs) {
    const permissions = [...new Set([...DEFAULT_PERMISSIONS, ...(spec.extraPermissions ?? [])])];
    const settingsPrincipals: Record<string, readonly string[]> = {};
    for (const permission of [...permissions, CREATE]) {
      const name = `${spec.name}_${permission}_principals`;
      const principals = listValue(settings[name]);
      const typo = unknownSystemPrincipal(principals);
      if (typo) problems.push(`${name}: ${typo}`);
      if (principals.length > 0) settingsPrincipals[permission] = principals;
    }
    const definition: ResourceDefinition = {
      name: spec.name,
      kind: spec.kind,
      permissions,
      settingsPrincipals,
      validate: spec.validate,
      schema: spec.schema,
      viewPermissions: spec.viewPermissions,
      authorization: spec.authorization,
      boundPermissions: spec.boundPermissions,
    };
    const disabled = new Set<string>();
    for (const [endpoint, methods] of Object.entries(ENDPOINT_METHODS)) {
      for (const method of methods) {
        if (settings[`${spec.name}_${endpoint}_${method.toLowerCase()}_enabled`] === false) disabled.add(`${endpoint}:${method}`);
      }
    }
    const expires = settings[`${spec.name}_cache_expires_seconds`];
    // 0 means "not cacheable", as in Kinto.
    resources.set(spec.name, {
      definition,
      disabled,
      cacheExpiresSeconds: typeof expires === "number" && expires > 0 ? expires : undefined,
    });
  }
  if (problems.length > 0) throw new SettingsError(problems);
  return resources;
}
