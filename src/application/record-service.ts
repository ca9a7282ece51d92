/**
 * The record API of spec §3–§4: preconditions, the state transitions, and the record + ACL
 * writes done together in one unit of work. What differs between user and shareable resources
 * (scope, authorization, ACLs) is asked of the resource's kind policy (kinds/), never tested here.
 */
import { aclEqual, patchAcl, replaceAcl, type Acl } from "../domain/acl.js";
import { ConflictError, PreconditionFailedError, RecordNotFoundError, ResyncRequiredError, ValidationError } from "../domain/errors.js";
import { jsonEqual, type JsonObject } from "../domain/json.js";
import type { JsonPatchOperation } from "../domain/json-patch.js";
import type { Caller } from "../domain/principals.js";
import { applyRecordJsonPatch } from "../domain/record-json-patch.js";
import {
  isValidRecordId,
  mergePatch,
  recordBody,
  shallowPatch,
  splitManagedFields,
  type RecordOrTombstone,
  type StoredRecord,
  type Tombstone,
} from "../domain/records.js";
import { denial } from "./authorizer.js";
import { CONTENTION_DEADLINE_MS, ContentionRetry } from "./contention-retry.js";
import { RecordTargets } from "./record-targets.js";
import { RecordTurns } from "./record-turns.js";
import type { ChangeAction, CommittedChanges, ImpactedRecord } from "./events.js";
import type { CollectionView, ResourceKindPolicy, ResourceKinds } from "./kinds/resource-kind-policy.js";
import { MODIFIED_FIELD, syncPosition, type Filter, type SortKey } from "./listing.js";
import type { PaginationTokens } from "./pagination-token.js";
import type { IdGenerator } from "./ports/clock.js";
import type { AccessJournal } from "./ports/access-journal.js";
import type { RecordStore, Scope } from "./ports/record-store.js";
import type { AclChange, Grants, RecordSelection, SharedRecords } from "./ports/shared-records.js";
import type { UnitOfWork } from "./ports/unit-of-work.js";
import { checkPreconditions, type Preconditions } from "./preconditions.js";
import { fieldValue } from "./record-fields.js";
import type { Requester } from "./requester.js";
import type { RecordWrite, ResourceDefinition, WriteConsequencesOf } from "./resources.js";

export interface RecordPayload {
  readonly data?: JsonObject;
  readonly permissions?: Readonly<Record<string, readonly string[]>>;
}

export interface PatchPayload {
  readonly data?: JsonObject;
  readonly permissions?: Readonly<Record<string, readonly string[] | null>>;
  /** RFC 7396 merge patch instead of a shallow top-level replace. */
  readonly merge: boolean;
  /** RFC 6902 JSON Patch on `{data, permissions}`: replaces `data` and `permissions` above. */
  readonly operations?: readonly JsonPatchOperation[];
}

/** A record as answered: `permissions` is undefined for user resources, `{}` for non-writers. */
export interface RecordResult {
  readonly record: StoredRecord;
  readonly permissions: Acl | undefined;
  readonly created: boolean;
}

export interface ListParams {
  readonly filters: readonly Filter[];
  /** Without the `last_modified` tie-breaker: the service appends it. */
  readonly sort: readonly SortKey[];
  readonly limit: number;
  readonly token?: string;
  readonly includeDeleted: boolean;
  /** Answer an empty page instead of refusing a caller who may read no record (live feed reads). */
  readonly neverRefuse?: boolean;
}

export interface ListResult {
  readonly entries: RecordOrTombstone[];
  readonly timestamp: number;
  readonly nextToken?: string;
}

export interface DeleteAllResult {
  readonly tombstones: Tombstone[];
  readonly timestamp: number;
}

export interface RecordServiceDeps {
  readonly records: RecordStore;
  /** Resync marks of group changes too large to follow (a `_since` from before one is refused). */
  readonly journal: AccessJournal;
  /** The policy of each resource kind: the flows below are the same for every kind. */
  readonly kinds: ResourceKinds;
  /** Records with their ACL (the kinds that keep one): reads, writes and restricted views. */
  readonly shared: SharedRecords;
  readonly unitOfWork: UnitOfWork;
  readonly ids: IdGenerator;
  readonly tokens: PaginationTokens;
  /** Where `ResourceChanged` events go after commit (extensions, live feed); none when absent. */
  readonly changes?: CommittedChanges;
  /** How long a PATCH keeps re-reading after lost races before answering 503 (default 10 s). */
  readonly contentionDeadlineMs?: number;
  /** What a write of a resource's records entails beyond them (groups: who holds their principal); none when undefined. */
  readonly consequencesOf?: WriteConsequencesOf;
}

