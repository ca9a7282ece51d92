/**
 * Through which memberships a user holds a principal: the shortest chain user -> group:a ->
 * group:b, read from the permission backend's tree of the user's principals (principalParents:
 * one round trip on PostgreSQL, one per level elsewhere), within the depth bound, cycles ended
 * there; a principal it does not reach gets no chain (it may come from the credential itself,
 * such as a token's group, or lie beyond the bound).
 */
import { AUTHENTICATED, EVERYONE } from "../../domain/principals.js";
import type { PermissionStore } from "../ports/permission-store.js";

export interface ChainBounds {
  /** Membership levels a chain may cross (a group in a group is 2): longer chains are not given. */
  readonly maxDepth: number;
}

export const CHAIN_BOUNDS: ChainBounds = { maxDepth: 16 };

/**
 * For each target the caller holds, the chain from the user to it (first the user, last the
 * target); `targets` undefined: every principal the user holds through stored memberships.
 */
export async function groupChains(
  store: Pick<PermissionStore, "principalParents">,
  userId: string | undefined,
  targets: Iterable<string> | undefined,
  bounds: ChainBounds = CHAIN_BOUNDS,
): Promise<Map<string, string[]>> {
  const wanted = targets === undefined ? undefined : new Set(targets);
  const wants = (principal: string) => wanted === undefined || wanted.has(principal);
  const chains = new Map<string, string[]>();
  // Everyone and Authenticated are held by being a caller (an authenticated one).
  if (wants(EVERYONE)) chains.set(EVERYONE, userId === undefined ? [EVERYONE] : [userId, EVERYONE]);
  if (userId === undefined) return chains;
  if (wants(AUTHENTICATED)) chains.set(AUTHENTICATED, [userId, AUTHENTICATED]);
  if (wants(userId)) chains.set(userId, [userId]);
  if (wanted !== undefined && [...wanted].every((t) => chains.has(t))) return chains;
  // userPrincipals unites the user's own principals with those stored for system.Authenticated.
  const parents = await store.principalParents([userId, AUTHENTICATED]);
  for (const principal of parents.keys()) {
    if (!wants(principal) || chains.has(principal)) continue;
    // Up the tree to the user (or Authenticated, which the user holds): at most maxDepth steps.
    const chain = [principal];
    for (let at = parents.get(principal); at !== undefined && chain.length <= bounds.maxDepth; at = parents.get(at)) chain.unshift(at);
    if (chain[0] === AUTHENTICATED) chain.unshift(userId);
    if (chain[0] === userId) chains.set(principal, chain);
  }
  return chains;
}
