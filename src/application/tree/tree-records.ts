/**
 * The record flows for the lists of Kinto's tree: RecordService's own flows on the list's
 * resource (tree-resources.ts), plus what the tree adds around them: a records URL's collection
 * must exist (Kinto's 404 with errno 111), deleting a bucket or a collection deletes what it
 * contains first and creating one deletes anything left inside it, in the same unit of work and
 * through the same flows (tombstones, lost access, group memberships, events), and an ACL edit of
 * a bucket or collection moves the access of everything inside it (InheritedAccess).
 */
import { ForbiddenError, ParentNotFoundError, RecordNotFoundError, UnauthenticatedError } from "../../domain/errors.js";
import type { Filter } from "../listing.js";
import type { Tombstone } from "../../domain/records.js";
import type { TreeLevel, TreePlace } from "../../domain/tree.js";
import { denial } from "../authorizer.js";
import type { Caller } from "../../domain/principals.js";
import type { ResourceKindPolicy } from "../kinds/resource-kind-policy.js";
import type { RecordStore } from "../ports/record-store.js";
import type { UnitOfWork } from "../ports/unit-of-work.js";
import type { Preconditions } from "../preconditions.js";
import type {
  DeleteAllResult,
  ListParams,
  ListResult,
  PatchPayload,
  RecordPayload,
  RecordResult,
  RecordService,
  Submitted,
} from "../record-service.js";
import { anonymousRequester, type Requester } from "../requester.js";
import type { ResourceDefinition } from "../resources.js";
import type { RecordOperations } from "../record-operations.js";
import type { InheritedAccess } from "./inherited-access.js";
import { placeOf, type TreeResources } from "./tree-places.js";

export interface TreeRecordsDeps {
  readonly records: RecordService;
  /** Where parents are looked up (a read by id, no ACL). */
  readonly store: RecordStore;
  readonly unitOfWork: UnitOfWork;
  /** The shareable kind's policy: whether a caller may list a list whose parent is missing. */
  readonly kind: ResourceKindPolicy;
  readonly resources: TreeResources;
  /** What an ACL edit of a bucket or collection changes for what it contains. */
  readonly inherited: InheritedAccess;
}

export class TreeRecords implements RecordOperations {
  constructor(private readonly deps: TreeRecordsDeps) {}

  list(requester: Requester, resource: ResourceDefinition, params: ListParams, preconditions?: Preconditions): Promise<ListResult> {
    return this.readUnderParent(requester, resource, () => this.deps.records.list(requester, resource, params, preconditions));
  }

  count(
    requester: Requester,
    resource: ResourceDefinition,
    filters: readonly Filter[],
    preconditions?: Preconditions,
  ): Promise<{ count: number; timestamp: number }> {
    return this.readUnderParent(requester, resource, () => this.deps.records.count(requester, resource, filters, preconditions));
  }

  async get(requester: Requester, resource: ResourceDefinition, id: string, preconditions?: Preconditions): Promise<RecordResult> {
    try {
      return await this.deps.records.get(requester, resource, id, preconditions);
    } catch (error) {
      throw await this.namedNotFound(error, resource);
    }
  }

  create(
    requester: Requester,
    resource: ResourceDefinition,
    submitted: Submitted<RecordPayload>,
    preconditions?: Preconditions,
  ): Promise<RecordResult> {
    return this.underParent(resource, () =>
      this.startEmpty(requester, resource, () => this.deps.records.create(requester, resource, submitted, preconditions)),
    );
  }

  replace(
    requester: Requester,
    resource: ResourceDefinition,
    id: string,
    submitted: Submitted<RecordPayload>,
    preconditions?: Preconditions,
  ): Promise<RecordResult> {
    return this.underParent(resource, () =>
      this.aclEdit(requester, resource, id, () => this.deps.records.replace(requester, resource, id, submitted, preconditions)),
    );
  }

  update(
    requester: Requester,
    resource: ResourceDefinition,
    id: string,
    submitted: Submitted<PatchPayload>,
    preconditions?: Preconditions,
  ): Promise<RecordResult> {
    return this.underParent(
      resource,
      () => this.aclEdit(requester, resource, id, () => this.deps.records.update(requester, resource, id, submitted, preconditions)),
      "on failure",
    );
  }

