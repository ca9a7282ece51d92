/**
 * "Why and who" (issue 26): why a caller may or may not use a permission on one record, who may
 * read a record (through groups), and every object a caller holds a permission on. Each answer
 * is the decision the record flows make, asked of the same kind policy and authorizer on the same
 * read of the record (RecordTargets): explain can never disagree with GET, PUT or PATCH.
 */
import { RecordNotFoundError, ValidationError } from "../../domain/errors.js";
import { isValidRecordId } from "../../domain/records.js";
import { CREATE, READ, type BoundPermission } from "../../domain/permissions.js";
import { AUTHENTICATED, EVERYONE, type Caller } from "../../domain/principals.js";
import { denial, memoizedAcls, type AclReader, type Decision, type GrantSource } from "../authorizer.js";
import type { ResourceKindPolicy, ResourceKinds } from "../kinds/resource-kind-policy.js";
import type { Filter, SortKey } from "../listing.js";
import type { PaginationTokens } from "../pagination-token.js";
import { heldTreeObjects, type HeldTreeObject } from "../tree/held-tree-objects.js";
import type { PermissionStore } from "../ports/permission-store.js";
import type { RecordStore } from "../ports/record-store.js";
import type { Grants, SharedRecords } from "../ports/shared-records.js";
import { aclOf, RecordTargets } from "../record-targets.js";
import type { Requester } from "../requester.js";
import { permissionFor, type ResourceDefinition } from "../resources.js";
import { compareCodePoints } from "../nested-principals.js";
import { groupChains, type ChainBounds } from "./group-chains.js";

export interface AccessServiceDeps {
  readonly records: RecordStore;
  readonly shared: SharedRecords;
  readonly kinds: ResourceKinds;
  readonly permissions: PermissionStore;
  readonly tokens: PaginationTokens;
  readonly chainBounds?: ChainBounds;
  /** Kinto's tree is served (`buckets`: the resource of its buckets): its objects are listed too. */
  readonly tree?: { readonly buckets: ResourceDefinition };
}

/** A grant the caller holds, with the chain of memberships through which they hold each principal it names. */
export interface ExplainedGrant extends BoundPermission {
  readonly source: GrantSource;
  /** `<collection>_<permission>_principals`, for a grant from the settings. */
  readonly setting?: string;
  readonly through: readonly { readonly principal: string; readonly chain: readonly string[] | undefined }[];
}

export interface Explanation {
  readonly permission: string;
  readonly objectId: string;
  readonly allowed: boolean;
  /** The caller's principals, as the decision saw them. */
  readonly principals: readonly string[];
  readonly checked: readonly BoundPermission[];
  readonly held: readonly ExplainedGrant[];
  readonly policy: Decision["policy"];
}

/** One principal who may read a record: the grants naming it, and the principals it holds read through (groups). */
export interface Reader {
  readonly principal: string;
  readonly grants: readonly (BoundPermission & { readonly source: GrantSource })[];
  readonly through: readonly string[];
}

/** One object the caller holds permissions on (Kinto's `/permissions` entry). */
export interface AccessibleObject {
  readonly collection: string;
  /** The record's id; undefined for the collection itself. */
  readonly id: string | undefined;
  readonly permissions: readonly string[];
  /** An object of Kinto's tree, or its root (whose `bucket:create` the settings give); then `collection` is TREE_SOURCE and `id` its URI. */
  readonly tree?: HeldTreeObject | typeof TREE_ROOT;
}

/** Where the tree's objects sort among the resources in `/permissions` pages: as a resource of this name. */
export const TREE_SOURCE = "buckets";
export const TREE_ROOT = "/";

export interface Page<T> {
  readonly entries: readonly T[];
  readonly nextToken?: string;
}

export interface PageParams {
  readonly limit: number;
  readonly token?: string;
}

/** The permissions a resource answers explain for: its own, `create`, and those its views require. */
export function knownPermissions(resource: ResourceDefinition): string[] {
  const views = ["read", "update", "replace", "delete", "create", "list", "deleteAll"] as const;
  return [...new Set([...resource.permissions, CREATE, ...views.map((v) => permissionFor(resource, v))])];
}

/** A group's principal: `group:<id of its record in the groups resource>`. */
const GROUP_PREFIX = "group:";