/**
 * A request body as the HTTP adapter parsed it: the payload, or what is wrong with it. The flows
 * report a bad body only after authorization, so that a caller who may not write gets 401/403
 * rather than a 400 about a body they may not send (api-contract §8 order).
 */
export type Submitted<T> = T | ValidationError;

function payloadOf<T>(submitted: Submitted<T>): T {
  if (submitted instanceof ValidationError) throw submitted;
  return submitted;
}

/** The records of a collection view, and whether they are only those the caller's grants reach. */
interface Reach {
  readonly records: RecordSelection;
  readonly restricted: boolean;
  /** The grants a restricted view reaches records through (the live feed judges with them too). */
  readonly grants?: Grants;
}

/** A PUT re-decided after losing a create race; only a record deleted and created again between tries needs more than 2. */
const MAX_CREATE_RACE_ATTEMPTS = 5;

export class RecordService {
  private readonly turns = new RecordTurns();
  private readonly targets: RecordTargets;

  constructor(private readonly deps: RecordServiceDeps) {
    this.targets = new RecordTargets(deps.records, deps.shared);
  }

  async list(
    requester: Requester,
    resource: ResourceDefinition,
    params: ListParams,
    preconditions: Preconditions = {},
  ): Promise<ListResult> {
    const { entries, timestamp, nextToken } = await this.listAs(requester, resource, params, preconditions);
    return nextToken === undefined ? { entries, timestamp } : { entries, timestamp, nextToken };
  }

  /**
   * A listing, and the caller it was decided for with whether the caller's grants restricted it:
   * what a live feed subscriber keeps (its view is decided once, by the listing's rules).
   */
  async listAs(
    requester: Requester,
    resource: ResourceDefinition,
    params: ListParams,
    preconditions: Preconditions = {},
  ): Promise<ListResult & { readonly caller: Caller; readonly restricted: boolean; readonly grants: Grants | undefined }> {
    const kind = this.kindOf(resource);
    const scope = kind.scope(requester, resource);
    const { caller, reach, timestamp } = await this.boundedReach(kind, requester, resource, scope);
    checkPreconditions(preconditions, { timestamp }, true);
    const sort = withTieBreaker(params.sort);
    const position = params.token ? this.deps.tokens.decode(params.token, sort, params.filters) : undefined;
    const upTo = position?.upTo ?? timestamp;
    const [entries] = await Promise.all([
      reach.records.list(scope, {
        filters: params.filters,
        sort,
        limit: params.limit + 1,
        after: position?.cursor,
        upTo,
        includeDeleted: params.includeDeleted,
      }),
      this.refuseIfResyncNeeded(kind, resource, scope, caller, params.filters),
    ]);
    if (entries.length === 0 && params.neverRefuse !== true) await this.refuseIfNothingReachable(kind, caller, resource, scope, reach);
    const view = { caller, restricted: reach.restricted, grants: reach.grants };
    if (entries.length <= params.limit) return { entries, timestamp, ...view };
    const page = entries.slice(0, params.limit);
    const last = page.at(-1);
    if (!last) return { entries: page, timestamp, ...view }; // a limit of 0 has no page to continue from
    const nextToken = this.deps.tokens.encode(sort, params.filters, {
      cursor: { values: sort.map((k) => fieldValue(last, k.field)) },
      upTo,
    });
    return { entries: page, timestamp, nextToken, ...view };
  }

  /**
   * A sync from a position older than a group change too large to follow record by record, for
   * one of the caller's principals, is refused: the client resyncs in full (docs/api.md, "Sync").
   */
  private async refuseIfResyncNeeded(
    kind: ResourceKindPolicy,
    resource: ResourceDefinition,
    scope: Scope,
    caller: Caller,
    filters: readonly Filter[],
  ): Promise<void> {
    const since = syncPosition(filters);
    if (since === undefined || !kind.recordAcls(resource)) return;
    const timestamp = await this.deps.journal.resyncAfter(scope, caller.principals, since);
    if (timestamp !== undefined) throw new ResyncRequiredError(since, timestamp);
  }

