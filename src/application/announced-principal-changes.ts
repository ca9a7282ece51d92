/**
 * A PermissionStore that announces every change of a user's principals (ChangeEvents
 * `principalsChanged`) once the backend made it and before the change returns, so that the live
 * feed moves the open streams that the old principals fed onto the new ones, on every process
 * (docs/feed-fence.md). What is announced is the principal whose members changed: the user's own
 * id (which every caller holds as a principal) for a principal added to or removed from a user,
 * `system.Authenticated` for a group given to every user, the principal itself when it is removed
 * everywhere. Then, when group changes are followed (GroupAccessChanges), what the change took
 * from the holder is recorded as lost access, so that `_since` and the feed show it (docs/api.md,
 * "Sync"). Every other operation is passed through unchanged.
 */
import type { ChangeEvents } from "./events.js";
import type { GroupAccessChanges } from "./group-access-changes.js";
import { PermissionStoreDecorator } from "./permission-store-decorator.js";
import type { PermissionStore } from "./ports/permission-store.js";

export class AnnouncedPrincipalChanges extends PermissionStoreDecorator {
  constructor(
    inner: PermissionStore,
    private readonly events: ChangeEvents,
    /** Looked up at each change (it is built over this very store); none: group changes are only announced. */
    private readonly groupAccess: () => GroupAccessChanges | undefined = () => undefined,
  ) {
    super(inner);
  }

  override async addUserPrincipal(userId: string, principal: string): Promise<void> {
    await this.inner.addUserPrincipal(userId, principal);
    await this.events.publishPrincipalsChanged(userId);
  }

  override async removeUserPrincipal(userId: string, principal: string): Promise<void> {
    const follower = this.groupAccess();
    // Only a principal the user held is lost: removing an absent one changes no view.
    const held = follower !== undefined && (await this.inner.directPrincipals([userId])).get(userId)?.has(principal) === true;
    await this.inner.removeUserPrincipal(userId, principal);
    await this.events.publishPrincipalsChanged(userId);
    if (held) await follower.removed([userId], principal);
  }

  override async removePrincipal(principal: string): Promise<void> {
    const follower = this.groupAccess();
    // Its direct holders, known only before: each loses it (and their own members with them).
    const holders = follower ? await this.directHolders(principal) : [];
    await this.inner.removePrincipal(principal);
    await this.events.publishPrincipalsChanged(principal);
    if (follower && holders.length > 0) await follower.removed(holders, principal);
  }

  private async directHolders(principal: string): Promise<string[]> {
    const members = [...(await this.inner.membersOf(principal))];
    const direct = await this.inner.directPrincipals(members);
    return members.filter((member) => direct.get(member)?.has(principal) === true);
  }
}
