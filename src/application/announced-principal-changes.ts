/**
 * A PermissionStore that announces every change of a user's principals (ChangeEvents
 * `principalsChanged`) once the backend made it and before the change returns, so that the live
 * feed ends the open streams that the old principals fed, on every process (docs/feed-fence.md).
 * What is announced is the principal whose members changed: the user's own id (which
 * every caller holds as a principal) for a principal added to or removed from a user,
 * `system.Authenticated` for a group given to every user, the principal itself when it is removed
 * everywhere. Every other operation is passed through unchanged.
 */
import type { ChangeEvents } from "./events.js";
import { PermissionStoreDecorator } from "./permission-store-decorator.js";
import type { PermissionStore } from "./ports/permission-store.js";

export class AnnouncedPrincipalChanges extends PermissionStoreDecorator {
  constructor(
    inner: PermissionStore,
    private readonly events: ChangeEvents,
  ) {
    super(inner);
  }

  override async addUserPrincipal(userId: string, principal: string): Promise<void> {
    await this.inner.addUserPrincipal(userId, principal);
    await this.events.publishPrincipalsChanged(userId);
  }

  override async removeUserPrincipal(userId: string, principal: string): Promise<void> {
    await this.inner.removeUserPrincipal(userId, principal);
    await this.events.publishPrincipalsChanged(userId);
  }

  override async removePrincipal(principal: string): Promise<void> {
    await this.inner.removePrincipal(principal);
    await this.events.publishPrincipalsChanged(principal);
  }
}