const READERS_SORT: readonly SortKey[] = [{ field: "principal", descending: false }];
const OBJECTS_SORT: readonly SortKey[] = [
  { field: "collection", descending: false },
  { field: "id", descending: false },
];

export class AccessService {
  private readonly targets: RecordTargets;

  constructor(private readonly deps: AccessServiceDeps) {
    this.targets = new RecordTargets(deps.records, deps.shared);
  }

  /**
   * Whether the caller holds `permission` on the record, and why. A caller who may not read the
   * record learns no more than GET tells them: for `read` the refusal (the same whether or not
   * the record exists), for any other permission 401/403; a missing record is a 404 exactly
   * when GET answers 404.
   */
  async explain(requester: Requester, resource: ResourceDefinition, id: string, permission: string): Promise<Explanation> {
    rejectUnknownPermission(resource, permission);
    const kind = this.kindOf(resource);
    const scope = kind.scope(requester, resource);
    const acls = memoizedAcls(this.deps.permissions, knownPermissions(resource));
    // Started with the record read, not after the decision: the tree of the user's groups (one
    // statement on PostgreSQL) and the collection's ACL (a cache warmed, decided on later) add no
    // round trip to the critical path.
    // A kind without ACL never asks the permission backend: its one grant is the caller's own id.
    const keepsAcl = kind.recordAcls(resource) !== undefined;
    const own = requester.userId === undefined ? [] : [requester.userId];
    const read = this.targets.callerAndTarget(kind, requester, resource, scope, id);
    const walk = groupChains(this.deps.permissions, requester.userId, keepsAcl ? undefined : own, this.deps.chainBounds);
    const warm = keepsAcl ? acls([{ objectId: `/${resource.name}`, permission: READ }]) : undefined;
    const [[caller, target], chains] = await Promise.all([read, walk, warm]);
    const readPermission = permissionFor(resource, "read");
    const reading = await kind.explain(caller, resource, readPermission, id, target.acl, acls);
    if (!reading.allowed) {
      if (permission === readPermission) return explained(caller, resource, permission, recordId(resource, id), reading, chains);
      throw denial(caller);
    }
    if (!target.record) throw new RecordNotFoundError(resource.name, id);
    // Creating is decided on the collection (PUT of a new id), every other permission on the record.
    const onCollection = permission === permissionFor(resource, "create");
    const decision =
      permission === readPermission
        ? reading
        : onCollection
          ? await kind.explain(caller, resource, permission, undefined, undefined, acls)
          : await kind.explain(caller, resource, permission, id, target.acl, acls);
    return explained(caller, resource, permission, onCollection ? `/${resource.name}` : recordId(resource, id), decision, chains);
  }

