/**
 * The record API of spec §3–§4 for user and shareable resources: authorization, preconditions,
 * the state transitions, and the record + ACL writes done together in one unit of work.
 */
import { aclEqual, normalizeAcl, patchAcl, replaceAcl, withWriter, type Acl } from "../domain/acl.js";
import { ConflictError, PreconditionFailedError, RecordNotFoundError, UnauthenticatedError, ValidationError } from "../domain/errors.js";
import { jsonEqual, type JsonObject } from "../domain/json.js";
import { collectionObjectId, READ, recordIdOf, recordObjectId, recordsPattern, WRITE } from "../domain/permissions.js";
import { writerPrincipal, type Caller } from "../domain/principals.js";
import { isValidRecordId, mergePatch, shallowPatch, splitManagedFields, type RecordOrTombstone, type StoredRecord, type Tombstone } from "../domain/records.js";
import { Authorizer, denial } from "./authorizer.js";
import { MODIFIED_FIELD, type CountQuery, type Filter, type RecordAccess, type SortKey } from "./listing.js";
import { PaginationTokens } from "./pagination-token.js";
import type { Clock, IdGenerator } from "./ports/clock.js";
import type { PermissionStore } from "./ports/permission-store.js";
import type { RecordStore, Scope } from "./ports/record-store.js";
import type { UnitOfWork } from "./ports/unit-of-work.js";
import { checkPreconditions, type Preconditions } from "./preconditions.js";
import { fieldValue } from "./record-fields.js";
import type { Requester } from "./requester.js";
import { boundPermissionsOf, type ResourceDefinition, type ViewName } from "./resources.js";

export interface RecordPayload {
  readonly data?: JsonObject;
  readonly permissions?: Readonly<Record<string, readonly string[]>>;
}

export interface PatchPayload {
  readonly data?: JsonObject;
  readonly permissions?: Readonly<Record<string, readonly string[] | null>>;
  /** RFC 7396 merge patch instead of a shallow top-level replace. */
  readonly merge: boolean;
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

/**
 * How "records readable by the caller" reaches the store: `join` when the store shares a
 * database with the permission backend (one query), else `ids` resolved through the backend.
 */
export type AccessStrategy = "join" | "ids";

export interface RecordServiceDeps {
  readonly records: RecordStore;
  readonly permissions: PermissionStore | undefined;
  readonly unitOfWork: UnitOfWork;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly tokens: PaginationTokens;
  readonly accessStrategy: AccessStrategy;
}

const MAX_PATCH_ATTEMPTS = 5;

interface Target {
  readonly record: StoredRecord | undefined;
  readonly acl: Acl | undefined;
}

/**
 * A payload, or how to parse it: parsing runs after authorization, so that a caller who may not
 * write gets 401/403 rather than a 400 about a body they may not send (api-contract §8 order).
 */
export type PayloadSource<T> = T | (() => T);

function payloadOf<T extends object>(source: PayloadSource<T>): T {
  return typeof source === "function" ? source() : source;
}

export class RecordService {
  private readonly authorizer: Authorizer;

  constructor(private readonly deps: RecordServiceDeps) {
    this.authorizer = new Authorizer(deps.permissions);
  }

  async list(requester: Requester, resource: ResourceDefinition, params: ListParams, preconditions: Preconditions = {}): Promise<ListResult> {
    const { scope, access, refuseIfEmpty } = await this.readableScope(requester, resource, "list", READ);
    const timestamp = await this.deps.records.collectionTimestamp(scope);
    checkPreconditions(preconditions, { timestamp }, true);
    const sort = withTieBreaker(params.sort);
    const position = params.token ? this.deps.tokens.decode(params.token, sort, params.filters) : undefined;
    const upTo = position?.upTo ?? timestamp;
    const entries = await this.deps.records.list(scope, {
      filters: params.filters,
      sort,
      limit: params.limit + 1,
      after: position?.cursor,
      upTo,
      includeDeleted: params.includeDeleted,
      access,
    });
    if (entries.length === 0) await refuseIfEmpty();
    if (entries.length <= params.limit) return { entries, timestamp };
    const page = entries.slice(0, params.limit);
    const last = page[page.length - 1];
    const nextToken = this.deps.tokens.encode(sort, params.filters, { cursor: { values: sort.map((k) => fieldValue(last, k.field)) }, upTo });
    return { entries: page, timestamp, nextToken };
  }

