/**
 * A PermissionStore that announces every change of a user's principals (ChangeEvents
 * `principalsChanged`) once the backend made it and before the change returns, so that the live
 * feed moves the open streams that the old principals fed onto the new ones, on every process
 * (docs/feed-fence.md). What is announced is the principal whose members changed: the user's own
 * id (which every caller holds as a principal) for a principal added to or removed from a user,
 * `system.Authenticated` for a group given to every user, the principal itself when it is removed
 * everywhere. When group changes are followed (GroupAccessChanges), what the change took from or
 * gave to its holders is recorded first (lost or gained access), so that `_since` and the feed
 * show it (docs/api.md, "Sync"). Every other operation is passed through unchanged.
 */
import type { ChangeEvents } from "./events.js";
import type { GroupAccessChanges, StampedChange } from "./group-access-changes.js";
import { PermissionStoreDecorator } from "./permission-store-decorator.js";
import type { PermissionStore } from "./ports/permission-store.js";

const NOTHING: StampedChange = { stamps: [], since: undefined };

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
    const follower = this.groupAccess();
    // Only a principal the holder did not hold yet gives anything.
    const held = follower !== undefined && (await this.holdsDirectly(userId, principal));
    await this.inner.addUserPrincipal(userId, principal);
    await this.follow(userId, principal, "gained", !held);
  }

  override async removeUserPrincipal(userId: string, principal: string): Promise<void> {
    const follower = this.groupAccess();
    // Only a principal the holder held is lost: removing an absent one changes no view.
    const held = follower !== undefined && (await this.holdsDirectly(userId, principal));
    await this.inner.removeUserPrincipal(userId, principal);
    await this.follow(userId, principal, "lost", held);
  }

  override async removePrincipal(principal: string): Promise<void> {
    const follower = this.groupAccess();
    // Its direct holders, known only before: each loses it (and their own members with them).
    const holders = follower ? await this.directHolders(principal) : [];
    await this.inner.removePrincipal(principal);
    await this.announce(principal, follower ? await follower.stamp(holders, principal, "lost") : NOTHING);
  }

  /**
   * A change of `holder`'s principals made outside this store (an extension's own group finder
   * reads groups from elsewhere): followed as a change made here is, once it is made.
   */
  async changedElsewhere(holder: string, principal: string, change: "lost" | "gained"): Promise<void> {
    await this.follow(holder, principal, change, true);
  }

  /** What the change took or gave is recorded (when it changed anything and group changes are followed), then announced. */
  private async follow(holder: string, principal: string, change: "lost" | "gained", changed: boolean): Promise<void> {
    const follower = this.groupAccess();
    await this.announce(holder, follower && changed ? await follower.stamp([holder], principal, change) : NOTHING);
  }

  /**
   * Recorded first, then announced with where the records lie (a stream that moved past them
   * meanwhile on its old principals replays them on the new ones), then the scopes are told.
   */
  private async announce(changed: string, stamped: StampedChange): Promise<void> {
    await this.events.publishPrincipalsChanged(changed, stamped.since);
    this.groupAccess()?.announce(stamped);
  }

  private async holdsDirectly(holder: string, principal: string): Promise<boolean> {
    return (await this.inner.directPrincipals([holder])).get(holder)?.has(principal) === true;
  }

  private async directHolders(principal: string): Promise<string[]> {
    const members = [...(await this.inner.membersOf(principal))];
    const direct = await this.inner.directPrincipals(members);
    return members.filter((member) => direct.get(member)?.has(principal) === true);
  }
}
