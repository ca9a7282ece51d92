/**
 * A PermissionStore that tells the RecordStore who loses read access to a shareable record
 * (docs/adr/0011), so that their next `_since` sync shows it as a tombstone: when the record's
 * ACEs are deleted (the record is deleted), or an ACE granting read is removed or replaced.
 * Every other operation is passed through unchanged.
 *
 * What extensions get: ACL changes made straight through this port have no record write of their
 * own, so each loss gets a new timestamp here. The API's record writes record their losses
 * themselves, at the write's own timestamp (RecordService), through the undecorated store.
 *
 * `touchOnGrant`: a grant made straight through this port gives the record a new timestamp, so
 * that whoever gains read gets it at their next sync, as with an ACL change made through the
 * API, where the record write itself does that. Group membership and collection-level grants are not followed (cost unbounded):
 * clients resync in full (README "Sync and live changes").
 */
import { recordIdOf } from "../domain/permissions.js";
import { PreconditionFailedError, RecordNotFoundError } from "../domain/errors.js";
import type { CommittedChanges } from "./events.js";
import { PermissionStoreDecorator } from "./permission-store-decorator.js";
import type { PermissionStore } from "./ports/permission-store.js";
import type { RecordStore, Scope } from "./ports/record-store.js";
import { recordReaders, recordReadPermissions } from "./record-readers.js";
import type { ResourceDefinition } from "./resources.js";

export interface LostAccessOptions {
  readonly records: RecordStore;
  /** The shareable resource of a collection name, or undefined (then nothing is recorded). */
  readonly shareable: (collection: string) => ResourceDefinition | undefined;
  readonly touchOnGrant: boolean;
  /** Told when a change made here gave a scope a new timestamp (the live feed listens). */
  readonly changes?: CommittedChanges;
}

interface RecordTarget {
  readonly scope: Scope;
  readonly id: string;
  readonly objectId: string;
  /** Permissions on the record itself that grant read on it (`read`, `write`). */
  readonly readPermissions: readonly string[];
}

const MAX_TOUCH_ATTEMPTS = 5;

export class LostAccessPermissionStore extends PermissionStoreDecorator {
  constructor(
    inner: PermissionStore,
    private readonly options: LostAccessOptions,
  ) {
    super(inner);
  }

  override addPrincipalToAce(objectId: string, permission: string, principal: string): Promise<void> {
    return this.changeAcl(objectId, permission, () => this.inner.addPrincipalToAce(objectId, permission, principal));
  }

  override removePrincipalFromAce(objectId: string, permission: string, principal: string): Promise<void> {
    return this.changeAcl(objectId, permission, () => this.inner.removePrincipalFromAce(objectId, permission, principal));
  }

  override replaceObjectPermissions(objectId: string, permissions: Readonly<Record<string, Iterable<string>>>): Promise<void> {
    return this.changeAcl(objectId, Object.keys(permissions), () => this.inner.replaceObjectPermissions(objectId, permissions));
  }

  /** Every reader of each deleted record loses it (wildcard ids are passed through untracked). */
  override async deleteObjectPermissions(...objectIds: string[]): Promise<void> {
    const targets = objectIds.map((objectId) => this.targetOf(objectId)).filter((t): t is RecordTarget => t !== undefined);
    if (targets.length === 0) return this.inner.deleteObjectPermissions(...objectIds);
    // One after the other: inside a transaction the reads share one connection.
    const losses: { target: RecordTarget; lost: ReadonlySet<string> }[] = [];
    for (const target of targets) losses.push({ target, lost: await this.readers(target) });
    await this.inner.deleteObjectPermissions(...objectIds);
    await this.recordLosses(losses);
  }

  /**
   * Runs an ACL change; readers before and not after lose the record, new readers may get it
   * touched. No unit of work of its own: the record service's writes already run in one (so the
   * loss commits with the ACL where they share a database), and a compensating ACL write made
   * while the storage is down must still reach the permission backend.
   */
  private async changeAcl(objectId: string, permissions: string | readonly string[], change: () => Promise<void>): Promise<void> {
    const target = this.targetOf(objectId);
    const named = typeof permissions === "string" ? [permissions] : permissions;
    if (!target || !named.some((p) => target.readPermissions.includes(p))) return change();
    const before = await this.readers(target);
    await change();
    const after = await this.readers(target);
    await this.recordLosses([{ target, lost: new Set([...before].filter((p) => !after.has(p))) }]);
    if (this.options.touchOnGrant && [...after].some((p) => !before.has(p))) this.touched(target.scope, await this.touch(target));
  }

  private targetOf(objectId: string): RecordTarget | undefined {
    if (objectId.includes("*")) return undefined;
    const collection = objectId.split("/")[1] ?? "";
    const resource = this.options.shareable(collection);
    const id = resource && recordIdOf(resource.name, objectId);
    if (!resource || id === undefined) return undefined;
    const readPermissions = recordReadPermissions(resource, objectId);
    return { scope: { collection: resource.name, parentId: "" }, id, objectId, readPermissions };
  }

  private async readers(target: RecordTarget): Promise<Set<string>> {
    return recordReaders(target.readPermissions, await this.inner.objectPermissions(target.objectId, target.readPermissions));
  }

  private async recordLosses(losses: readonly { target: RecordTarget; lost: ReadonlySet<string> }[]): Promise<void> {
    const byScope = new Map<string, { scope: Scope; items: { id: string; principals: string[] }[] }>();
    for (const { target, lost } of losses) {
      if (lost.size === 0) continue;
      const key = JSON.stringify([target.scope.collection, target.scope.parentId]);
      const group = byScope.get(key) ?? { scope: target.scope, items: [] };
      group.items.push({ id: target.id, principals: [...lost] });
      byScope.set(key, group);
    }
    for (const { scope, items } of byScope.values())
      this.touched(scope, Math.max(0, ...(await this.options.records.recordLostAccess(scope, items))));
  }

  /** Only changes made through the port itself are announced: API writes announce their own. */
  private touched(scope: Scope, timestamp: number): void {
    if (this.options.touchOnGrant && timestamp > 0) this.options.changes?.scopeTouched({ scope, timestamp });
  }

  /** A new timestamp for a live record (a write of its own data), re-read if a writer got there first; 0 when none. */
  private async touch(target: RecordTarget): Promise<number> {
    for (let attempt = 1; attempt <= MAX_TOUCH_ATTEMPTS; attempt++) {
      const record = await this.options.records.get(target.scope, target.id);
      if (!record) return 0;
      try {
        return (await this.options.records.update(target.scope, target.id, record.data, { ifMatch: record.lastModified })).lastModified;
      } catch (error) {
        if (error instanceof RecordNotFoundError) return 0;
        if (!(error instanceof PreconditionFailedError)) throw error;
      }
    }
    return 0;
  }
}
