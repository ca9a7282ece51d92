/**
 * What a program embedding Tessera can add at startup (spec §4.2, §5.6): resources defined in
 * code, authentication policies, a group finder, heartbeat checks and listeners of committed
 * changes (`ResourceChanged`).
 */
import type { Acl } from "../domain/acl.js";
import type { JsonObject, JsonValue } from "../domain/json.js";
import type { BoundPermissionsFn } from "../domain/permissions.js";
import type { StoredRecord } from "../domain/records.js";
import type { ResourceListener } from "./events.js";
import type { HealthCheck } from "./health-service.js";
import type { MembershipChanges } from "./memberships/membership-changes.js";
import type { AuthenticationPolicy } from "./ports/authentication-policy.js";
import type { PermissionStore } from "./ports/permission-store.js";
import type { GroupFinder } from "./requester.js";
import type { AuthorizationPolicy, RecordValidator, ResourceKind, ViewName } from "./resources.js";

export interface ResourceSpec {
  readonly name: string;
  readonly kind: ResourceKind;
  /** Permission names beyond `read` and `write` (e.g. `publish`). */
  readonly extraPermissions?: readonly string[];
  readonly validate?: RecordValidator;
  /** JSON Schema of the record's data, shown in the OpenAPI document. */
  readonly schema?: JsonObject;
  readonly viewPermissions?: Readonly<Partial<Record<ViewName, string>>>;
  readonly authorization?: AuthorizationPolicy;
  readonly boundPermissions?: BoundPermissionsFn;
}

export interface ExtensionContext {
  /** Every setting, unprefixed. */
  readonly settings: Readonly<Record<string, JsonValue>>;
  /**
   * The permission backend itself (docs/adr/0014): what it changes is followed by neither `_since`
   * nor the live feed. Change a record's ACL through `acls`, a principal's holders through `memberships`.
   */
  readonly permissions: PermissionStore | undefined;
  /** Who holds a principal (groups, nesting), changed as the group resource changes it; undefined without a permission backend. */
  readonly memberships: MembershipChanges | undefined;
  /** ACL changes of records of shareable resources, made as the API makes them; undefined without a permission backend. */
  readonly acls: RecordAclChanges | undefined;
  /** Where an extension's own group finder reads groups from elsewhere: their changes, told once made; undefined without a permission backend. */
  readonly groups: GroupChanges | undefined;
}

/**
 * A change of a user's groups made where a custom group finder reads them (a directory, another
 * service), which Tessera cannot watch: told here once made, it is followed as a change through
 * the permission backend is (docs/api.md, "Sync"): what `principal` grants read on is lost or
 * gained by `holder` (a user id, or a group nested in another) at new timestamps of `_since` and
 * on open streams. Tell only real changes: each is recorded as one.
 */
export interface GroupChanges {
  changed(holder: string, principal: string, change: "added" | "removed"): Promise<void>;
}

/**
 * ACL changes of one record (`resource` by name, record `id`), each written as an update of the
 * record through SharedRecords, as an API write with `permissions` is: whoever loses read gets a
 * tombstone at the write's timestamp in a `_since` listing and a delete on the live feed;
 * whoever gains it gets the record at that timestamp. The write is announced (`onResourceChanged`,
 * action `update`, no `userId`). Each answers the record as written, the record as it was when
 * the ACL did not change, or undefined when there is no live record (nothing is written).
 * Throws for a resource that does not exist or keeps no record ACLs (a `user` resource).
 */
export interface RecordAclChanges {
  /** The permissions named are replaced (an empty list empties one); the others are kept. */
  replace(resource: string, id: string, permissions: Acl): Promise<StoredRecord | undefined>;
  grant(resource: string, id: string, permission: string, principal: string): Promise<StoredRecord | undefined>;
  revoke(resource: string, id: string, permission: string, principal: string): Promise<StoredRecord | undefined>;
}

export interface TesseraExtension {
  /** Names (unprefixed) of the settings this extension reads, so startup does not call them unknown. */
  readonly settings?: readonly string[];
  readonly resources?: readonly ResourceSpec[];
  /** Policies by the name `multiauth.policies` uses for them. */
  readonly authenticationPolicies?: Readonly<Record<string, (context: ExtensionContext) => AuthenticationPolicy>>;
  readonly groupFinder?: (context: ExtensionContext) => GroupFinder;
  readonly heartbeatChecks?: Readonly<Record<string, HealthCheck>>;
  /**
   * Called after each committed write of a record (create, update, delete; several records for
   * a collection-wide delete) with Kinto's `ResourceChanged` content. Not awaited by the
   * request; a throw or rejection is logged and never fails it.
   */
  readonly onResourceChanged?: ResourceListener;
}
