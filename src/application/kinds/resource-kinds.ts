/** The policy of every resource kind, built over one authorizer. */
import type { Authorizer } from "../authorizer.js";
import type { PrincipalsWithCheck } from "../ports/principals-with-check.js";
import type { ResourceKinds } from "./resource-kind-policy.js";
import { ShareableKind } from "./shareable-kind.js";
import { UserKind } from "./user-kind.js";

export interface ResourceKindsDeps {
  readonly authorizer: Authorizer;
  /** A capability of the permission backend: principals and a check in one round trip. */
  readonly principalsWithCheck?: PrincipalsWithCheck;
}

export function resourceKinds(deps: ResourceKindsDeps): ResourceKinds {
  return { user: new UserKind(), shareable: new ShareableKind(deps) };
}
