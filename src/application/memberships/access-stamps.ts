/**
 * Group changes as sync events (docs/api.md, "Sync"): when a principal is taken from a holder (a
 * user, a group, `system.Authenticated`) or given to one, the records that principal is granted
 * read on through their own ACLs (and, taken, those it lost and still has recorded), in every
 * resource that keeps ACLs, become lost or gained for the holder at a new timestamp of their collection (AccessJournal.stampLostAccess, stampGainedAccess).
 * A restricted `_since` listing and the live feed then show whoever holds the holder a tombstone
 * for each record lost that they cannot read now, and each record gained that they can, as for an
 * ACL edit (docs/adr/0011). Which records the principal reaches is decided by the rule the listing
 * uses (the kind's grants, grantedIds), never by a copy of it.
 */
import { READ } from "../../domain/permissions.js";
import type { ResourceKinds } from "../kinds/resource-kind-policy.js";
import type { PermissionStore } from "../ports/permission-store.js";
import type { AccessJournal } from "../ports/access-journal.js";
import type { Scope } from "../ports/record-store.js";
import { anonymousRequester } from "../requester.js";
import type { ResourceDefinition } from "../resources.js";
import { grantedIds } from "../shared-records/granted-ids.js";

export interface AccessStampsDeps {
  readonly journal: AccessJournal;
  readonly permissions: PermissionStore;
  readonly kinds: ResourceKinds;
  /** The resources whose records these principals may read through ACLs: the declared ones, and the tree's they reach. */
  readonly resources: (principals: readonly string[]) => Promise<readonly ResourceDefinition[]>;
  /** Told of each scope whose timestamp moved (the live feed reads it, on every process). */
  readonly touched: (scope: Scope, timestamp: number) => void;
  /** Records one change may give or take per holder and collection; past it (or for a whole collection), a resync. */
  readonly maxRecords: number;
}

/** What a change recorded: the scopes whose timestamps it moved, to be announced once the change is. */
export interface StampedChange {
  readonly stamps: readonly { readonly scope: Scope; readonly timestamp: number }[];
  /** Below every stamp: where a stream following the change replays from at the latest; undefined without stamps. */
  readonly since: number | undefined;
}

export class AccessStamps {
  constructor(private readonly deps: AccessStampsDeps) {}

  /** `principal` was taken from (`lost`) or given to (`gained`) each of `holders`: recorded at a new timestamp per collection. */
  async stamp(holders: readonly string[], principal: string, change: "lost" | "gained"): Promise<StampedChange> {
    const { journal } = this.deps;
    const stamps: { scope: Scope; timestamp: number }[] = [];
    let lowest = Number.POSITIVE_INFINITY;
    if (holders.length === 0) return { stamps, since: undefined };
    for (const { scope, ids, whole } of await this.reached(principal, change)) {
      // The bound: past it, no rows but one resync mark per holder (docs/api.md, "Sync").
      const resync = whole || ids.length > this.deps.maxRecords;
      for (const holder of holders) {
        let first: number;
        let timestamp: number;
        if (resync) first = timestamp = await journal.stampResync(scope, holder);
        else if (change === "gained") first = timestamp = await journal.stampGainedAccess(scope, holder, ids);
        else ({ first, last: timestamp } = await journal.stampLostAccess(scope, holder, ids));
        stamps.push({ scope, timestamp });
        lowest = Math.min(lowest, first);
      }
    }
    return { stamps, since: stamps.length === 0 ? undefined : lowest - 1 };
  }

  /** The stamped scopes are told to the live feed (after the principal change was announced). */
  announce(change: StampedChange): void {
    for (const { scope, timestamp } of change.stamps) this.deps.touched(scope, timestamp);
  }

  /**
   * Per resource with record ACLs, the ids whose ACL grants `principal` read (as a listing
   * restricted to it would reach), or `whole` where it reads the whole collection (settings
   * principals, a collection ACE: the authorizer's rule).
   */
  private async reached(principal: string, change: "lost" | "gained"): Promise<{ scope: Scope; ids: string[]; whole: boolean }[]> {
    const { kinds, permissions, journal } = this.deps;
    const found: { scope: Scope; ids: string[]; whole: boolean }[] = [];
    // The principal brings its own principals along (nested groups): what they read moves too.
    const brought = [...new Set([principal, ...(await permissions.userPrincipals(principal))])];
    const alone = { userId: undefined, principals: brought };
    for (const resource of await this.deps.resources(brought)) {
      const kind = kinds[resource.kind];
      const acls = kind.recordAcls(resource);
      const grants = kind.grants(alone, resource, READ);
      if (!acls || !grants) continue;
      const scope = kind.scope(anonymousRequester(), resource);
      if (await kind.allowsCollection(alone, resource, "list")) {
        found.push({ scope, ids: [], whole: true });
        continue;
      }
      const granted = await grantedIds(permissions, acls, grants);
      // Leaving, the holder is also owed what the principal lost (deleted, unshared) after the
      // holder's clients synced: those losses name the principal, which they no longer hold.
      const lost = change === "lost" ? (await Promise.all(brought.map((p) => journal.lostAccessOf(scope, p)))).flat() : [];
      const ids = [...new Set([...granted, ...lost])];
      if (ids.length > 0) found.push({ scope, ids, whole: false });
    }
    return found;
  }
}
