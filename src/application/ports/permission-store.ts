import type { BoundPermissionsFn } from "../../domain/permissions.js";

/**
 * Levels of nesting followed by default (`group_max_depth`): a user's own principals are level 1,
 * the groups those belong to level 2, and so on; 1 means no nesting.
 */
export const DEFAULT_GROUP_MAX_DEPTH = 5;

/** One id holding some of the principals asked of membersPage, and which of them (sorted). */
export interface GroupMember {
  readonly id: string;
  readonly through: readonly string[];
}

/** Of the groups given, those whose members may be shown (readers: those the caller may read). */
export type Expandable = (groups: readonly string[]) => Promise<ReadonlySet<string>>;

/** Permission name → principals holding it on one object. */
export type ObjectPermissions = Record<string, Set<string>>;

/**
 * The permission backend: the operations of spec §4.7, in camelCase, and one batched read of
 * several ACLs (manyObjectPermissions, for the live feed's bursts).
 * Object ids are paths (`/articles`, `/articles/r1`). In `objectIdMatch` patterns `*` matches any
 * run of characters (including `/`); every other character, `%` and `_` included, matches itself.
 * Every operation accepts empty inputs without failing. Adapters wrap driver failures in
 * BackendError("permission"); a failure never answers "allowed".
 */
export interface PermissionStore {
  /** Creates tables or indices; idempotent. Run by `tessera migrate`. */
  initializeSchema(): Promise<void>;

  /** Deletes all permission data of this backend (and nothing else it shares a server with). */
  flush(): Promise<void>;

  /** Adds an extra principal (a group...) to a user, or to a group (nesting); idempotent. */
  addUserPrincipal(userId: string, principal: string): Promise<void>;

  /** Removes it; a no-op when absent. */
  removeUserPrincipal(userId: string, principal: string): Promise<void>;

  /** Removes the principal from every user (ACEs are left untouched). */
  removePrincipal(principal: string): Promise<void>;

  /**
   * The user's extra principals, united with those stored for `system.Authenticated` (so a group
   * can hold every authenticated user), expanded through nesting: a group given to a group is
   * held by every member of the latter, up to the depth bound (the user's own principals being
   * level 1); a cycle ends there. Empty set for an unknown user.
   * `held`: principals the user holds from elsewhere (the groups of a token), level 1 as if
   * stored for the user: they are in the answer and expanded as its own.
   */
  userPrincipals(userId: string, held?: readonly string[]): Promise<Set<string>>;

  /**
   * The principals stored for each id asked (a user id or a group), as addUserPrincipal gave
   * them, not expanded through nesting: one entry per distinct id, an empty set when none.
   */
  directPrincipals(ids: readonly string[]): Promise<Map<string, Set<string>>>;

  /**
   * How the principals of `ids` are reached through nesting, as one shortest-path tree: for each
   * principal stored for one of `ids` (level 1) or reached from those within the depth bound, the
   * id it is reached from at its lowest level (several there: the least in code point order). The
   * ids asked get no entry. What explain's chains are made of; one round trip on PostgreSQL.
   */
  principalParents(ids: readonly string[]): Promise<Map<string, string>>;

  /**
   * Every id (user or group, never `principal` itself) whose principals, expanded through
   * nesting within the depth bound, hold `principal`: the ids whose view changes when
   * `principal`'s own memberships change. `system.Authenticated` among them means every user.
   */
  membersOf(principal: string): Promise<Set<string>>;

  /**
   * One page of the members of several principals (membersOf of each, united): the ids after
   * `after` (none: from the start), sorted by code point (compareCodePoints: the order of
   * UTF-8 bytes, PostgreSQL's "C" collation), at most `limit`, each with the principals among `principals` it holds (an id is never listed
   * through itself). A page costs the backend at most `group_max_depth` round trips and reads
   * rows in proportion to `limit` and to the groups nested in `principals`, whatever the number
   * of members (walkMembersPage over subgroupsOf and holdersPage).
   * `expandable`: only the groups it keeps (principals asked or nested) are walked into; the
   * others are still listed as members of a group walked into, never their own members.
   */
  membersPage(principals: readonly string[], after: string | undefined, limit: number, expandable?: Expandable): Promise<GroupMember[]>;

  /**
   * For each id asked, its direct holders that are held by someone themselves (the groups nested
   * in it, one level): one entry per distinct id, an empty set when none. One round trip; what it
   * reads follows the groups found, not the holders (a group of 20,000 users and no subgroup
   * costs a few index probes).
   */
  subgroupsOf(ids: readonly string[]): Promise<Map<string, Set<string>>>;

  /**
   * One page of the direct holders of `ids` (no nesting): the ids after `after` in code point
   * order, at most `limit`, each with the ids among `ids` it holds (sorted; itself included when
   * it holds itself). One round trip reading at most `limit` holders of each id.
   */
  holdersPage(ids: readonly string[], after: string | undefined, limit: number): Promise<GroupMember[]>;

  /** Adds the principal to the ACE (object, permission); idempotent. */
  addPrincipalToAce(objectId: string, permission: string, principal: string): Promise<void>;

  /** Removes it; a no-op when absent. */
  removePrincipalFromAce(objectId: string, permission: string, principal: string): Promise<void>;

  /** Principals of exactly that bound permission; empty set when none. */
  objectPermissionPrincipals(objectId: string, permission: string): Promise<Set<string>>;

  /**
   * Object ids (as stored, never patterns) on which one of `principals` holds a permission.
   * Without `getBoundPermissions`, the pairs asked are just (objectIdMatch ?? "*", permission);
   * with it, every pair it returns for (objectIdMatch ?? "*", permission). An ACE object id
   * counts when it matches the pair's object id (wildcards allowed) and its permission equals
   * the pair's. Empty `principals`: empty set.
   */
  principalsAccessibleObjects(
    principals: readonly string[],
    permission: string,
    objectIdMatch?: string,
    getBoundPermissions?: BoundPermissionsFn,
  ): Promise<Set<string>>;

  /** Every principal granted the permission on the object, through bound permissions too. */
  objectPermissionAuthorizedPrincipals(
    objectId: string,
    permission: string,
    getBoundPermissions?: BoundPermissionsFn,
  ): Promise<Set<string>>;

  /** Whether one of `principals` holds the permission (through bound permissions too). */
  checkPermission(
    objectId: string,
    permission: string,
    principals: readonly string[],
    getBoundPermissions?: BoundPermissionsFn,
  ): Promise<boolean>;

  /** The object's ACL, restricted to `permissions` when given; permissions with no principal are absent. */
  objectPermissions(objectId: string, permissions?: readonly string[]): Promise<ObjectPermissions>;

  /**
   * The ACLs of several objects at once, restricted to `permissions` (as objectPermissions with
   * them), in one round trip: one entry per distinct id asked, in the order asked, `{}` for an
   * object without ACE. What the live feed reads once per burst for the records it delivers.
   */
  manyObjectPermissions(objectIds: readonly string[], permissions: readonly string[]): Promise<Map<string, ObjectPermissions>>;

  /**
   * Replaces, for each permission named in `permissions`, its principals with those given (an
   * empty list removes it). Permissions not named are left as they are.
   */
  replaceObjectPermissions(objectId: string, permissions: Readonly<Record<string, Iterable<string>>>): Promise<void>;

  /** Deletes every ACE of the listed objects (ids may contain `*` wildcards). No ids: no-op. */
  deleteObjectPermissions(...objectIds: string[]): Promise<void>;

  /** True when the backend answers. Never throws. */
  heartbeat(): Promise<boolean>;

  close(): Promise<void>;
}
