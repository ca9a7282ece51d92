/**
 * Who may publish posts. Publishing is a PATCH (the `update` view requires `publish`); authors
 * keep `write` on their posts, so they may rewrite (PUT) and delete them, but not PATCH them.
 */
import { defaultBoundPermissions, type BoundPermission, type BoundPermissionsFn } from "../../src/domain/permissions.js";
import type { AuthorizationPolicy, ViewName } from "../../src/application/resources.js";

export const PUBLISH = "publish";

/** The view mapping of the posts resource: PATCH is the editorial action. */
export const POST_VIEW_PERMISSIONS: Readonly<Partial<Record<ViewName, string>>> = { update: PUBLISH };

/**
 * The root factory. `publish` on a post is granted by `publish` on the post or on the collection,
 * or by `write` on the collection. Whoever may publish every post may also read every post
 * (editors review drafts). The rest follows Tessera's defaults.
 */
export const postBoundPermissions: BoundPermissionsFn = (objectId, permission) => {
  const collection = objectId.split("/").slice(0, 2).join("/");
  const isRecord = collection !== objectId;
  if (permission === PUBLISH) {
    const grants: BoundPermission[] = [
      { objectId: collection, permission: PUBLISH },
      { objectId: collection, permission: "write" },
    ];
    return isRecord ? [{ objectId, permission: PUBLISH }, ...grants] : grants;
  }
  const bound = defaultBoundPermissions(objectId, permission);
  return permission === "read" ? [...bound, { objectId: collection, permission: PUBLISH }] : bound;
};

/**
 * Publishing must be attributable: `publish` is never granted to anonymous callers, whatever a
 * setting or a post's permissions say. Every other decision is Tessera's default one.
 */
export const publishingPolicy: AuthorizationPolicy = {
  async permits(request, defaultDecision) {
    if (request.permission === PUBLISH && request.caller.userId === undefined) return false;
    return defaultDecision();
  },
};
