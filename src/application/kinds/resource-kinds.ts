/** The policy of every resource kind, built over one authorizer and one permission backend. */
import type { Authorizer } from "../authorizer.js";
import type { PermissionStore } from "../ports/permission-store.js";
import type { PrincipalsWithCheck } from "../ports/principals-with-check.js";
import type { RecordWithAclReader } from "../ports/record-with-acl-reader.js";
import type { RecordWithAclWriter } from "../ports/record-with-acl-writer.js";
import type { ResourceKinds } from "./resource-kind-policy.js";
import { ShareableKind } from "./shareable-kind.js";
import { UserKind } from "./user-kind.js";

export interface ResourceKindsDeps {
  readonly authorizer: Authorizer;
  /** NO_PERMISSION_STORE when the deployment has no permission backend. */
  readonly permissions: PermissionStore;
  /** A capability: bound only where records and ACEs share a database. */
  readonly together?: RecordWithAclReader;
  /** A capability: bound only where records and ACEs share a database. */
  readonly createTogether?: RecordWithAclWriter;
  /** A capability of the permission backend: principals and a check in one round trip. */
  readonly principalsWithCheck?: PrincipalsWithCheck;
}

export function resourceKinds(deps: ResourceKindsDeps): ResourceKinds {
  return { user: new UserKind(), shareable: new ShareableKind(deps) };
}