  delete(
    requester: Requester,
    resource: ResourceDefinition,
    id: string,
    preconditions?: Preconditions,
    lastModified?: number,
  ): Promise<Tombstone> {
    return this.underParent(
      resource,
      async () => {
        const place = placeOf(resource);
        if (!holdsChildren(place.level)) return this.deps.records.delete(requester, resource, id, preconditions, lastModified);
        // Checked before anything inside is deleted, so a refused delete deletes nothing.
        await this.deps.records.get(requester, resource, id, preconditions);
        await this.requireWrite(requester, resource, id);
        await this.deleteInside(requester, place, id);
        return this.deps.records.delete(requester, resource, id, preconditions, lastModified);
      },
      "on failure",
    );
  }

  deleteAll(
    requester: Requester,
    resource: ResourceDefinition,
    filters: readonly Filter[],
    preconditions?: Preconditions,
  ): Promise<DeleteAllResult> {
    const place = placeOf(resource);
    if (!holdsChildren(place.level))
      return this.underParent(resource, () => this.deps.records.deleteAll(requester, resource, filters, preconditions));
    // Buckets and collections go one by one, each emptied before it goes (while its ACL still
    // grants its deleter what it contains): those the caller may read, deleted where they may write.
    return this.deps.unitOfWork.run(async () => {
      const listed = await this.deps.records.list(
        requester,
        resource,
        { filters, sort: [], limit: Number.MAX_SAFE_INTEGER, includeDeleted: false, neverRefuse: true },
        preconditions,
      );
      const tombstones: Tombstone[] = [];
      const caller = await requester.caller();
      for (const { id } of listed.entries) {
        if (!(await this.mayDelete(caller, resource, id))) continue;
        await this.deleteInside(requester, place, id);
        tombstones.push(await this.deps.records.delete(requester, resource, id));
      }
      return { tombstones, timestamp: Math.max(listed.timestamp, ...tombstones.map((t) => t.lastModified)) };
    });
  }

  /**
   * Everything inside the object `id` of `place`, deleted as its deleter (who holds `write` on it,
   * so on all it contains): a bucket's collections (their records first) and groups, a
   * collection's records.
   */
  private async deleteInside(requester: Requester, place: TreePlace, id: string): Promise<void> {
    const { records, resources } = this.deps;
    if (place.level === "collection") {
      await records.deleteAll(requester, resources.of({ level: "record", bucket: place.bucket!, collection: id }), []);
      return;
    }
    const collections = resources.of({ level: "collection", bucket: id });
    const { tombstones } = await records.deleteAll(requester, collections, []);
    for (const collection of tombstones)
      await records.deleteAll(requester, resources.of({ level: "record", bucket: id, collection: collection.id }), []);
    await records.deleteAll(requester, resources.of({ level: "group", bucket: id }), []);
  }

  /** A write of a bucket or collection, followed by what its ACL edit changes inside it (InheritedAccess). */
  private async aclEdit(
    requester: Requester,
    resource: ResourceDefinition,
    id: string,
    write: () => Promise<RecordResult>,
  ): Promise<RecordResult> {
    const place = placeOf(resource);
    if (!holdsChildren(place.level)) return write();
    const before = await this.deps.records.get(requester, resource, id).then(
      (found) => found.permissions,
      () => undefined, // missing (a create), or not readable: the write decides what to answer
    );
    const result = await this.startEmpty(requester, resource, write);
    // A bucket or collection just created holds nothing: no one's access to what is inside moved.
    if (!result.created) await this.deps.inherited.changed(place, id, before, result.permissions);
    return result;
  }

  /**
   * A bucket or collection created holds nothing: what a write racing the deletion of the one
   * before it left inside (a record created as its collection was deleted) is deleted with it, by
   * its creator (who holds `write` on it), so a re-created object never shows the old one's content.
   */
  private async startEmpty(requester: Requester, resource: ResourceDefinition, write: () => Promise<RecordResult>): Promise<RecordResult> {
    const result = await write();
    const place = placeOf(resource);
    if (result.created && holdsChildren(place.level)) await this.deleteInside(requester, place, result.record.id);
    return result;
  }

