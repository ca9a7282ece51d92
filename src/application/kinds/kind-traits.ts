/**
 * What each kind of resource is, for the code that describes or checks its records without
 * running its policy (the request body parser, the OpenAPI document, the composition root). Keyed
 * by every ResourceKind, so a new kind cannot be added without saying what it is; nothing outside
 * kinds/ (and the settings parser) compares kind names.
 */
import type { ResourceKind } from "../resources.js";

export interface KindTraits {
  /** Each record carries its own ACL (the caller may send and see `permissions`). */
  readonly keepsAcl: boolean;
  /** Each user has their own records (the scope is the user's): no one else's are reachable. */
  readonly ownRecordsOnly: boolean;
}

export const KIND_TRAITS: { readonly [K in ResourceKind]: KindTraits } = {
  user: { keepsAcl: false, ownRecordsOnly: true },
  shareable: { keepsAcl: true, ownRecordsOnly: false },
};

export function traitsOf(resource: { readonly kind: ResourceKind }): KindTraits {
  return KIND_TRAITS[resource.kind];
}