  /** HEAD of a collection: how many records match (tombstones never count), and its timestamp. */
  async count(requester: Requester, resource: ResourceDefinition, filters: readonly Filter[], preconditions: Preconditions = {}): Promise<{ count: number; timestamp: number }> {
    const { scope, access, refuseIfEmpty } = await this.readableScope(requester, resource, "list", READ);
    const timestamp = await this.deps.records.collectionTimestamp(scope);
    checkPreconditions(preconditions, { timestamp }, true);
    const count = await this.deps.records.count(scope, { filters, access });
    if (count === 0) await refuseIfEmpty();
    return { count, timestamp };
  }

  async create(requester: Requester, resource: ResourceDefinition, source: PayloadSource<RecordPayload>, preconditions: Preconditions = {}): Promise<RecordResult> {
    const scope = this.scopeOf(requester, resource);
    const caller = await this.callerFor(requester, resource);
    const payload = await this.payloadForCreate(caller, resource, source);
    const { fields, lastModified } = splitManagedFields(payload.data ?? {});
    const requestedId = payload.data?.id;
    if (requestedId !== undefined && !isValidRecordId(requestedId)) throw ValidationError.single("path", null, "Invalid object id");
    if (requestedId !== undefined) {
      const existing = await this.existingForPost(caller, resource, scope, requestedId, preconditions);
      if (existing) return existing;
    }
    await this.requireCollection(caller, resource, "create", this.permissionFor(resource, "create"));
    // If-Match compares with the collection without an id, else with the (missing) record;
    // If-None-Match: * is about the new record, which does not exist.
    const timestamp = requestedId === undefined && preconditions.ifMatch !== undefined ? await this.deps.records.collectionTimestamp(scope) : undefined;
    checkPreconditions({ ifMatch: preconditions.ifMatch }, { timestamp }, false);
    await this.validate(resource, fields);
    const id = requestedId ?? this.deps.ids.generate();
    const acl = this.finalAcl(resource, caller, replaceAcl({}, payload.permissions ?? {}));
    try {
      const record = await this.writeWithAcl(
        () => this.deps.records.create(scope, id, fields, { lastModified }),
        acl && (() => this.storeAcl(resource, id, acl)),
      );
      return { record, permissions: this.visibleAcl(resource, caller, acl ?? {}), created: true };
    } catch (error) {
      // Created meanwhile by another request: answer as a POST of an existing id does.
      if (error instanceof ConflictError && requestedId !== undefined) {
        const existing = await this.existingForPost(caller, resource, scope, requestedId, preconditions);
        if (existing) return existing;
      }
      throw error;
    }
  }

  async get(requester: Requester, resource: ResourceDefinition, id: string, preconditions: Preconditions = {}): Promise<RecordResult> {
    const scope = this.scopeOf(requester, resource);
    const [caller, { record, acl }] = await Promise.all([this.callerFor(requester, resource), this.target(resource, scope, id)]);
    await this.requireRecord(caller, resource, "read", id, acl);
    if (!record) throw new RecordNotFoundError(resource.name, id);
    checkPreconditions(preconditions, { timestamp: record.lastModified, record }, true);
    return { record, permissions: acl && this.visibleAcl(resource, caller, acl), created: false };
  }

  async replace(requester: Requester, resource: ResourceDefinition, id: string, source: PayloadSource<RecordPayload>, preconditions: Preconditions = {}): Promise<RecordResult> {
    const scope = this.scopeOf(requester, resource);
    const caller = await this.callerFor(requester, resource);
    const { record: existing, acl: currentAcl } = await this.target(resource, scope, id);
    if (existing) await this.requireRecord(caller, resource, "replace", id, currentAcl);
    else await this.requireCollection(caller, resource, "create", this.permissionFor(resource, "create"));
    const payload = payloadOf(source);
    checkPreconditions(preconditions, { timestamp: existing?.lastModified, record: existing }, false);
    const data = payload.data ?? (existing ? { ...existing.data } : {});
    rejectOtherId(data, id);
    const { fields, lastModified } = splitManagedFields(data);
    await this.validate(resource, fields);
    const kept = existing ? (currentAcl ?? {}) : {};
    const acl = this.finalAcl(resource, caller, payload.permissions ? replaceAcl(kept, payload.permissions) : kept);
    const record = await this.writeWithAcl(
      () => (existing ? this.deps.records.update(scope, id, fields, { lastModified, ifMatch: numeric(preconditions.ifMatch) }) : this.deps.records.create(scope, id, fields, { lastModified })),
      acl && (!existing || !aclEqual(acl, kept)) ? () => this.storeAcl(resource, id, acl) : undefined,
    );
    return { record, permissions: acl && this.visibleAcl(resource, caller, acl), created: !existing };
  }

