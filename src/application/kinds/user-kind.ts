/**
 * A user resource: each authenticated user has their own records (scope = their id), which only
 * they see and write. No ACL is kept and the permission backend is never asked.
 */
import type { Acl } from "../../domain/acl.js";
import { UnauthenticatedError } from "../../domain/errors.js";
import { collectionObjectId, recordObjectId } from "../../domain/permissions.js";
import type { Caller } from "../../domain/principals.js";
import type { Decision } from "../authorizer.js";
import type { Scope } from "../ports/record-store.js";
import type { AclEntries } from "../ports/shared-records.js";
import type { Requester } from "../requester.js";
import type { ResourceDefinition } from "../resources.js";
import type { RecordPermission, ResourceKindPolicy } from "./resource-kind-policy.js";

const allowed = (): Promise<void> => Promise.resolve();

export class UserKind implements ResourceKindPolicy {
  scope(requester: Requester, resource: ResourceDefinition): Scope {
    if (requester.userId === undefined) throw new UnauthenticatedError();
    return { collection: resource.name, parentId: requester.userId };
  }

  /** No principals: nothing here depends on groups, so the backend lookup is skipped. */
  caller(requester: Requester): Promise<Caller> {
    return Promise.resolve({ userId: requester.userId, principals: [] });
  }

  creator(requester: Requester): Promise<Caller> {
    return this.caller(requester);
  }

  /** No ACL: records live in the RecordStore alone. */
  recordAcls(): undefined {
    return undefined;
  }

  grants(): undefined {
    return undefined;
  }

  /** The scope is the caller's own: every view of it is theirs. */
  allowsCollection(): Promise<boolean> {
    return Promise.resolve(true);
  }

  requireCollection = allowed;
  requireRecord = allowed;
  requireWrite = allowed;

  restriction(): Promise<RecordPermission | undefined> {
    return Promise.resolve(undefined);
  }

  async callerAndRestriction(requester: Requester): Promise<[Caller, RecordPermission | undefined]> {
    return [await this.caller(requester), undefined];
  }

  /** Allowed: the record (or collection) is the caller's own, which is the whole rule of this kind. */
  explain(caller: Caller, resource: ResourceDefinition, permission: string, id: string | undefined): Promise<Decision> {
    const objectId = id === undefined ? collectionObjectId(resource.name) : recordObjectId(resource.name, id);
    const owner = caller.userId === undefined ? [] : [caller.userId];
    return Promise.resolve({
      allowed: true,
      checked: [],
      held: [{ objectId, permission, source: "owner", principals: owner }],
      policy: undefined,
    });
  }

  holders(): Promise<undefined> {
    return Promise.resolve(undefined);
  }

  aclToStore(): Acl | undefined {
    return undefined;
  }

  visibleAcl(): Acl | undefined {
    return undefined;
  }

  aclEntries(): AclEntries {
    return {};
  }
}
