/**
 * Kinto's `default` bucket: `/buckets/default/...` is each user's own bucket, whose id is derived
 * from their user id, created (with the collection named in the path) on first use, the user
 * holding `write` on it as the creator of any object does.
 */
import { PreconditionFailedError, UnauthenticatedError } from "../../domain/errors.js";
import { AUTHENTICATED } from "../../domain/principals.js";
import type { RecordOperations } from "../record-operations.js";
import type { Requester } from "../requester.js";
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
  constructor(private readonly deps: DefaultBucketDeps) {}

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
    const { records, resources, options } = this.deps;
    // Anyone signed in may create their own bucket, whoever else may create buckets.
    await created(() =>
      records.replace(
        requester,
        treeResource({ level: "bucket" }, { ...options, bucketCreatePrincipals: [AUTHENTICATED] }),
        id,
        {},
        { ifNoneMatch: "*" },
      ),
    );
    if (collection !== undefined)
      await created(() =>
        records.replace(requester, resources.of({ level: "collection", bucket: id }), collection, {}, { ifNoneMatch: "*" }),
      );
    return id;
  }
}

/** Runs a create-if-missing; one that finds the object there already is done. */
async function created(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (error) {
    if (!(error instanceof PreconditionFailedError)) throw error;
  }
}
