/**
 * A record as fetched before a decision on it, with the caller: what GET, PUT, PATCH, DELETE and
 * explain all decide on, read the same way (one home, so explain can never decide on another read).
 */
import { normalizeAcl, type Acl } from "../domain/acl.js";
import type { Caller } from "../domain/principals.js";
import type { ResourceKindPolicy, Target } from "./kinds/resource-kind-policy.js";
import type { ObjectPermissions } from "./ports/permission-store.js";
import type { RecordStore, Scope } from "./ports/record-store.js";
import type { SharedRead, SharedRecords } from "./ports/shared-records.js";
import type { Requester } from "./requester.js";
import type { ResourceDefinition } from "./resources.js";

export class RecordTargets {
  constructor(
    private readonly records: RecordStore,
    private readonly shared: SharedRecords,
  ) {}

  /**
   * The caller and the record with the ACL of that version: one snapshot through SharedRecords
   * (the caller's principals read with them when still unknown and from the permission backend).
   */
  async callerAndTarget(
    kind: ResourceKindPolicy,
    requester: Requester,
    resource: ResourceDefinition,
    scope: Scope,
    id: string,
  ): Promise<[Caller, Target]> {
    const acls = kind.recordAcls(resource);
    if (!acls) {
      const [caller, record] = await Promise.all([kind.caller(requester), this.records.get(scope, id)]);
      return [caller, { record, acl: undefined }];
    }
    const adopt = requester.userId === undefined ? undefined : requester.groupsToRead?.();
    const read = await this.shared.read(scope, id, acls, adopt && requester.userId);
    const caller = adopt && read.principals ? await adopt(read.principals) : await kind.caller(requester);
    return [caller, targetOf(read)];
  }

  /**
   * The record (undefined when missing) and the ACL of that version when the kind keeps one:
   * authorization decides the record's own grants on it alone. Fetching before deciding leaks
   * nothing: a refused caller gets 401/403 whether or not the record exists.
   */
  async target(kind: ResourceKindPolicy, resource: ResourceDefinition, scope: Scope, id: string): Promise<Target> {
    const acls = kind.recordAcls(resource);
    if (!acls) return { record: await this.records.get(scope, id), acl: undefined };
    return targetOf(await this.shared.read(scope, id, acls, undefined));
  }
}

function targetOf(read: SharedRead): Target {
  const target = { record: read.record, acl: aclOf(read.acl) };
  return read.inherited ? { ...target, inherited: read.inherited } : target;
}

/** An ACL as read (none paired: it grants nothing) in the domain's shape. */
export function aclOf(stored: ObjectPermissions | undefined): Acl {
  return normalizeAcl(Object.fromEntries(Object.entries(stored ?? {}).map(([permission, principals]) => [permission, [...principals]])));
}
