/**
 * Through which memberships a user holds a principal: the shortest chain user -> group:a ->
 * group:b, walked level by level over the principals stored for each id (as addUserPrincipal
 * gave them, groups in groups included). The walk is bounded in depth and in ids visited, and
 * visits each id once, so cycles end it; a principal it does not reach gets no chain (it may come
 * from the credential itself, or lie beyond the bounds).
 */
import { AUTHENTICATED, EVERYONE } from "../../domain/principals.js";
import type { PermissionStore } from "../ports/permission-store.js";

export interface ChainBounds {
  /** Membership levels followed from the user (a group in a group is 2). */
  readonly maxDepth: number;
  /** Ids whose principals are read, at most, in one walk. */
  readonly maxVisited: number;
}

export const CHAIN_BOUNDS: ChainBounds = { maxDepth: 16, maxVisited: 1000 };

/**
 * For each target the caller holds, the chain from the user to it (first the user, last the
 * target); `targets` undefined: every principal the walk reaches (all of the user's memberships
 * within the bounds), for a walk started before the targets are known: `enough` may end it
 * earlier, asked before each level.
 */
export async function groupChains(
  store: Pick<PermissionStore, "directPrincipals">,
  userId: string | undefined,
  targets: Iterable<string> | undefined,
  bounds: ChainBounds = CHAIN_BOUNDS,
  enough: (reached: ReadonlyMap<string, string[]>) => boolean = () => false,
): Promise<Map<string, string[]>> {
  const everything = targets === undefined;
  const wanted = new Set(targets ?? [EVERYONE, AUTHENTICATED, ...(userId === undefined ? [] : [userId])]);
  const chains = new Map<string, string[]>();
  const from = userId === undefined ? [] : [userId];
  // Everyone and Authenticated are held by being a caller (an authenticated one).
  for (const system of [EVERYONE, AUTHENTICATED])
    if (wanted.has(system) && (system === EVERYONE || userId !== undefined)) chains.set(system, [...from, system]);
  if (userId === undefined) return chains;
  if (wanted.has(userId)) chains.set(userId, [userId]);
  // userPrincipals unites the user's own principals with those stored for system.Authenticated.
  const parent = new Map<string, string | undefined>([
    [userId, undefined],
    [AUTHENTICATED, userId],
  ]);
  const chainTo = (id: string): string[] => {
    const chain: string[] = [];
    for (let at: string | undefined = id; at !== undefined; at = parent.get(at)) chain.unshift(at);
    return chain;
  };
  let frontier = [userId, AUTHENTICATED];
  for (let depth = 1; depth <= bounds.maxDepth && frontier.length > 0 && parent.size < bounds.maxVisited; depth++) {
    if (everything ? enough(chains) : [...wanted].every((t) => chains.has(t))) break;
    const direct = await store.directPrincipals(frontier);
    const next: string[] = [];
    for (const id of frontier) {
      for (const principal of direct.get(id) ?? []) {
        if (parent.has(principal) || parent.size >= bounds.maxVisited) continue;
        parent.set(principal, id);
        next.push(principal);
        if ((everything || wanted.has(principal)) && !chains.has(principal)) chains.set(principal, chainTo(principal));
      }
    }
    frontier = next;
  }
  return chains;
}
