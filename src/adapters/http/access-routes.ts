/**
 * "Why and who": `GET /{collection}/{id}/explain?permission=P` (whether the caller holds P on the
 * record, and through what), `GET /{collection}/{id}/readers` (who may read it, through groups,
 * for its writers) and Kinto's `GET /permissions` (every object the caller holds a permission
 * on). Pages are Kinto's (`_limit`, `_token`, `Next-Page`), capped at ACCESS_PAGE_MAX.
 * Registered before the record routes, so that `permissions` is never read as a collection name.
 */
import type Router from "@koa/router";
import type { HeldTreeObject } from "../../application/tree/held-tree-objects.js";
import type { Context } from "koa";
import { MethodNotAllowedError, ValidationError } from "../../domain/errors.js";
import type { JsonObject } from "../../domain/json.js";
import { isValidRecordId } from "../../domain/records.js";
import { TREE_ROOT, type AccessService, type Explanation, type PageParams } from "../../application/access/access-service.js";
import type { GrantSource } from "../../application/authorizer.js";
import type { ResourceDefinition } from "../../application/resources.js";
import { UnknownUrlError } from "./http-errors.js";
import type { HttpServices } from "./http-services.js";
import { nextPageUrl, requesterOf } from "./record-routes.js";

/** The largest page of readers or objects a client may ask (`_limit` above it: 400). */
export const ACCESS_PAGE_MAX = 1000;
const ACCESS_PAGE_DEFAULT = 100;
const METHODS = ["GET"];
/** The resource whose records are the groups: who may read `/groups/<id>` sees the members of `group:<id>`. */
const GROUPS_RESOURCE = "groups";

export function registerAccessRoutes(router: Router, services: HttpServices, access: AccessService): void {
  const onlyGet = (ctx: Context) => {
    if (!METHODS.includes(ctx.method)) throw new MethodNotAllowedError(METHODS);
  };
  const target = (ctx: Context): { resource: ResourceDefinition; id: string } => {
    const params = ctx.params as Record<string, string | undefined>;
    const resource = services.resources.get(String(params.collection))?.definition;
    if (!resource) throw new UnknownUrlError();
    onlyGet(ctx);
    const id = String(params.id);
    if (!isValidRecordId(id)) throw ValidationError.single("path", "id", "Invalid object id");
    return { resource, id };
  };
  const paged = (ctx: Context, next: string | undefined, limit: number) => {
    if (next !== undefined) ctx.set("Next-Page", nextPageUrl(ctx, services, limit, next));
  };

  router.all("/permissions", async (ctx) => {
    onlyGet(ctx);
    const page = pageParams(ctx, services.options.paginateBy);
    const definitions = [...services.resources.values()].map((r) => r.definition);
    const result = await access.accessibleObjects(requesterOf(ctx), definitions, page);
    paged(ctx, result.nextToken, page.limit);
    ctx.body = {
      data: result.entries.map((entry) =>
        entry.tree === TREE_ROOT
          ? { uri: TREE_ROOT, resource_name: "root", permissions: [...entry.permissions] }
          : entry.tree
            ? treeEntry(entry.tree)
            : entry.id === undefined
              ? { id: entry.collection, resource_name: "collection", uri: `/${entry.collection}`, permissions: [...entry.permissions] }
              : {
                  id: entry.id,
                  collection_id: entry.collection,
                  resource_name: "record",
                  uri: `/${entry.collection}/${entry.id}`,
                  permissions: [...entry.permissions],
                },
      ),
    };
  });

  router.all("/:collection/:id/explain", async (ctx) => {
    const { resource, id } = target(ctx);
    const query = new URLSearchParams(ctx.querystring);
    const permission = query.get("permission") ?? "read";
    const explanation = await access.explain(requesterOf(ctx), resource, id, permission);
    ctx.body = { data: explanationBody(resource, explanation) };
  });

  router.all("/:collection/:id/readers", async (ctx) => {
    const { resource, id } = target(ctx);
    const page = pageParams(ctx, services.options.paginateBy);
    const groups = services.resources.get(GROUPS_RESOURCE)?.definition;
    const result = await access.readers(requesterOf(ctx), resource, id, page, groups);
    paged(ctx, result.nextToken, page.limit);
    ctx.body = {
      data: result.entries.map((reader) => ({
        principal: reader.principal,
        grants: reader.grants.map((g) => ({
          source: sourceName(resource, g.source, g.objectId),
          uri: g.objectId,
          permission: g.permission,
        })),
        through: [...reader.through],
      })),
    };
  });
}

/** `_limit` (default: `paginate_by`, else 100; 1 to ACCESS_PAGE_MAX) and `_token`. */
function pageParams(ctx: Context, paginateBy: number | undefined): PageParams {
  const query = new URLSearchParams(ctx.querystring);
  const given = query.get("_limit");
  const token = query.get("_token") ?? undefined;
  let limit = Math.min(paginateBy ?? ACCESS_PAGE_DEFAULT, ACCESS_PAGE_MAX);
  if (given !== null) {
    const value = /^\d{1,9}$/.test(given) ? Number(given) : NaN;
    if (!(value >= 1 && value <= ACCESS_PAGE_MAX))
      throw ValidationError.single("querystring", "_limit", `_limit must be an integer from 1 to ${ACCESS_PAGE_MAX}`);
    limit = paginateBy === undefined ? value : Math.min(value, paginateBy);
  }
  if (token !== undefined && token.length > 4096) throw ValidationError.single("querystring", "_token", "_token has invalid content");
  return token === undefined ? { limit } : { limit, token };
}

/** The grant's origin as the API names it: `settings`, `record`, `collection`, `acl` (another object) or `owner`. */
function sourceName(resource: ResourceDefinition, source: GrantSource, objectId: string): string {
  return source === "acl" && objectId === `/${resource.name}` ? "collection" : source;
}

function explanationBody(resource: ResourceDefinition, explanation: Explanation): JsonObject {
  const body: JsonObject = {
    permission: explanation.permission,
    uri: explanation.objectId,
    allowed: explanation.allowed,
    principals: [...explanation.principals],
    checked: explanation.checked.map((g) => ({ uri: g.objectId, permission: g.permission })),
    grants: explanation.held.map((grant): JsonObject => ({
      source: sourceName(resource, grant.source, grant.objectId),
      uri: grant.objectId,
      permission: grant.permission,
      ...(grant.setting === undefined ? {} : { setting: grant.setting }),
      principals: grant.through.map((t): JsonObject =>
        t.chain === undefined ? { principal: t.principal } : { principal: t.principal, chain: [...t.chain] },
      ),
    })),
  };
  if (explanation.policy) body.policy = { consulted_default: explanation.policy.consultedDefault };
  return body;
}

/** An object of the tree as Kinto's `/permissions` lists it: its URI's ids named by level (`bucket_id`, `record_id`...). */
function treeEntry(object: HeldTreeObject): JsonObject {
  const entry: JsonObject = { id: object.id, uri: object.uri, resource_name: object.level, bucket_id: object.bucket ?? object.id };
  if (object.level === "record") entry.collection_id = object.collection ?? "";
  if (object.level !== "bucket") entry[`${object.level}_id`] = object.id;
  entry.permissions = [...object.permissions];
  return entry;
}