  async update(requester: Requester, resource: ResourceDefinition, id: string, source: PayloadSource<PatchPayload>, preconditions: Preconditions = {}): Promise<RecordResult> {
    const scope = this.scopeOf(requester, resource);
    const [caller, found] = await Promise.all([this.callerFor(requester, resource), this.target(resource, scope, id)]);
    let target = await this.authorizeWrite(caller, resource, "update", id, found);
    const patch = payloadOf(source);
    const changes = patch.data ?? {};
    rejectOtherId(changes, id);
    const { fields: changedFields, lastModified } = splitManagedFields(changes);
    // Read-modify-write, conditional on what was read; a concurrent write makes us re-read
    // rather than lose it (unless the client itself asked for If-Match).
    for (let attempt = 1; ; attempt++) {
      const { record: existing, acl: currentAcl = {} } = target;
      if (!existing) throw new RecordNotFoundError(resource.name, id);
      checkPreconditions(preconditions, { timestamp: existing.lastModified, record: existing }, false);
      const data = patch.merge ? (mergePatch(existing.data, changedFields) as JsonObject) : shallowPatch(existing.data, changedFields);
      await this.validate(resource, data);
      const acl = this.finalAcl(resource, caller, patch.permissions ? patchAcl(currentAcl, patch.permissions) : currentAcl);
      const aclChanged = acl !== undefined && !aclEqual(acl, currentAcl);
      const dataChanged = !jsonEqual(data, existing.data) || (lastModified !== undefined && lastModified > existing.lastModified);
      if (!dataChanged && !aclChanged) return { record: existing, permissions: acl && this.visibleAcl(resource, caller, acl), created: false };
      try {
        const record = await this.writeWithAcl(
          () => this.deps.records.update(scope, id, data, { lastModified, ifMatch: existing.lastModified }),
          acl && aclChanged ? () => this.storeAcl(resource, id, acl) : undefined,
        );
        return { record, permissions: acl && this.visibleAcl(resource, caller, acl), created: false };
      } catch (error) {
        const retry = error instanceof PreconditionFailedError && preconditions.ifMatch === undefined && attempt < MAX_PATCH_ATTEMPTS;
        if (!retry) throw error;
        target = await this.authorizeWrite(caller, resource, "update", id, await this.target(resource, scope, id));
      }
    }
  }

  async delete(requester: Requester, resource: ResourceDefinition, id: string, preconditions: Preconditions = {}, lastModified?: number): Promise<Tombstone> {
    const scope = this.scopeOf(requester, resource);
    const [caller, found] = await Promise.all([this.callerFor(requester, resource), this.target(resource, scope, id)]);
    const { record: existing } = await this.authorizeWrite(caller, resource, "delete", id, found);
    if (!existing) throw new RecordNotFoundError(resource.name, id);
    checkPreconditions(preconditions, { timestamp: existing.lastModified, record: existing }, false);
    return this.writeWithAcl(
      () => this.deps.records.delete(scope, id, { lastModified, ifMatch: numeric(preconditions.ifMatch) }),
      resource.kind === "shareable" && this.deps.permissions ? () => this.deps.permissions?.deleteObjectPermissions(recordObjectId(resource.name, id)) ?? Promise.resolve() : undefined,
    );
  }

  async deleteAll(requester: Requester, resource: ResourceDefinition, filters: readonly Filter[], preconditions: Preconditions = {}): Promise<DeleteAllResult> {
    const { scope, access, refuseIfEmpty } = await this.readableScope(requester, resource, "deleteAll", WRITE);
    const before = await this.deps.records.collectionTimestamp(scope);
    checkPreconditions(preconditions, { timestamp: before }, false);
    const query: CountQuery = { filters, access };
    const tombstones = await this.deps.unitOfWork.run(async () => {
      const deleted = await this.deps.records.deleteMany(scope, query);
      if (resource.kind === "shareable" && deleted.length > 0) {
        await this.deps.permissions?.deleteObjectPermissions(...deleted.map((t) => recordObjectId(resource.name, t.id)));
      }
      return deleted;
    });
    if (tombstones.length === 0) await refuseIfEmpty();
    const timestamp = tombstones.length > 0 ? Math.max(...tombstones.map((t) => t.lastModified)) : before;
    return { tombstones, timestamp };
  }

