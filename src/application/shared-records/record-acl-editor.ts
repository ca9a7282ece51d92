/**
 * ACL changes of single records made by code (an extension's `ExtensionContext.acls`), made the
 * way the API makes them: through SharedRecords, as an update of the record that carries the ACL
 * change, so whoever lost read lost it at the write's own timestamp (a `_since` tombstone, a
 * delete on the live feed) and whoever gained it gets the record at that same timestamp. The
 * write is announced as an `update` with no user (extensions' listeners and the live feed).
 * Group membership and collection-level grants are not followed (cost unbounded): clients resync
 * in full (docs/api.md).
 */
import { normalizeAcl, type Acl } from "../../domain/acl.js";
import { PreconditionFailedError, RecordNotFoundError } from "../../domain/errors.js";
import type { StoredRecord } from "../../domain/records.js";
import type { CommittedChanges } from "../events.js";
import type { RecordAclChanges } from "../extension.js";
import type { ResourceKinds } from "../kinds/resource-kind-policy.js";
import type { ObjectPermissions } from "../ports/permission-store.js";
import type { Scope } from "../ports/record-store.js";
import type { SharedRecords } from "../ports/shared-records.js";
import type { ResourceDefinition } from "../resources.js";

/** Tries before giving up on a record other writers keep changing under the edit. */
const MAX_ATTEMPTS = 5;

export interface RecordAclEditorDeps {
  readonly shared: SharedRecords;
  readonly kinds: ResourceKinds;
  /** The resource of a name, or undefined when none is defined. */
  readonly resource: (name: string) => ResourceDefinition | undefined;
  readonly changes: CommittedChanges | undefined;
}

export class RecordAclEditor implements RecordAclChanges {
  constructor(private readonly deps: RecordAclEditorDeps) {}

  replace(resource: string, id: string, permissions: Acl): Promise<StoredRecord | undefined> {
    return this.edit(resource, id, (acl) => ({ ...acl, ...permissions }));
  }

  grant(resource: string, id: string, permission: string, principal: string): Promise<StoredRecord | undefined> {
    return this.edit(resource, id, (acl) => ({ ...acl, [permission]: [...(acl[permission] ?? []), principal] }));
  }

  revoke(resource: string, id: string, permission: string, principal: string): Promise<StoredRecord | undefined> {
    return this.edit(resource, id, (acl) => ({ ...acl, [permission]: (acl[permission] ?? []).filter((p) => p !== principal) }));
  }

  /**
   * Writes `edit(acl)` as the record's ACL (every permission it does not name emptied), with a
   * new version of the record; the record as written, or undefined when there is no live record.
   * Nothing is written when the ACL stays the same (the record is returned as it is).
   */
  async edit(resourceName: string, id: string, edit: (acl: Acl) => Acl): Promise<StoredRecord | undefined> {
    const resource = this.deps.resource(resourceName);
    if (!resource) throw new Error(`no resource "${resourceName}"`);
    const kind = this.deps.kinds[resource.kind];
    const acls = kind.recordAcls(resource);
    if (!acls) throw new Error(`resource "${resourceName}" keeps no record ACLs`);
    // Records that keep an ACL are scoped by resource alone (ShareableKind.scope).
    const scope: Scope = { collection: resource.name, parentId: "" };
    for (let attempt = 1; ; attempt++) {
      const { record, acl: stored } = await this.deps.shared.read(scope, id, acls, undefined);
      if (!record) return undefined;
      // An ACL that cannot be paired with this version (a mark in flight that lasts, its writer
      // dead) grants nothing, as for the API's writes: the edit starts from the empty ACL.
      const previous = aclOf(stored);
      const next = normalizeAcl(edit(previous));
      const before = kind.aclEntries(resource, previous);
      const after = kind.aclEntries(resource, next);
      if (sameAcl(before, after)) return record;
      const change = { acl: after, previous: before, previousVersion: record.lastModified };
      try {
        const { written } = await this.deps.shared.update(scope, id, record.data, { ifMatch: record.lastModified }, acls, change);
        this.deps.changes?.resourceChanged({
          action: "update",
          collection: scope.collection,
          parentId: scope.parentId,
          timestamp: written.lastModified,
          impacted: [{ old: record, new: written }],
          userId: undefined,
        });
        return written;
      } catch (error) {
        if (error instanceof RecordNotFoundError) return undefined;
        // Another writer got there first: read the record and its ACL again.
        if (!(error instanceof PreconditionFailedError) || attempt === MAX_ATTEMPTS) throw error;
      }
    }
  }
}

function aclOf(stored: ObjectPermissions | undefined): Acl {
  return normalizeAcl(Object.fromEntries(Object.entries(stored ?? {}).map(([permission, principals]) => [permission, [...principals]])));
}

function sameAcl(a: Acl, b: Acl): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => JSON.stringify([...(a[k] ?? [])].sort()) === JSON.stringify([...(b[k] ?? [])].sort()));
}