  /**
   * Who may read the record: the principals its grants name (settings, collection and record
   * ACLs, through bound permissions) and every id holding one of them through groups. Only for
   * callers who may write the record; the others are answered as explain answers them.
   * A group's members (and the members of the groups in it) are shown only when the caller may
   * read the group's record in `groups` (`group:<id>` is `/groups/<id>`), decided as GET decides
   * it; without that resource, no group's members are shown. The group itself stays listed.
   */
  async readers(
    requester: Requester,
    resource: ResourceDefinition,
    id: string,
    page: PageParams,
    groups?: ResourceDefinition,
  ): Promise<Page<Reader>> {
    const kind = this.kindOf(resource);
    const scope = kind.scope(requester, resource);
    const acls = memoizedAcls(this.deps.permissions, knownPermissions(resource));
    // The collection's ACL, which the decisions and the grants below read, is read with the record
    // (as explain does): one round trip less on the way.
    const warm = kind.recordAcls(resource) === undefined ? undefined : acls([{ objectId: `/${resource.name}`, permission: READ }]);
    const [[caller, target]] = await Promise.all([this.targets.callerAndTarget(kind, requester, resource, scope, id), warm]);
    const read = await kind.explain(caller, resource, permissionFor(resource, "read"), id, target.acl, acls);
    if (!read.allowed) throw denial(caller);
    if (!target.record) throw new RecordNotFoundError(resource.name, id);
    const write = await kind.explain(caller, resource, permissionFor(resource, "update"), id, target.acl, acls);
    if (!write.allowed) throw denial(caller);
    const filters = tokenBinding("readers", recordId(resource, id));
    const after =
      page.token === undefined ? undefined : stringAt(this.deps.tokens.decode(page.token, READERS_SORT, filters).cursor.values, 0);
    // A kind without ACL: the record is its owner's alone, who is the caller (the scope is theirs).
    const owner = caller.userId === undefined ? [] : [caller.userId];
    const fromAcls = await kind.holders(resource, READ, id, target.acl ?? {}, acls);
    const held = fromAcls ?? [{ objectId: recordId(resource, id), permission: READ, source: "owner" as const, principals: owner }];
    const named = new Map<string, Reader["grants"][number][]>();
    for (const grant of held)
      for (const principal of grant.principals) {
        let grants = named.get(principal);
        if (!grants) named.set(principal, (grants = []));
        grants.push({ objectId: grant.objectId, permission: grant.permission, source: grant.source });
      }
    // Everyone and Authenticated stand for every caller: they are listed, never expanded.
    const expanded = fromAcls === undefined ? [] : [...named.keys()].filter((p) => p !== EVERYONE && p !== AUTHENTICATED);
    // One page of members, one more to know whether a page follows: the principals the grants
    // name (the ACL, read whole anyway) are merged in; any of them holding another through a group
    // and ranked within this page is within the members read too.
    const readable = (candidates: readonly string[]) => this.readableGroups(requester, groups, candidates);
    const members = expanded.length === 0 ? [] : await this.deps.permissions.membersPage(expanded, after, page.limit + 1, readable);
    const readers = new Map<string, { grants: Reader["grants"]; through: readonly string[] }>();
    for (const [principal, grants] of named)
      if (after === undefined || compareCodePoints(principal, after) > 0) readers.set(principal, { grants, through: [] });
    for (const member of members) readers.set(member.id, { grants: readers.get(member.id)?.grants ?? [], through: member.through });
    const sorted = [...readers.keys()].sort(compareCodePoints);
    const entries = sorted.slice(0, page.limit).map((principal) => ({ principal, ...readers.get(principal)! }));
    if (sorted.length <= page.limit || entries.length === 0) return { entries };
    const last = entries.at(-1)!.principal;
    return { entries, nextToken: this.deps.tokens.encode(READERS_SORT, filters, { cursor: { values: [last] }, upTo: 0 }) };
  }