  /**
   * Writes a record and its ACL together. Inside one transaction the ACL goes first: the record
   * write takes the collection's timestamp lock, held until commit, so it should come last.
   * Without a transaction the record goes first, so that a refused record write (conflict,
   * precondition) leaves the ACL untouched. A lone record write needs no unit of work.
   */
  private writeWithAcl<R>(writeRecord: () => Promise<R>, writeAcl: (() => Promise<void>) | undefined): Promise<R> {
    if (!writeAcl) return writeRecord();
    const { unitOfWork } = this.deps;
    return unitOfWork.run(async () => {
      if (unitOfWork.atomic) {
        await writeAcl();
        return writeRecord();
      }
      const result = await writeRecord();
      await writeAcl();
      return result;
    });
  }

  /**
   * The record (undefined when missing) and, for shareable resources, its ACL, fetched together
   * (and alongside the caller's principals): authorization then needs no other round trip when
   * the record's own ACL grants the permission. Fetching before deciding leaks nothing: a
   * refused caller gets 401/403 whether or not the record exists.
   */
  private async target(resource: ResourceDefinition, scope: Scope, id: string): Promise<Target> {
    if (resource.kind === "user") return { record: await this.deps.records.get(scope, id), acl: undefined };
    const [record, acl] = await Promise.all([this.deps.records.get(scope, id), this.currentAcl(resource, id)]);
    return { record, acl };
  }

  /** Records of a user resource live under the caller's id; shareable ones under "". */
  private scopeOf(requester: Requester, resource: ResourceDefinition): Scope {
    if (resource.kind === "shareable") return { collection: resource.name, parentId: "" };
    if (requester.userId === undefined) throw new UnauthenticatedError();
    return { collection: resource.name, parentId: requester.userId };
  }

  /** User resources never touch the permission backend for principals. */
  private async callerFor(requester: Requester, resource: ResourceDefinition): Promise<Caller> {
    if (resource.kind === "user") return { userId: requester.userId, principals: [] };
    return requester.caller();
  }

  private permissionFor(resource: ResourceDefinition, view: ViewName): string {
    const fallback: Record<ViewName, string> = { list: READ, read: READ, create: "create", deleteAll: WRITE, replace: WRITE, update: WRITE, delete: WRITE };
    return resource.viewPermissions?.[view] ?? fallback[view];
  }

  private async requireCollection(caller: Caller, resource: ResourceDefinition, view: ViewName, permission: string): Promise<void> {
    if (resource.kind === "user") return;
    await this.authorizer.require(caller, resource, view, collectionObjectId(resource.name), permission);
  }

  private async requireRecord(caller: Caller, resource: ResourceDefinition, view: ViewName, id: string, knownAcl: Acl | undefined): Promise<void> {
    if (resource.kind === "user") return;
    await this.authorizer.require(caller, resource, view, recordObjectId(resource.name, id), this.permissionFor(resource, view), knownAcl);
  }

  /**
   * The scope, and the access restriction for callers without collection-level `permission`:
   * only the records on which they hold it (through their ACLs), resolved as the strategy says.
   * As in Kinto, such callers are refused (401/403) unless they hold it on at least one record
   * or may create records (then they get an empty list); that is checked only when the answer
   * came out empty, so the usual request pays nothing for it.
   */
  private async readableScope(
    requester: Requester,
    resource: ResourceDefinition,
    view: ViewName,
    permission: typeof READ | typeof WRITE,
  ): Promise<{ scope: Scope; access?: RecordAccess; refuseIfEmpty: () => Promise<void> }> {
    const scope = this.scopeOf(requester, resource);
    const nothingToRefuse = () => Promise.resolve();
    if (resource.kind === "user") return { scope, refuseIfEmpty: nothingToRefuse };
    const caller = await requester.caller();
    const required = this.permissionFor(resource, view);
    if (await this.authorizer.allowed(caller, resource, view, collectionObjectId(resource.name), required)) return { scope, refuseIfEmpty: nothingToRefuse };
    const access = await this.accessOf(caller, resource, permission);
    const refuseIfEmpty = async () => {
      if (await this.authorizer.allowed(caller, resource, "create", collectionObjectId(resource.name), this.permissionFor(resource, "create"))) return;
      if ((await this.deps.records.count(scope, { filters: [], access })) === 0) throw denial(caller);
    };
    return { scope, access, refuseIfEmpty };
  }

  private async accessOf(caller: Caller, resource: ResourceDefinition, permission: typeof READ | typeof WRITE): Promise<RecordAccess> {
    const pattern = recordsPattern(resource.name);
    const bound = boundPermissionsOf(resource);
    if (this.deps.accessStrategy === "join") {
      const permissions = bound(pattern, permission).filter((b) => b.objectId === pattern).map((b) => b.permission);
      return { kind: "principals", principals: caller.principals, permissions, objectIdPrefix: `/${resource.name}/` };
    }
    const objects = this.deps.permissions ? await this.deps.permissions.principalsAccessibleObjects(caller.principals, permission, pattern, bound) : new Set<string>();
    const ids = [...objects].map((o) => recordIdOf(resource.name, o)).filter((id): id is string => id !== undefined);
    return { kind: "ids", ids };
  }

