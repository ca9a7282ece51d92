/**
 * PermissionStore.membersPage as a keyset walk that costs the page, not the group: the groups
 * nested under the principals asked are found first (subgroupsOf: groups only, never their
 * plain members), level by level within the depth bound; then one page of the direct holders of
 * every group found (holdersPage: at most a page per group) says who is on this page and, through
 * the groups they hold, which of the principals asked they reach. A group of 20,000 users costs
 * what a group of 20 costs.
 * `expandable` (readers): which groups' members may be shown; the others are listed when
 * another shown group holds them, never walked into.
 */
import { compareCodePoints } from "../nested-principals.js";
import type { Expandable, GroupMember, PermissionStore } from "../ports/permission-store.js";

export type MemberLinks = Pick<PermissionStore, "subgroupsOf" | "holdersPage">;

export async function walkMembersPage(
  store: MemberLinks,
  principals: readonly string[],
  after: string | undefined,
  limit: number,
  maxDepth: number,
  expandable?: Expandable,
): Promise<GroupMember[]> {
  if (principals.length === 0 || limit <= 0 || maxDepth < 1) return [];
  const seeds = [...new Set(principals)];
  const judged = new Map<string, boolean>();
  const keep = async (groups: readonly string[]): Promise<string[]> => {
    const fresh = groups.filter((g) => !judged.has(g));
    if (fresh.length > 0) {
      const allowed = expandable === undefined ? new Set(fresh) : await expandable(fresh);
      for (const group of fresh) judged.set(group, allowed.has(group));
    }
    return groups.filter((g) => judged.get(g) === true);
  };
  // group → principal asked → the level at which the group holds it (0: the principal itself).
  const vias = new Map<string, Map<string, number>>();
  for (const seed of await keep(seeds)) vias.set(seed, new Map([[seed, 0]]));
  if (vias.size === 0) return [];
  const subgroups = new Map<string, ReadonlySet<string>>();
  // Level by level, so that a (group, principal) pair is first met at its lowest level; a group
  // at level maxDepth - 1 is the last whose holders are within the bound.
  let frontier = [...vias.keys()];
  for (let level = 1; level < maxDepth && frontier.length > 0; level += 1) {
    const unknown = frontier.filter((g) => !subgroups.has(g));
    if (unknown.length > 0) for (const [group, found] of await store.subgroupsOf(unknown)) subgroups.set(group, found);
    const reached = new Map<string, Map<string, number>>();
    for (const group of frontier)
      for (const sub of subgroups.get(group) ?? [])
        for (const [via, depth] of vias.get(group) ?? [])
          if (depth === level - 1 && sub !== via && !vias.get(sub)?.has(via)) {
            let held = reached.get(sub);
            if (!held) reached.set(sub, (held = new Map<string, number>()));
            held.set(via, level);
          }
    frontier = await keep([...reached.keys()]);
    for (const group of frontier) {
      let held = vias.get(group);
      if (!held) vias.set(group, (held = new Map<string, number>()));
      for (const [via, depth] of reached.get(group) ?? []) held.set(via, depth);
    }
  }
  // An id is left out only when the one principal it reaches is itself (a cycle): at most one
  // per principal asked, so that many more rows always fill the page.
  const rows = await store.holdersPage([...vias.keys()], after, limit + seeds.length);
  const page: GroupMember[] = [];
  for (const row of rows) {
    const through = new Set<string>();
    for (const group of row.through) for (const via of vias.get(group)?.keys() ?? []) if (via !== row.id) through.add(via);
    if (through.size > 0) page.push({ id: row.id, through: [...through].sort(compareCodePoints) });
    if (page.length === limit) break;
  }
  return page;
}
