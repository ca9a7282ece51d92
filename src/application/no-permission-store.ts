/**
 * The permission backend of a deployment without one (only user resources): it holds nothing,
 * grants nothing and stores nothing, so the services never test for a missing backend.
 */
import type { GroupMember, ObjectPermissions, PermissionStore } from "./ports/permission-store.js";

const nothing = (): Promise<void> => Promise.resolve();
const noPrincipals = (): Promise<Set<string>> => Promise.resolve(new Set<string>());

export const NO_PERMISSION_STORE: PermissionStore = Object.freeze({
  initializeSchema: nothing,
  flush: nothing,
  addUserPrincipal: nothing,
  removeUserPrincipal: nothing,
  removePrincipal: nothing,
  userPrincipals: noPrincipals,
  directPrincipals: (ids: readonly string[]): Promise<Map<string, Set<string>>> =>
    Promise.resolve(new Map(ids.map((id) => [id, new Set<string>()]))),
  membersOf: noPrincipals,
  principalParents: (): Promise<Map<string, string>> => Promise.resolve(new Map<string, string>()),
  membersPage: (): Promise<GroupMember[]> => Promise.resolve([]),
  subgroupsOf: (ids: readonly string[]): Promise<Map<string, Set<string>>> =>
    Promise.resolve(new Map(ids.map((id) => [id, new Set<string>()]))),
  holdersPage: (): Promise<GroupMember[]> => Promise.resolve([]),
  addPrincipalToAce: nothing,
  removePrincipalFromAce: nothing,
  objectPermissionPrincipals: noPrincipals,
  principalsAccessibleObjects: noPrincipals,
  objectPermissionAuthorizedPrincipals: noPrincipals,
  checkPermission: (): Promise<boolean> => Promise.resolve(false),
  objectPermissions: (): Promise<ObjectPermissions> => Promise.resolve({}),
  manyObjectPermissions: (objectIds: readonly string[]): Promise<Map<string, ObjectPermissions>> =>
    Promise.resolve(new Map(objectIds.map((id) => [id, {}]))),
  replaceObjectPermissions: nothing,
  deleteObjectPermissions: nothing,
  heartbeat: (): Promise<boolean> => Promise.resolve(true),
  close: nothing,
});
