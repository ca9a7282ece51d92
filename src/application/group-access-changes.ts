/**
 * Group changes as sync events (docs/api.md, "Sync"): when a principal leaves a holder (a user,
 * a group, `system.Authenticated`), the records that principal is granted read on through their
 * own ACLs, in every resource that keeps ACLs, become lost for the holder at a new timestamp of
 * their collection (RecordStore.stampLostAccess). A restricted `_since` listing and the live feed
 * then show each of them as a tombstone to whoever holds the holder and cannot read it now, as
 * for an ACL edit (docs/adr/0011). Which records the principal reaches is decided by the rule the
 * listing uses (the kind's grants, grantedIds), never by a copy of it.
 */
import { READ } from "../domain/permissions.js";
import type { ResourceKinds } from "./kinds/resource-kind-policy.js";
import type { PermissionStore } from "./ports/permission-store.js";
import type { RecordStore, Scope } from "./ports/record-store.js";
import { anonymousRequester } from "./requester.js";
import type { ResourceDefinition } from "./resources.js";
import { grantedIds } from "./shared-records/granted-ids.js";

export interface GroupAccessDeps {
  readonly records: RecordStore;
  readonly permissions: PermissionStore;
  readonly kinds: ResourceKinds;
  readonly resources: () => readonly ResourceDefinition[];
  /** Told of each scope whose timestamp moved (the live feed reads it, on every process). */
  readonly touched: (scope: Scope, timestamp: number) => void;
}

export class GroupAccessChanges {
  constructor(private readonly deps: GroupAccessDeps) {}

  /** `principal` was taken from each of `holders`: what it granted them is lost, at a new timestamp per collection. */
  async removed(holders: readonly string[], principal: string): Promise<void> {
    const { records, touched } = this.deps;
    if (holders.length === 0) return;
    for (const { scope, ids } of await this.reached(principal)) {
      for (const holder of holders) touched(scope, await records.stampLostAccess(scope, holder, ids));
    }
  }

  /** Per resource with record ACLs, the ids whose ACL grants `principal` read (as a listing restricted to it would reach). */
  private async reached(principal: string): Promise<{ scope: Scope; ids: string[] }[]> {
    const { kinds, permissions } = this.deps;
    const found: { scope: Scope; ids: string[] }[] = [];
    for (const resource of this.deps.resources()) {
      const kind = kinds[resource.kind];
      const acls = kind.recordAcls(resource);
      const grants = kind.grants({ userId: undefined, principals: [principal] }, resource, READ);
      if (!acls || !grants) continue;
      const ids = await grantedIds(permissions, acls, grants);
      if (ids.length > 0) found.push({ scope: kind.scope(anonymousRequester(), resource), ids });
    }
    return found;
  }
}