  /** HEAD of a collection: how many records match (tombstones never count), and its timestamp. */
  async count(
    requester: Requester,
    resource: ResourceDefinition,
    filters: readonly Filter[],
    preconditions: Preconditions = {},
  ): Promise<{ count: number; timestamp: number }> {
    const kind = this.kindOf(resource);
    const scope = kind.scope(requester, resource);
    const { caller, reach, timestamp } = await this.boundedReach(kind, requester, resource, scope);
    checkPreconditions(preconditions, { timestamp }, true);
    const count = await reach.records.count(scope, { filters });
    if (count === 0) await this.refuseIfNothingReachable(kind, caller, resource, scope, reach);
    return { count, timestamp };
  }

  async create(
    requester: Requester,
    resource: ResourceDefinition,
    submitted: Submitted<RecordPayload>,
    preconditions: Preconditions = {},
  ): Promise<RecordResult> {
    const kind = this.kindOf(resource);
    const scope = kind.scope(requester, resource);
    // The body's id decides what is checked, so a valid body is read before authorization; a
    // bad one is reported only to callers who may create, the others get 401/403.
    if (submitted instanceof ValidationError) await kind.requireCollection(await kind.caller(requester), resource, "create");
    const payload = payloadOf(submitted);
    const { fields, lastModified } = splitManagedFields(payload.data ?? {});
    const requestedId = payload.data?.id;
    // An existing id is checked against the record's ACL, which may name any of the caller's principals.
    const caller = requestedId === undefined ? await kind.creator(requester, resource) : await kind.caller(requester);
    if (requestedId !== undefined && !isValidRecordId(requestedId)) throw ValidationError.single("path", null, "Invalid object id");
    if (requestedId !== undefined) {
      const existing = await this.existingForPost(kind, caller, resource, scope, requestedId, preconditions);
      if (existing) return existing;
    }
    await kind.requireCollection(caller, resource, "create");
    // If-Match compares with the collection without an id, else with the (missing) record;
    // If-None-Match: * is about the new record, which does not exist.
    const timestamp =
      requestedId === undefined && preconditions.ifMatch !== undefined ? await this.deps.records.collectionTimestamp(scope) : undefined;
    checkPreconditions({ ifMatch: preconditions.ifMatch }, { timestamp }, false);
    await this.validate(resource, fields);
    const id = requestedId ?? this.deps.ids.generate();
    const acl = kind.aclToStore(resource, caller, replaceAcl({}, payload.permissions ?? {}));
    try {
      const record = await this.consequential(resource, [{ action: "create", id, after: fields }], () =>
        this.createRecord(kind, resource, scope, id, fields, lastModified, acl),
      );
      this.changed(requester, scope, "create", [{ new: record }]);
      return { record, permissions: kind.visibleAcl(caller, acl ?? {}), created: true };
    } catch (error) {
      // Created meanwhile by another request: answer as a POST of an existing id does.
      if (error instanceof ConflictError && requestedId !== undefined) {
        const existing = await this.existingForPost(kind, caller, resource, scope, requestedId, preconditions);
        if (existing) return existing;
      }
      throw error;
    }
  }

  async get(requester: Requester, resource: ResourceDefinition, id: string, preconditions: Preconditions = {}): Promise<RecordResult> {
    const kind = this.kindOf(resource);
    const scope = kind.scope(requester, resource);
    const [caller, { record, acl, inherited }] = await this.targets.callerAndTarget(kind, requester, resource, scope, id);
    await kind.requireRecord(caller, resource, "read", id, acl, inherited);
    if (!record) throw new RecordNotFoundError(resource.name, id);
    checkPreconditions(preconditions, { timestamp: record.lastModified, record }, true);
    return { record, permissions: kind.visibleAcl(caller, acl), created: false };
  }