  /**
   * Every object the caller holds a permission on, Kinto's `/permissions`, by resource name: the
   * collection when the caller holds a permission on it, then its records by id, each with every
   * permission the caller holds there. Records of a shareable resource: those whose own ACL names
   * one of the caller's principals for any permission (custom ones too, whether or not they grant
   * read); of a user resource: the caller's own collection and records (none for an anonymous
   * caller). One page costs one listing and one ACL read per resource it touches, whatever the totals.
   */
  async accessibleObjects(
    requester: Requester,
    resources: readonly ResourceDefinition[],
    page: PageParams,
  ): Promise<Page<AccessibleObject>> {
    const filters = tokenBinding("permissions", requester.userId ?? EVERYONE);
    const position = page.token === undefined ? undefined : this.deps.tokens.decode(page.token, OBJECTS_SORT, filters).cursor.values;
    const afterCollection = position === undefined ? undefined : stringAt(position, 0);
    const afterId = position === undefined ? undefined : stringAt(position, 1);
    const caller = await requester.caller();
    const entries: AccessibleObject[] = [];
    let more = false;
    const listed: (ResourceDefinition | typeof TREE_SOURCE)[] = resources.filter(
      (r) => this.kindOf(r).recordAcls(r) !== undefined || requester.userId !== undefined,
    );
    if (this.deps.tree) listed.push(TREE_SOURCE);
    listed.sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : 1));
    for (const resource of listed) {
      if (afterCollection !== undefined && nameOf(resource) < afterCollection) continue;
      const resumeAt = nameOf(resource) === afterCollection ? afterId : undefined;
      if (entries.length >= page.limit) {
        more = true;
        break;
      }
      if (resource === TREE_SOURCE) {
        const room = page.limit - entries.length;
        const tree = await this.treeObjects(this.deps.tree!.buckets, caller, resumeAt);
        entries.push(...tree.slice(0, room));
        if (tree.length > room) {
          more = true;
          break;
        }
        continue;
      }
      const kind = this.kindOf(resource);
      const acls = memoizedAcls(this.deps.permissions, knownPermissions(resource));
      if (resumeAt === undefined) {
        const held = await this.heldPermissions(kind, caller, resource, undefined, undefined, acls);
        if (held.length > 0) entries.push({ collection: resource.name, id: undefined, permissions: held });
      }
      const remaining = page.limit - entries.length;
      if (remaining <= 0) {
        more = true; // checked on the next page: its records may be none
        break;
      }
      const records = await this.recordsHeld(kind, requester, caller, resource, resumeAt ?? "", remaining + 1);
      const ids = records.slice(0, remaining);
      const recordAcls = kind.recordAcls(resource);
      const current = recordAcls === undefined ? undefined : await this.deps.shared.currentAcls(ids, recordAcls);
      for (const id of ids) {
        const acl = current && Object.fromEntries(Object.entries(current.get(id) ?? {}).map(([p, s]) => [p, [...s]]));
        const held = await this.heldPermissions(kind, caller, resource, id, acl, acls);
        if (held.length > 0) entries.push({ collection: resource.name, id, permissions: held });
      }
      if (records.length > remaining) {
        more = true;
        break;
      }
    }
    const last = entries.at(-1);
    if (!more || !last) return { entries };
    const cursor = { values: [last.collection, last.id ?? ""] };
    return { entries, nextToken: this.deps.tokens.encode(OBJECTS_SORT, filters, { cursor, upTo: 0 }) };
  }

  /**
   * The tree's entries past `after` (a URI), by URI: its root when the settings let the caller
   * create buckets, then each object an ACE names one of the caller's principals in.
   */
  private async treeObjects(buckets: ResourceDefinition, caller: Caller, after: string | undefined): Promise<AccessibleObject[]> {
    const entries: AccessibleObject[] = [];
    if (after === undefined && (await this.kindOf(buckets).allowsCollection(caller, buckets, "create")))
      entries.push({ collection: TREE_SOURCE, id: TREE_ROOT, permissions: [`bucket:${CREATE}`], tree: TREE_ROOT });
    for (const object of await heldTreeObjects(this.deps.permissions, caller.principals, after))
      entries.push({ collection: TREE_SOURCE, id: object.uri, permissions: object.permissions, tree: object });
    return entries;
  }

  private async heldPermissions(
    kind: ResourceKindPolicy,
    caller: Caller,
    resource: ResourceDefinition,
    id: string | undefined,
    acl: Readonly<Record<string, readonly string[]>> | undefined,
    acls: AclReader,
  ): Promise<string[]> {
    const names = id === undefined ? [...new Set([...resource.permissions, CREATE])] : resource.permissions;
    const decisions = await Promise.all(names.map((p) => kind.explain(caller, resource, p, id, acl, acls)));
    return names.filter((_, i) => decisions[i]?.allowed === true);
  }

  /**
   * Ids of the records after `afterId`, by id, on which the caller holds a permission through the
   * record itself: its own ACL naming one of their principals (any permission of the resource),
   * or, for a user resource, being the caller's own.
   */
  private async recordsHeld(
    kind: ResourceKindPolicy,
    requester: Requester,
    caller: Caller,
    resource: ResourceDefinition,
    afterId: string,
    limit: number,
  ): Promise<string[]> {
    const recordAcls = kind.recordAcls(resource);
    const grants = anyPermissionGrants(kind, caller, resource);
    // No grants on a kind with ACLs: nothing is held (a selection without grants would be every record).
    if (recordAcls !== undefined && grants === undefined) return [];
    const selection = recordAcls === undefined ? this.deps.records : await this.deps.shared.select(recordAcls, grants);
    const entries = await selection.list(kind.scope(requester, resource), {
      filters: afterId === "" ? [] : [{ field: "id", operator: "gt", value: afterId }],
      sort: [
        { field: "id", descending: false },
        { field: "last_modified", descending: true },
      ],
      limit,
      includeDeleted: false,
    });
    return entries.map((e) => e.id);
  }

  /**
   * Of the principals given, the groups whose record in `groups` the caller may read: the
   * decision GET takes on `/groups/<id>` (settings principals, collection and record ACLs), on
   * the group records' ACLs read in one round trip. Anything else is no readable group.
   */
  private async readableGroups(
    requester: Requester,
    groups: ResourceDefinition | undefined,
    principals: readonly string[],
  ): Promise<Set<string>> {
    const readable = new Set<string>();
    const ids = new Map<string, string>();
    for (const principal of principals) {
      const groupId = principal.startsWith(GROUP_PREFIX) ? principal.slice(GROUP_PREFIX.length) : "";
      if (isValidRecordId(groupId)) ids.set(principal, groupId);
    }
    if (groups === undefined || ids.size === 0) return readable;
    const kind = this.kindOf(groups);
    const recordAcls = kind.recordAcls(groups);
    const acls = memoizedAcls(this.deps.permissions, knownPermissions(groups));
    const read = permissionFor(groups, "read");
    // The collection's ACL, which each decision reads, alongside the records' own.
    const [caller, stored] = await Promise.all([
      kind.caller(requester),
      recordAcls === undefined ? undefined : this.deps.shared.currentAcls([...new Set(ids.values())], recordAcls),
      recordAcls === undefined ? undefined : acls([{ objectId: `/${groups.name}`, permission: read }]),
    ]);
    for (const [principal, groupId] of ids) {
      const acl = stored === undefined ? undefined : aclOf(stored.get(groupId));
      if ((await kind.explain(caller, groups, read, groupId, acl, acls)).allowed) readable.add(principal);
    }
    return readable;
  }

  private kindOf(resource: ResourceDefinition): ResourceKindPolicy {
    return this.deps.kinds[resource.kind];
  }
}