  /** 401/403 unless the caller may delete the object (decided by its own ACL and those above it). */
  private async requireWrite(requester: Requester, resource: ResourceDefinition, id: string): Promise<void> {
    const caller = await requester.caller();
    if (!(await this.mayDelete(caller, resource, id))) throw denial(caller);
  }

  private async mayDelete(caller: Caller, resource: ResourceDefinition, id: string): Promise<boolean> {
    try {
      await this.deps.kind.requireRecord(caller, resource, "delete", id, undefined);
      return true;
    } catch (error) {
      if (isDenial(error)) return false;
      throw error;
    }
  }

  /**
   * A write where its parents must exist: a records URL's collection is looked up before a create
   * (so nothing is written under a missing one), and after a failed change or delete of a record
   * (an existing record has its collection: a missing one only explains a 401/403/404). Buckets'
   * and collections' writes run in one unit of work with what they do inside them.
   */
  private underParent<T>(resource: ResourceDefinition, write: () => Promise<T>, lookUp: "first" | "on failure" = "first"): Promise<T> {
    const place = placeOf(resource);
    if (place.level !== "record") return this.deps.unitOfWork.run(() => this.namingMissing(resource, write, false));
    if (lookUp === "on failure") return this.namingMissing(resource, write, true);
    return this.missingParent(place).then((missing) => {
      if (missing) throw missing;
      return this.namingMissing(resource, write, false);
    });
  }

  /** Runs `write`; a 404 (and, `denialsToo`, a 401/403) under a missing parent is the parent's 404. */
  private async namingMissing<T>(resource: ResourceDefinition, write: () => Promise<T>, denialsToo: boolean): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (denialsToo && isDenial(error)) throw (await this.missingParent(placeOf(resource))) ?? error;
      throw await this.namedNotFound(error, resource);
    }
  }

  /**
   * The 404 of a records list whose collection is missing (a collection exists only inside its
   * bucket); undefined when it exists. Buckets and groups are never looked up, as in Kinto: under
   * a missing bucket no ACE grants anything, so every request there is a 401/403 already.
   */
  private async missingParent(place: TreePlace): Promise<RecordNotFoundError | undefined> {
    if (place.level !== "record") return undefined;
    const collection = place.collection!;
    if (await this.exists({ level: "collection", bucket: place.bucket! }, collection)) return undefined;
    return new ParentNotFoundError("collection", collection);
  }

  private async exists(place: TreePlace, id: string): Promise<boolean> {
    const { store, kind, resources } = this.deps;
    return (await store.get(kind.scope(anonymousRequester(), resources.of(place)), id)) !== undefined;
  }

  /**
   * A read of a list, its parent looked up beside it: under a missing parent, a 404 for who may
   * list there (through the parents' ACLs), else 401/403.
   */
  private async readUnderParent<T>(requester: Requester, resource: ResourceDefinition, read: () => Promise<T>): Promise<T> {
    const [result, missing] = await Promise.all([read(), this.missingParent(placeOf(resource))]);
    if (!missing) return result;
    const caller = await requester.caller();
    if (await this.deps.kind.allowsCollection(caller, resource, "list")) throw missing;
    throw denial(caller);
  }

  /** A missing object of a tree list is named by its level (`record`, `collection`...), as Kinto names it; a missing parent first. */
  private async namedNotFound(error: unknown, resource: ResourceDefinition): Promise<unknown> {
    if (!(error instanceof RecordNotFoundError) || error.collection !== resource.name) return error;
    const place = placeOf(resource);
    return (await this.missingParent(place)) ?? new RecordNotFoundError(place.level, error.id);
  }
}

function holdsChildren(level: TreeLevel): boolean {
  return level === "bucket" || level === "collection";
}

/** A 401 or 403: the caller may not, whatever exists. */
function isDenial(error: unknown): boolean {
  return error instanceof ForbiddenError || error instanceof UnauthenticatedError;
}