  async replace(
    requester: Requester,
    resource: ResourceDefinition,
    id: string,
    submitted: Submitted<RecordPayload>,
    preconditions: Preconditions = {},
  ): Promise<RecordResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.replaceOnce(requester, resource, id, submitted, preconditions);
      } catch (error) {
        // Lost a create race (the record was missing when read): decided again on the winner's
        // record, it is the replace it would have been (or 412 with If-None-Match: *), never a 409.
        if (!(error instanceof ConflictError) || attempt >= MAX_CREATE_RACE_ATTEMPTS) throw error;
      }
    }
  }

  private async replaceOnce(
    requester: Requester,
    resource: ResourceDefinition,
    id: string,
    submitted: Submitted<RecordPayload>,
    preconditions: Preconditions,
  ): Promise<RecordResult> {
    const kind = this.kindOf(resource);
    const scope = kind.scope(requester, resource);
    const [caller, { record: existing, acl: currentAcl }] = await this.targets.callerAndTarget(kind, requester, resource, scope, id);
    if (existing) await kind.requireRecord(caller, resource, "replace", id, currentAcl);
    else await kind.requireCollection(caller, resource, "create");
    const payload = payloadOf(submitted);
    checkPreconditions(preconditions, { timestamp: existing?.lastModified, record: existing }, false);
    const data = payload.data ?? (existing ? { ...existing.data } : {});
    rejectOtherId(data, id);
    const { fields, lastModified } = splitManagedFields(data);
    await this.validate(resource, fields);
    const kept = existing ? (currentAcl ?? {}) : {};
    const acl = kind.aclToStore(resource, caller, payload.permissions ? replaceAcl(kept, payload.permissions) : kept);
    const write: RecordWrite = existing
      ? { action: "update", id, before: existing.data, after: fields }
      : { action: "create", id, after: fields };
    const record = await this.consequential(resource, [write], () =>
      existing
        ? this.updateWithAcl(
            kind,
            resource,
            scope,
            id,
            fields,
            { lastModified, ifMatch: numeric(preconditions.ifMatch) },
            acl && !aclEqual(acl, kept) ? this.aclChange(kind, resource, acl, kept, existing.lastModified) : undefined,
          )
        : this.createRecord(kind, resource, scope, id, fields, lastModified, acl),
    );
    this.changed(requester, scope, existing ? "update" : "create", [existing ? { old: existing, new: record } : { new: record }]);
    return { record, permissions: kind.visibleAcl(caller, acl), created: !existing };
  }

  async update(
    requester: Requester,
    resource: ResourceDefinition,
    id: string,
    submitted: Submitted<PatchPayload>,
    preconditions: Preconditions = {},
  ): Promise<RecordResult> {
    const { collection, parentId } = this.kindOf(resource).scope(requester, resource);
    return this.turns.take(`${collection}\u0000${parentId}\u0000${id}`, () =>
      this.updateRecord(requester, resource, id, submitted, preconditions),
    );
  }

  private async updateRecord(
    requester: Requester,
    resource: ResourceDefinition,
    id: string,
    submitted: Submitted<PatchPayload>,
    preconditions: Preconditions,
  ): Promise<RecordResult> {
    const kind = this.kindOf(resource);
    const scope = kind.scope(requester, resource);
    const [caller, found] = await this.targets.callerAndTarget(kind, requester, resource, scope, id);
    await kind.requireWrite(caller, resource, "update", id, found);
    let target = found;
    const patch = payloadOf(submitted);
    const changes = patch.data ?? {};
    rejectOtherId(changes, id);
    const { fields: changedFields, lastModified: requestedModified } = splitManagedFields(changes);
    // Read-modify-write, conditional on what was read; a concurrent write makes us re-read
    // rather than lose it (unless the client itself asked for If-Match).
    const contention = new ContentionRetry(this.deps.contentionDeadlineMs ?? CONTENTION_DEADLINE_MS);
    for (;;) {
      const { record: existing, acl: currentAcl = {} } = target;
      if (!existing) throw new RecordNotFoundError(resource.name, id);
      checkPreconditions(preconditions, { timestamp: existing.lastModified, record: existing }, false);
      const { data, lastModified, permissions } = patch.operations
        ? jsonPatched(resource, existing, target.acl, patch.operations)
        : {
            data: patch.merge ? (mergePatch(existing.data, changedFields) as JsonObject) : shallowPatch(existing.data, changedFields),
            lastModified: requestedModified,
            permissions: patch.permissions,
          };
      await this.validate(resource, data);
      const acl = kind.aclToStore(resource, caller, permissions ? patchAcl(currentAcl, permissions) : currentAcl);
      const aclChanged = acl !== undefined && !aclEqual(acl, currentAcl);
      const dataChanged = !jsonEqual(data, existing.data) || (lastModified !== undefined && lastModified > existing.lastModified);
      if (!dataChanged && !aclChanged) return { record: existing, permissions: kind.visibleAcl(caller, acl), created: false };
      try {
        const record = await this.consequential(resource, [{ action: "update", id, before: existing.data, after: data }], () =>
          this.updateWithAcl(
            kind,
            resource,
            scope,
            id,
            data,
            { lastModified, ifMatch: existing.lastModified },
            acl && aclChanged ? this.aclChange(kind, resource, acl, currentAcl, existing.lastModified) : undefined,
          ),
        );
        this.changed(requester, scope, "update", [{ old: existing, new: record }]);
        return { record, permissions: kind.visibleAcl(caller, acl), created: false };
      } catch (error) {
        const retry = error instanceof PreconditionFailedError && preconditions.ifMatch === undefined;
        if (!retry) throw error;
        await contention.pause(error);
        target = await this.targets.target(kind, resource, scope, id);
        await kind.requireWrite(caller, resource, "update", id, target);
      }
    }
  }

  async delete(
    requester: Requester,
    resource: ResourceDefinition,
    id: string,
    preconditions: Preconditions = {},
    lastModified?: number,
  ): Promise<Tombstone> {
    const kind = this.kindOf(resource);
    const scope = kind.scope(requester, resource);
    const [caller, found] = await this.targets.callerAndTarget(kind, requester, resource, scope, id);
    await kind.requireWrite(caller, resource, "delete", id, found);
    const existing = found.record;
    if (!existing) throw new RecordNotFoundError(resource.name, id);
    checkPreconditions(preconditions, { timestamp: existing.lastModified, record: existing }, false);
    const options = { lastModified, ifMatch: numeric(preconditions.ifMatch) };
    const acls = kind.recordAcls(resource);
    // Every reader of the record loses it at the tombstone's own timestamp (SharedRecords records it).
    const tombstone = await this.consequential(resource, [{ action: "delete", id }], async () =>
      acls
        ? (
            await this.deps.shared.delete(scope, id, options, acls, {
              acl: kind.aclEntries(resource, found.acl ?? {}),
              version: existing.lastModified,
            })
          ).written
        : this.deps.records.delete(scope, id, options),
    );
    this.changed(requester, scope, "delete", [{ old: existing, new: tombstone }]);
    return tombstone;
  }

  async deleteAll(
    requester: Requester,
    resource: ResourceDefinition,
    filters: readonly Filter[],
    preconditions: Preconditions = {},
  ): Promise<DeleteAllResult> {
    const kind = this.kindOf(resource);
    const scope = kind.scope(requester, resource);
    const [{ caller, reach }, before] = await Promise.all([
      this.callerReach(kind, requester, resource, "deleteAll"),
      this.deps.records.collectionTimestamp(scope),
    ]);
    checkPreconditions(preconditions, { timestamp: before }, false);
    // With their ACLs, where the kind keeps some: each former reader loses a record at its tombstone's timestamp.
    const tombstones = await this.consequential(
      resource,
      [],
      () => reach.records.deleteMany(scope, { filters }),
      (deleted) => deleted.map((t): RecordWrite => ({ action: "delete", id: t.id })),
    );
    // The old records are not read back: a collection-wide delete reports tombstones only.
    this.changed(
      requester,
      scope,
      "delete",
      tombstones.map((t) => ({ new: t })),
    );
    if (tombstones.length === 0) await this.refuseIfNothingReachable(kind, caller, resource, scope, reach);
    const timestamp = tombstones.length > 0 ? Math.max(...tombstones.map((t) => t.lastModified)) : before;
    return { tombstones, timestamp };
  }

  /** Announces a write, after its commit, to extensions and the live feed. */
  private changed(requester: Requester, scope: Scope, action: ChangeAction, impacted: readonly ImpactedRecord[]): void {
    if (!this.deps.changes || impacted.length === 0) return;
    const timestamp = Math.max(...impacted.map((i) => i.new.lastModified));
    this.deps.changes.resourceChanged({
      action,
      collection: scope.collection,
      parentId: scope.parentId,
      timestamp,
      impacted,
      userId: requester.userId,
    });
  }

  /**
   * `write` with the resource's consequences, where it has some, in one unit of work: checked
   * before the write (`known`: the writes known before it), applied after it (`written`: the
   * writes it made), and what they run after commit awaited once the unit of work has committed
   * (inside a batch, that is when the batch commits: the batch's run waits for it).
   */
  private async consequential<T>(
    resource: ResourceDefinition,
    known: readonly RecordWrite[],
    write: () => Promise<T>,
    written: (result: T) => readonly RecordWrite[] = () => known,
  ): Promise<T> {
    const consequences = this.deps.consequencesOf?.(resource);
    if (!consequences) return write();
    const { unitOfWork } = this.deps;
    let committed: Promise<void> | undefined;
    const result = await unitOfWork.run(async () => {
      await consequences.check(known);
      const value = await write();
      const afterCommit = await consequences.apply(written(value));
      unitOfWork.afterCommit(() => {
        committed = afterCommit();
        // Awaited below when this run was the outermost; a joined one (a batch) is waited for by
        // the outermost run, its failure being the consequences' to report.
        committed.catch(() => undefined);
        return committed;
      });
      return value;
    });
    await committed;
    return result;
  }

  private kindOf(resource: ResourceDefinition): ResourceKindPolicy {
    return this.deps.kinds[resource.kind];
  }

  /**
   * What a listing reads, and the collection timestamp that bounds it (its ETag, the next
   * `_since`). The timestamp is read before the caller's principals and grants: a record at or
   * below it has committed before it was read, and so had its ACL, and any revoke answered
   * before that write (a group removal, an ACE removed), so principals and grants read after it
   * see them. Read alongside the principals, a listing could pair principals from before a
   * revoke with a record written after it (the "new enemy"); read after the grants, a create
   * committing between the two reads was below the bound but outside the grants: the page
   * missed it and the next `_since` started above it, for good.
   */
  private async boundedReach(
    kind: ResourceKindPolicy,
    requester: Requester,
    resource: ResourceDefinition,
    scope: Scope,
  ): Promise<{ caller: Caller; reach: Reach; timestamp: number }> {
    const timestamp = await this.deps.records.collectionTimestamp(scope);
    return { ...(await this.callerReach(kind, requester, resource, "list")), timestamp };
  }

  /** The caller and what a collection view reaches. */
  private async callerReach(
    kind: ResourceKindPolicy,
    requester: Requester,
    resource: ResourceDefinition,
    view: CollectionView,
  ): Promise<{ caller: Caller; reach: Reach }> {
    const [caller, permission] = await kind.callerAndRestriction(requester, resource, view);
    const acls = kind.recordAcls(resource);
    // The records a collection view works on: the whole scope, or those the caller's grants reach.
    const grants = permission === undefined ? undefined : kind.grants(caller, resource, permission);
    if (!acls) return { caller, reach: { records: this.deps.records, restricted: false } };
    if (!grants) return { caller, reach: { records: await this.deps.shared.select(acls, undefined), restricted: false } };
    return { caller, reach: { records: await this.deps.shared.select(acls, grants), restricted: true, grants } };
  }

  /** A record update, with its ACL change where the kind keeps an ACL (SharedRecords records who lost read). */
  private async updateWithAcl(
    kind: ResourceKindPolicy,
    resource: ResourceDefinition,
    scope: Scope,
    id: string,
    data: JsonObject,
    options: { lastModified?: number; ifMatch?: number },
    change: AclChange | undefined,
  ): Promise<StoredRecord> {
    const acls = kind.recordAcls(resource);
    if (!acls) return this.deps.records.update(scope, id, data, options);
    return (await this.deps.shared.update(scope, id, data, options, acls, change)).written;
  }

  /** A new record, with its ACL where the kind keeps one. */
  private createRecord(
    kind: ResourceKindPolicy,
    resource: ResourceDefinition,
    scope: Scope,
    id: string,
    fields: JsonObject,
    lastModified: number | undefined,
    acl: Acl | undefined,
  ): Promise<StoredRecord> {
    const acls = kind.recordAcls(resource);
    if (!acls || !acl) return this.deps.records.create(scope, id, fields, { lastModified });
    return this.deps.shared.create(scope, id, fields, { lastModified }, acls, kind.aclEntries(resource, acl));
  }

  /** Storing `acl` for the record instead of `previous`, the ACL of version `previousVersion`. */
  private aclChange(kind: ResourceKindPolicy, resource: ResourceDefinition, acl: Acl, previous: Acl, previousVersion: number): AclChange {
    return { acl: kind.aclEntries(resource, acl), previous: kind.aclEntries(resource, previous), previousVersion };
  }

  /**
   * As in Kinto, a caller restricted to the records they hold a permission on is refused
   * (401/403) unless they hold it on at least one record or may create records (then they get
   * an empty answer). Checked only when the answer came out empty, so the usual request pays
   * nothing for it; a caller with access to the whole collection is never refused here.
   */
  private async refuseIfNothingReachable(
    kind: ResourceKindPolicy,
    caller: Caller,
    resource: ResourceDefinition,
    scope: Scope,
    reach: Reach,
  ): Promise<void> {
    if (!reach.restricted) return;
    if (await kind.allowsCollection(caller, resource, "create")) return;
    // Whether one record is reachable, not how many: one entry read, not a count of what the caller may read.
    const one = await reach.records.list(scope, {
      filters: [],
      sort: [{ field: MODIFIED_FIELD, descending: true }],
      limit: 1,
      includeDeleted: false,
    });
    if (one.length === 0) throw denial(caller);
  }

  /** POST of an id that exists: the stored record, unchanged, for callers who may read it. */
  private async existingForPost(
    kind: ResourceKindPolicy,
    caller: Caller,
    resource: ResourceDefinition,
    scope: Scope,
    id: string,
    preconditions: Preconditions,
  ): Promise<RecordResult | undefined> {
    const { record: existing, acl } = await this.targets.target(kind, resource, scope, id);
    if (!existing) return undefined;
    await kind.requireRecord(caller, resource, "read", id, acl);
    checkPreconditions(preconditions, { timestamp: existing.lastModified, record: existing }, false);
    return { record: existing, permissions: kind.visibleAcl(caller, acl), created: false };
  }

  private async validate(resource: ResourceDefinition, data: JsonObject): Promise<void> {
    if (!resource.validate) return;
    const details = await resource.validate(data);
    if (details.length > 0) throw new ValidationError(details);
  }
}

