/**
 * Kinto's resource tree over HTTP: `/buckets[/{bid}]`, `/buckets/{bid}/collections[/{cid}]`,
 * `/buckets/{bid}/groups[/{gid}]` and `/buckets/{bid}/collections/{cid}/records[/{id}]`, served
 * by the endpoints of every collection (record-routes.ts) over the tree's record flows.
 * Registered before the flat routes, so that `buckets` is never read as a collection name.
 */
import type Router from "@koa/router";
import type { Context } from "koa";
import { ValidationError } from "../../domain/errors.js";
import { isValidRecordId } from "../../domain/records.js";
import type { TreePlace } from "../../domain/tree.js";
import { DEFAULT_BUCKET } from "../../application/tree/default-bucket.js";
import type { HttpResource, HttpServices } from "./http-services.js";
import type { HttpTree } from "./http-tree.js";
import { requesterOf, serveCollection, serveRecord, type RecordTarget } from "./record-routes.js";

const NOTHING_DISABLED: ReadonlySet<string> = new Set();

const params = (ctx: Context) => ctx.params as Record<string, string | undefined>;

/** A path's id (`bucket`, `collection`, `id`), 400 unless valid. */
function pathId(ctx: Context, param: string): string {
  const id = String(params(ctx)[param]);
  if (!isValidRecordId(id)) throw ValidationError.single("path", param === "id" ? "id" : `${param}_id`, "Invalid object id");
  return id;
}

/**
 * The list of `level` a path names, served as a resource; the `default` bucket is resolved to the
 * caller's own, created on first use with the collection the path names (`inside`: a
 * collection's own URL names it too, except for the PUT that creates it).
 */
export async function treeListOf(ctx: Context, tree: HttpTree, level: TreePlace["level"], inside?: string): Promise<HttpResource> {
  let place: TreePlace = { level };
  if (level !== "bucket") {
    const collection = level === "record" ? pathId(ctx, "collection") : undefined;
    const bucket = await tree.defaultBucket.resolve(requesterOf(ctx), pathId(ctx, "bucket"), collection ?? inside);
    place = { level, bucket, collection };
  }
  return { definition: tree.resources.of(place), disabled: NOTHING_DISABLED, cacheExpiresSeconds: undefined };
}

export function registerTreeRoutes(router: Router, services: HttpServices, tree: HttpTree): void {
  const target = async (ctx: Context, level: TreePlace["level"], inside?: string): Promise<RecordTarget> => ({
    resource: await treeListOf(ctx, tree, level, inside),
    operations: tree.records,
  });
  const serve = (path: string, level: TreePlace["level"]) => {
    router.all(path, async (ctx) => serveCollection(ctx, services, await target(ctx, level)));
    router.all(`${path}/:id`, async (ctx) => {
      const id = pathId(ctx, "id");
      // The default bucket itself: the caller's own, created on first use (a PUT creates it itself).
      if (level === "bucket" && id === DEFAULT_BUCKET) {
        const own =
          ctx.method === "PUT" ? tree.defaultBucket.ownId(requesterOf(ctx)) : await tree.defaultBucket.resolve(requesterOf(ctx), id);
        return serveRecord(ctx, services, await target(ctx, level), own);
      }
      const inside = level === "collection" && ctx.method !== "PUT" ? id : undefined;
      return serveRecord(ctx, services, await target(ctx, level, inside), id);
    });
  };
  serve("/buckets", "bucket");
  serve("/buckets/:bucket/collections", "collection");
  serve("/buckets/:bucket/groups", "group");
  serve("/buckets/:bucket/collections/:collection/records", "record");
}
