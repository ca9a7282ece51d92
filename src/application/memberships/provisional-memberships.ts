/**
 * A stand-in for the Memberships use case until it is merged (the lead deletes this file then):
 * changes go to the container's PermissionStore, which already records and announces each one
 * (AnnouncedPrincipalChanges), so `within` applies them at once and announces nothing more.
 */
import { AnnouncedPrincipalChanges } from "../announced-principal-changes.js";
import type { PermissionStore } from "../ports/permission-store.js";
import type { MembershipChange, MembershipChanges, PendingAnnouncement } from "./membership-changes.js";

const NOTHING_PENDING: PendingAnnouncement = { announce: () => Promise.resolve() };

export class ProvisionalMemberships implements MembershipChanges {
  constructor(private readonly permissions: PermissionStore) {}

  async add(principal: string, holders: readonly string[]): Promise<void> {
    for (const holder of holders) await this.permissions.addUserPrincipal(holder, principal);
  }

  async remove(principal: string, holders: readonly string[]): Promise<void> {
    for (const holder of holders) await this.permissions.removeUserPrincipal(holder, principal);
  }

  removeEverywhere(principal: string): Promise<void> {
    return this.permissions.removePrincipal(principal);
  }

  async within(changes: readonly MembershipChange[]): Promise<PendingAnnouncement> {
    for (const change of changes) {
      await this.add(change.principal, change.added ?? []);
      await this.remove(change.principal, change.removed ?? []);
    }
    return NOTHING_PENDING;
  }

  async changedElsewhere(holder: string, principal: string, change: "added" | "removed"): Promise<void> {
    if (this.permissions instanceof AnnouncedPrincipalChanges)
      await this.permissions.changedElsewhere(holder, principal, change === "added" ? "gained" : "lost");
  }
}
