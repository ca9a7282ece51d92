/**
 * A user resource: each authenticated user has their own records (scope = their id), which only
 * they see and write. No ACL is kept and the permission backend is never asked.
 */
import type { Acl } from "../../domain/acl.js";
import { UnauthenticatedError } from "../../domain/errors.js";
import type { Caller } from "../../domain/principals.js";
import type { StoredRecord } from "../../domain/records.js";
import type { RecordPermission } from "../record-access.js";
import type { Scope } from "../ports/record-store.js";
import type { Requester } from "../requester.js";
import type { ResourceDefinition } from "../resources.js";
import type { ResourceKindPolicy, Target } from "./resource-kind-policy.js";

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

  async callerAndTarget(
    requester: Requester,
    _resource: ResourceDefinition,
    _scope: Scope,
    _id: string,
    getRecord: () => Promise<StoredRecord | undefined>,
  ): Promise<[Caller, Target]> {
    const [caller, record] = await Promise.all([this.caller(requester), getRecord()]);
    return [caller, { record, acl: undefined }];
  }

  storedAcl(): Promise<Acl | undefined> {
    return Promise.resolve(undefined);
  }

  async target(_resource: ResourceDefinition, _id: string, getRecord: () => Promise<StoredRecord | undefined>): Promise<Target> {
    return { record: await getRecord(), acl: undefined };
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

  aclToStore(): Acl | undefined {
    return undefined;
  }

  visibleAcl(): Acl | undefined {
    return undefined;
  }

  saveAcl = allowed;

  pendingAcl(): undefined {
    return undefined;
  }

  createWithAcl(): undefined {
    return undefined;
  }

  lostReaders(): string[] {
    return [];
  }

  aclRemoval(): undefined {
    return undefined;
  }
}