/** `last_modified` descending closes every sort, unless the client sorted on it already. */
export function withTieBreaker(sort: readonly SortKey[]): SortKey[] {
  return sort.some((k) => k.field === MODIFIED_FIELD) ? [...sort] : [...sort, { field: MODIFIED_FIELD, descending: true }];
}

/**
 * A JSON Patch applied to the stored record and ACL: the new data, client timestamp and whole ACL.
 * A kind that keeps no ACL (`acl` undefined) has no `/permissions` to patch.
 */
function jsonPatched(
  resource: ResourceDefinition,
  existing: StoredRecord,
  acl: Acl | undefined,
  operations: readonly JsonPatchOperation[],
) {
  const patched = applyRecordJsonPatch(recordBody(existing), acl ?? {}, operations, acl === undefined ? [] : resource.permissions);
  rejectOtherId(patched.data, existing.id);
  const { fields, lastModified } = splitManagedFields(patched.data);
  // The patched ACL is whole: a permission it no longer has was removed, so it is named as null.
  const removed = acl === undefined ? {} : Object.fromEntries(Object.keys(acl).map((permission) => [permission, null]));
  return {
    data: fields,
    lastModified: lastModified === existing.lastModified ? undefined : lastModified,
    permissions: acl === undefined ? undefined : { ...removed, ...patched.permissions },
  };
}

function rejectOtherId(data: JsonObject, id: string): void {
  if (data.id !== undefined && data.id !== id) {
    throw ValidationError.single("body", "id", "Object id does not match existing object");
  }
}

function numeric(condition: Preconditions["ifMatch"]): number | undefined {
  return typeof condition === "number" ? condition : undefined;
}
