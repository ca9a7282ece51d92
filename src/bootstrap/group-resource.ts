/**
 * The built-in group resource (`/v1/groups`, docs/api.md "Groups"): a shareable resource whose
 * records' `data.members` hold the group's principal. Served while a permission backend is
 * configured; its writes' consequences (GroupWrites) are handed to the record service by name.
 */
import type { Container } from "inversify";
import type { Logger } from "pino";
import { CREATE, recordObjectId } from "../domain/permissions.js";
import type { ResourceSpec } from "../application/extension.js";
import { GROUP_SCHEMA, groupPrincipal, GROUPS_RESOURCE, groupMembersValidator } from "../application/groups/group-members.js";
import { placeOf } from "../application/tree/tree-places.js";
import { isTreeResourceName } from "../application/tree/tree-resources.js";
import type { WriteConsequencesOf } from "../application/resources.js";
import { TREE_PERMISSIONS } from "../domain/tree.js";
import { GroupWrites } from "../application/groups/group-writes.js";
import { PrincipalUse } from "../application/groups/principal-use.js";
import type { MembershipChanges } from "../application/memberships/membership-changes.js";
import type { PermissionStore } from "../application/ports/permission-store.js";
import type { HttpResource } from "../adapters/http/http-services.js";
import { buildResources } from "./resources.js";
import { listValue, type Settings } from "./settings.js";
import { TOKENS } from "./tokens.js";

/** Why the group resource cannot be served beside the declared resources (one of the same name), or nothing. */
export function groupResourceProblems(settings: Settings, specs: readonly ResourceSpec[]): string[] {
  if (!settings.permission) return [];
  const problems: string[] = [];
  if (specs.some((spec) => spec.name === GROUPS_RESOURCE))
    problems.push(
      `resource "${GROUPS_RESOURCE}" is built in while a permission backend is configured (the group resource, docs/api.md "Groups"): name yours otherwise`,
    );
  if (settings.all[`${GROUPS_RESOURCE}_${CREATE}_principals`] !== undefined)
    problems.push(`${GROUPS_RESOURCE}_${CREATE}_principals: who may create groups is group_create_principals`);
  return problems;
}

/** The group resource, added to `resources` when a permission backend is configured. */
export function addGroupResource(resources: Map<string, HttpResource>, settings: Settings): void {
  if (!settings.permission) return;
  const spec: ResourceSpec = {
    name: GROUPS_RESOURCE,
    kind: "shareable",
    validate: groupMembersValidator(settings.groupMaxMembers),
    schema: GROUP_SCHEMA,
  };
  const built = buildResources([spec], settings.all).get(GROUPS_RESOURCE);
  if (!built) return;
  const settingsPrincipals = { ...built.definition.settingsPrincipals };
  if (settings.groupCreatePrincipals.length > 0) settingsPrincipals[CREATE] = settings.groupCreatePrincipals;
  else delete settingsPrincipals[CREATE];
  resources.set(GROUPS_RESOURCE, { ...built, definition: { ...built.definition, settingsPrincipals } });
}

/**
 * What a write of a group record entails (GroupWrites over the Memberships use case), for the
 * group resource (principal `group:<id>`) and the groups of the tree's buckets (principal: the
 * group's URI), with what makes a principal in use read from settings and resources.
 */
export function bindGroupWrites(container: Container, settings: Settings, resources: ReadonlyMap<string, HttpResource>): void {
  if (!container.isBound(TOKENS.PermissionStore)) return;
  container.bind(TOKENS.WriteConsequences).toResolvedValue(
    (memberships: MembershipChanges, permissions: PermissionStore, logger: Logger): WriteConsequencesOf => {
      const declared = [...resources.values()].flatMap((r) => r.definition.permissions);
      const deps = {
        memberships,
        use: new PrincipalUse({
          permissions,
          settingsPrincipals: settingsPrincipals(settings),
          groupsReservedBecause: claimedGroups(settings),
          aclPermissions: [...new Set([...declared, ...Object.values(TREE_PERMISSIONS).flat(), CREATE])],
        }),
        log: (error: unknown, message: string) => logger.error({ err: error }, message),
      };
      const groups = new GroupWrites({ ...deps, principalOf: groupPrincipal });
      return (resource) => {
        if (resource.name === GROUPS_RESOURCE) return groups;
        if (isTreeResourceName(resource.name) && placeOf(resource).level === "group")
          return new GroupWrites({ ...deps, principalOf: (id) => recordObjectId(resource.name, id) });
        return undefined;
      };
    },
    [TOKENS.Memberships, TOKENS.PermissionStore, TOKENS.Logger],
  );
}

/** Every principal a `*_principals` setting names (the resources', the accounts', the groups'). */
function settingsPrincipals(settings: Settings): Set<string> {
  const named = new Set<string>();
  for (const [name, value] of Object.entries(settings.all))
    if (name.endsWith("_principals")) for (const principal of listValue(value)) named.add(principal);
  return named;
}

/** Why every `group:` principal belongs to tokens: an OpenID policy maps a groups claim to `group:<value>`. */
function claimedGroups(settings: Settings): string | undefined {
  const policy = settings.auth.policies.find((p) => p.use === "openid" && p.options.groups_claim !== undefined);
  return policy && `the "${policy.name}" policy gives its tokens' groups_claim values as group:<value> principals, so group ids are theirs`;
}
