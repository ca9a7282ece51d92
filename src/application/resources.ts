/** How a collection is declared: its kind, permission names, schema and authorization hooks. */
import type { ValidationDetail } from "../domain/errors.js";
import type { JsonObject } from "../domain/json.js";
import { CREATE, defaultBoundPermissions, READ, WRITE, type BoundPermissionsFn } from "../domain/permissions.js";
import type { Caller } from "../domain/principals.js";

export type ResourceKind = "user" | "shareable";

/** The views of a resource, each with the permission it requires by default. */
export type ViewName = "list" | "create" | "deleteAll" | "read" | "replace" | "update" | "delete";

/** The permission each view requires unless the resource says otherwise (api-contract §5). */
const DEFAULT_VIEW_PERMISSIONS: Readonly<Record<ViewName, string>> = {
  list: READ,
  read: READ,
  create: CREATE,
  deleteAll: WRITE,
  replace: WRITE,
  update: WRITE,
  delete: WRITE,
};

/** The permission a view of this resource requires: its own `viewPermissions`, else the default. */
export function permissionFor(resource: ResourceDefinition, view: ViewName): string {
  return resource.viewPermissions?.[view] ?? DEFAULT_VIEW_PERMISSIONS[view];
}

const RECORD_VIEWS: readonly ViewName[] = ["read", "update", "replace", "delete"];
const COLLECTION_VIEWS: readonly ViewName[] = ["list", "create", "deleteAll"];

/**
 * The view a permission is asked for, for a resource policy that looks at views (explain asks by
 * permission): the first view of the record (or collection) requiring it, else `read` (`list`).
 */
export function viewRequiring(resource: ResourceDefinition, permission: string, onRecord: boolean): ViewName {
  const views = onRecord ? RECORD_VIEWS : COLLECTION_VIEWS;
  return views.find((view) => permissionFor(resource, view) === permission) ?? views[0]!;
}

/** Checks a record's data (without `id`/`last_modified`); returns every problem found. */
export type RecordValidator = (data: JsonObject) => readonly ValidationDetail[] | Promise<readonly ValidationDetail[]>;

export interface AuthorizationRequest {
  readonly caller: Caller;
  readonly resource: ResourceDefinition;
  readonly view: ViewName;
  readonly objectId: string;
  readonly permission: string;
}

/**
 * A resource's own authorization policy. `defaultDecision` runs Tessera's usual check (settings
 * principals, then the permission backend); a policy may call it, refine it or ignore it.
 */
export interface AuthorizationPolicy {
  permits(request: AuthorizationRequest, defaultDecision: () => Promise<boolean>): Promise<boolean>;
}

/** One record write as a resource's consequences see it (the data without `id`/`last_modified`). */
export type RecordWrite =
  | { readonly action: "create"; readonly id: string; readonly after: JsonObject }
  | { readonly action: "update"; readonly id: string; readonly before: JsonObject; readonly after: JsonObject }
  /** A deleted record: its data is not read back (a collection-wide delete reports ids only). */
  | { readonly action: "delete"; readonly id: string };

/** What runs once the unit of work of a write has committed (an announcement), never if it rolls back. */
export type AfterCommit = () => Promise<void>;

/**
 * What a write of a resource's records entails beyond the records (the group resource: who holds
 * the group's principal), done in the write's unit of work: one transaction where the backends
 * share one, so the record and its consequences commit or roll back together.
 */
export interface WriteConsequences {
  /** Inside the unit of work, before the records are written: throws to refuse the writes. */
  check(writes: readonly RecordWrite[]): Promise<void>;
  /** Inside the unit of work, once the records are written: the consequences, and what to run after commit. */
  apply(writes: readonly RecordWrite[]): Promise<AfterCommit>;
}

/** The consequences of writing a resource's records, where it has some. */
export type WriteConsequencesOf = (resource: ResourceDefinition) => WriteConsequences | undefined;

export interface ResourceDefinition {
  readonly name: string;
  readonly kind: ResourceKind;
  /** Permission names accepted in payloads and stored per record (`read`, `write`, ...). */
  readonly permissions: readonly string[];
  /** `<name>_<permission>_principals`: principals holding a permission on the whole collection. */
  readonly settingsPrincipals: Readonly<Record<string, readonly string[]>>;
  readonly validate?: RecordValidator;
  /** JSON Schema of the record's data, for documentation (OpenAPI); validation is `validate`. */
  readonly schema?: JsonObject;
  /** Permission required by a view, when it differs from the default (e.g. update → publish). */
  readonly viewPermissions?: Readonly<Partial<Record<ViewName, string>>>;
  readonly authorization?: AuthorizationPolicy;
  /** The root factory: which bound permissions grant a permission on an object. */
  readonly boundPermissions?: BoundPermissionsFn;
}

export const DEFAULT_PERMISSIONS: readonly string[] = [READ, WRITE];

export function boundPermissionsOf(resource: ResourceDefinition): BoundPermissionsFn {
  return resource.boundPermissions ?? defaultBoundPermissions;
}

/** Collection names appear inside setting names, so they are restricted. */
export const COLLECTION_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_]*$/;
