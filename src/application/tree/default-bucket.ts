/**
 * Kinto's `default` bucket: `/buckets/default/...` is each user's own bucket, whose id is derived
 * from their user id, created (with the collection named in the path) on first use, the user
 * holding `write` on it as the creator of any object does.
 */
import { ForbiddenError, PreconditionFailedError, RecordNotFoundError, UnauthenticatedError } from "../../domain/errors.js";
import { AUTHENTICATED } from "../../domain/principals.js";
import type { RecordOperations } from "../record-operations.js";
import type { Requester } from "../requester.js";
import type { ResourceDefinition } from "../resources.js";
import { treeResource, type TreeResourceOptions } from "./tree-resources.js";
import type { TreeResources } from "./tree-places.js";

export const DEFAULT_BUCKET = "default";

export interface DefaultBucketDeps {
  /** The tree's record flows (TreeRecords): a bucket or collection created here starts empty as any. */
  readonly records: RecordOperations;
  readonly resources: TreeResources;
  readonly options: TreeResourceOptions;
  /** The id of a user's bucket: the same for a user on every process and every restart. */
  readonly bucketIdOf: (userId: string) => string;
}

export class DefaultBucket {
  /** The buckets as created here: anyone signed in may create their own, whoever else may create buckets. */
  private readonly ownBuckets: ResourceDefinition;

  constructor(private readonly deps: DefaultBucketDeps) {
    this.ownBuckets = treeResource({ level: "bucket" }, { ...deps.options, bucketCreatePrincipals: [AUTHENTICATED] });
  }

  /** The user's bucket id, for showing it (the root view); undefined for an anonymous requester. */
  idOf(requester: Requester): string | undefined {
    return requester.userId === undefined ? undefined : this.deps.bucketIdOf(requester.userId);
  }

  /** The caller's bucket id, without creating it; anonymous callers have none (401). */
  ownId(requester: Requester): string {
    const id = this.idOf(requester);
    if (id === undefined) throw new UnauthenticatedError();
    return id;
  }

  /**
   * The bucket a path's `bucket` names: itself, or for `default` the caller's own bucket, created
   * with `collection` when missing. Anonymous callers have none (401).
   */
  async resolve(requester: Requester, bucket: string, collection?: string): Promise<string> {
    if (bucket !== DEFAULT_BUCKET) return bucket;
    const id = this.ownId(requester);
    await this.ensure(requester, this.ownBuckets, id);
    if (collection !== undefined) await this.ensure(requester, this.deps.resources.of({ level: "collection", bucket: id }), collection);
    return id;
  }

  /**
   * Creates the object unless its owner reads it already (one read on every request but the
   * first); a create that finds it there, made meanwhile, is done too.
   */
  private async ensure(requester: Requester, resource: ResourceDefinition, id: string): Promise<void> {
    const { records } = this.deps;
    const found = await records.get(requester, resource, id).then(
      () => true,
      (error: unknown) => {
        // Missing: a 404 to who may read there, a 403 to who reads through nothing yet (their own bucket).
        if (error instanceof RecordNotFoundError || error instanceof ForbiddenError) return false;
        throw error;
      },
    );
    if (found) return;
    try {
      await records.replace(requester, resource, id, {}, { ifNoneMatch: "*" });
    } catch (error) {
      if (!(error instanceof PreconditionFailedError)) throw error;
    }
  }
}