/**
 * The kind's read grants widened to every permission a record's ACL may hold: the records on
 * which the caller holds anything through the record's own ACL, as Kinto's `/permissions` lists.
 */
function anyPermissionGrants(kind: ResourceKindPolicy, caller: Caller, resource: ResourceDefinition): Grants | undefined {
  const read = kind.grants(caller, resource, READ);
  const permissions = kind.recordAcls(resource)?.permissions;
  if (read === undefined || permissions === undefined) return undefined;
  return { ...read, permissions, boundPermissions: (objectId) => permissions.map((permission) => ({ objectId, permission })) };
}

/** The decision as explain answers it: each held principal with its chain (from the user's walk). */
function explained(
  caller: Caller,
  resource: ResourceDefinition,
  permission: string,
  objectId: string,
  decision: Decision,
  chains: ReadonlyMap<string, string[]>,
): Explanation {
  const collection = `/${resource.name}`;
  const held = decision.held.map((grant) => ({
    objectId: grant.objectId,
    permission: grant.permission,
    source: grant.source,
    ...(grant.source === "settings" && grant.objectId === collection ? { setting: `${resource.name}_${grant.permission}_principals` } : {}),
    through: grant.principals.map((principal) => ({ principal, chain: chains.get(principal) })),
  }));
  return {
    permission,
    objectId,
    allowed: decision.allowed,
    principals: caller.principals,
    checked: decision.checked,
    held,
    policy: decision.policy,
  };
}

function rejectUnknownPermission(resource: ResourceDefinition, permission: string): void {
  const known = knownPermissions(resource);
  if (!known.includes(permission))
    throw ValidationError.single("querystring", "permission", `"${permission.slice(0, 64)}" is not one of ${known.join(", ")}`);
}

function recordId(resource: ResourceDefinition, id: string): string {
  return `/${resource.name}/${id}`;
}

/** Binds a page token to its endpoint and object, so a token from elsewhere is refused (400). */
function tokenBinding(endpoint: string, subject: string): Filter[] {
  return [{ field: endpoint, operator: "eq", value: subject }];
}

function nameOf(source: ResourceDefinition | typeof TREE_SOURCE): string {
  return typeof source === "string" ? source : source.name;
}

function stringAt(values: readonly unknown[], index: number): string {
  const value = values[index];
  if (typeof value !== "string") throw ValidationError.single("querystring", "_token", "_token has invalid content");
  return value;
}
