/**
 * Object ids, permissions and bound permissions.
 * A collection's object id is `/<collection>`, a record's `/<collection>/<id>`; a pattern may end
 * in `/*` to mean every record of a collection.
 */
export const READ = "read";
export const WRITE = "write";
export const CREATE = "create";

/** A permission on one object id (or object id pattern). */
export interface BoundPermission {
  readonly objectId: string;
  readonly permission: string;
}

/** Which bound permissions grant a given one: `get_bound_permissions` of the spec. */
export type BoundPermissionsFn = (objectId: string, permission: string) => BoundPermission[];

/** The pairs a permission backend looks up: the bound ones, or just the pair itself. */
export function boundPairs(objectId: string, permission: string, getBoundPermissions?: BoundPermissionsFn): BoundPermission[] {
  return getBoundPermissions ? getBoundPermissions(objectId, permission) : [{ objectId, permission }];
}

export function collectionObjectId(collection: string): string {
  return `/${collection}`;
}

export function recordObjectId(collection: string, id: string): string {
  return `/${collection}/${id}`;
}

/** `/articles/*`: every record of a collection, as an `object_id_match` pattern. */
export function recordsPattern(collection: string): string {
  return `/${collection}/*`;
}

/** The id of a record from its object id, or undefined when it is not a record of `collection`. */
export function recordIdOf(collection: string, objectId: string): string | undefined {
  const prefix = `/${collection}/`;
  if (!objectId.startsWith(prefix)) return undefined;
  const id = objectId.slice(prefix.length);
  return id.length > 0 && !id.includes("/") ? id : undefined;
}

/**
 * Tessera's inheritance rules (api-contract §5):
 * - on a record (or record pattern): P is granted by P on the record or on its collection;
 *   `read` is also granted by `write` on either;
 * - on a collection: P is granted by P on it; `read` and `create` also by `write`.
 */
export const defaultBoundPermissions: BoundPermissionsFn = (objectId, permission) => {
  const segments = objectId.split("/");
  const isRecord = segments.length > 2;
  const collection = isRecord ? segments.slice(0, 2).join("/") : objectId;
  const implied = permission === WRITE ? [WRITE] : permission === READ || permission === CREATE ? [permission, WRITE] : [permission];
  const bound: BoundPermission[] = [];
  if (isRecord) {
    for (const p of implied) if (p !== CREATE) bound.push({ objectId, permission: p });
  }
  for (const p of implied) bound.push({ objectId: collection, permission: p });
  return bound;
};