  /**
   * The POST body, parsed before authorization because its id decides what is checked; a bad
   * body is reported only to callers who may create, the others get 401/403.
   */
  private async payloadForCreate(caller: Caller, resource: ResourceDefinition, source: PayloadSource<RecordPayload>): Promise<RecordPayload> {
    try {
      return payloadOf(source);
    } catch (error) {
      if (error instanceof ValidationError) await this.requireCollection(caller, resource, "create", this.permissionFor(resource, "create"));
      throw error;
    }
  }

  /** POST of an id that exists: the stored record, unchanged, for callers who may read it. */
  private async existingForPost(caller: Caller, resource: ResourceDefinition, scope: Scope, id: string, preconditions: Preconditions): Promise<RecordResult | undefined> {
    const { record: existing, acl } = await this.target(resource, scope, id);
    if (!existing) return undefined;
    await this.requireRecord(caller, resource, "read", id, acl);
    checkPreconditions(preconditions, { timestamp: existing.lastModified, record: existing }, false);
    return { record: existing, permissions: acl && this.visibleAcl(resource, caller, acl), created: false };
  }

  /**
   * PATCH/DELETE target: 403 without write; a missing record is a 404 for callers who may read
   * the collection and a 403 (401 anonymous) for the others, so existence never leaks.
   */
  private async authorizeWrite(caller: Caller, resource: ResourceDefinition, view: ViewName, id: string, target: Target): Promise<Target> {
    const { record, acl } = target;
    const permission = this.permissionFor(resource, view);
    if (resource.kind === "shareable" && !(await this.authorizer.allowed(caller, resource, view, recordObjectId(resource.name, id), permission, acl))) {
      if (!record && (await this.authorizer.collectionAllowed(caller, resource, "list", READ))) throw new RecordNotFoundError(resource.name, id);
      throw denial(caller);
    }
    return { record, acl };
  }

  private async validate(resource: ResourceDefinition, data: JsonObject): Promise<void> {
    if (!resource.validate) return;
    const details = await resource.validate(data);
    if (details.length > 0) throw new ValidationError(details);
  }

  private async currentAcl(resource: ResourceDefinition, id: string): Promise<Acl> {
    if (!this.deps.permissions) return {};
    const stored = await this.deps.permissions.objectPermissions(recordObjectId(resource.name, id), resource.permissions);
    return normalizeAcl(Object.fromEntries(Object.entries(stored).map(([perm, principals]) => [perm, [...principals]])));
  }

  private visibleAcl(resource: ResourceDefinition, caller: Caller, acl: Acl): Acl | undefined {
    if (resource.kind === "user") return undefined;
    const writers = acl[WRITE] ?? [];
    return caller.principals.some((p) => writers.includes(p)) ? acl : {};
  }

  /** The ACL to store: the caller always ends up in `write`. Undefined for user resources. */
  private finalAcl(resource: ResourceDefinition, caller: Caller, acl: Acl): Acl | undefined {
    return resource.kind === "user" ? undefined : withWriter(acl, writerPrincipal(caller));
  }

  /** Replaces every known permission of the record, emptying those the ACL does not name. */
  private async storeAcl(resource: ResourceDefinition, id: string, acl: Acl): Promise<void> {
    const full: Record<string, readonly string[]> = {};
    for (const permission of new Set([...resource.permissions, ...Object.keys(acl)])) full[permission] = acl[permission] ?? [];
    await this.deps.permissions?.replaceObjectPermissions(recordObjectId(resource.name, id), full);
  }
}

/** `last_modified` descending closes every sort, unless the client sorted on it already. */
export function withTieBreaker(sort: readonly SortKey[]): SortKey[] {
  return sort.some((k) => k.field === MODIFIED_FIELD) ? [...sort] : [...sort, { field: MODIFIED_FIELD, descending: true }];
}

function rejectOtherId(data: JsonObject, id: string): void {
  if (data.id !== undefined && data.id !== id) {
    throw ValidationError.single("body", "id", "Object id does not match existing object");
  }
}

function numeric(condition: Preconditions["ifMatch"]): number | undefined {
  return typeof condition === "number" ? condition : undefined;
}
