/**
 * Kinto's resource tree: buckets hold collections and groups, collections hold records. Every
 * object's id is its URI (`/buckets/b/collections/c/records/r`); a group's URI is also its
 * principal. A permission on an object is also granted by permissions on the objects containing
 * it (the inheritance below), so what a bucket's ACL grants reaches every record inside it.
 */
import { CREATE, READ, WRITE, type BoundPermission, type BoundPermissionsFn } from "./permissions.js";

export type TreeLevel = "bucket" | "collection" | "group" | "record";

export const COLLECTION_CREATE = "collection:create";
export const GROUP_CREATE = "group:create";
export const RECORD_CREATE = "record:create";

/** The permissions an object of each level keeps in its ACL. */
export const TREE_PERMISSIONS: Readonly<Record<TreeLevel, readonly string[]>> = {
  bucket: [READ, WRITE, COLLECTION_CREATE, GROUP_CREATE],
  collection: [READ, WRITE, RECORD_CREATE],
  group: [READ, WRITE],
  record: [READ, WRITE],
};

/** The path segment naming each level's objects under their parent (`/buckets/b/groups/g`). */
export const LEVEL_SEGMENT: Readonly<Record<TreeLevel, string>> = {
  bucket: "buckets",
  collection: "collections",
  group: "groups",
  record: "records",
};

/** Where objects of one level live: the ids of the bucket and collection above them. */
export interface TreePlace {
  readonly level: TreeLevel;
  readonly bucket?: string;
  readonly collection?: string;
}

export function bucketUri(bucket: string): string {
  return `/buckets/${bucket}`;
}

export function collectionUri(bucket: string, collection: string): string {
  return `${bucketUri(bucket)}/collections/${collection}`;
}

/** The URI of the objects' list (`/buckets/b/collections`): the prefix of each object's URI. */
export function pluralUri(place: TreePlace): string {
  const segment = LEVEL_SEGMENT[place.level];
  switch (place.level) {
    case "bucket":
      return `/${segment}`;
    case "collection":
    case "group":
      return `${bucketUri(place.bucket!)}/${segment}`;
    case "record":
      return `${collectionUri(place.bucket!, place.collection!)}/${segment}`;
  }
}

/** Which objects' permissions grant a permission: level of the granting object, and the permissions there. */
type Granters = ReadonlyArray<readonly [TreeLevel, readonly string[]]>;

const READERS: readonly string[] = [WRITE, READ];

/** Reading one bucket or collection (its attributes) is also allowed to who may create inside it. */
const READ_ATTRIBUTES = "read:attributes";

/** The inheritance on one object of a level (Kinto's table). */
const ON_OBJECT: Readonly<Record<TreeLevel, Readonly<Record<string, Granters>>>> = {
  bucket: {
    [WRITE]: [["bucket", [WRITE]]],
    [READ]: [["bucket", READERS]],
    [READ_ATTRIBUTES]: [["bucket", [WRITE, READ, COLLECTION_CREATE, GROUP_CREATE]]],
    [COLLECTION_CREATE]: [["bucket", [WRITE, COLLECTION_CREATE]]],
    [GROUP_CREATE]: [["bucket", [WRITE, GROUP_CREATE]]],
  },
  collection: {
    [WRITE]: [
      ["collection", [WRITE]],
      ["bucket", [WRITE]],
    ],
    [READ]: [
      ["collection", READERS],
      ["bucket", READERS],
    ],
    [READ_ATTRIBUTES]: [
      ["collection", [WRITE, READ, RECORD_CREATE]],
      ["bucket", READERS],
    ],
    [RECORD_CREATE]: [
      ["collection", [WRITE, RECORD_CREATE]],
      ["bucket", [WRITE]],
    ],
  },
  group: {
    [WRITE]: [
      ["group", [WRITE]],
      ["bucket", [WRITE]],
    ],
    [READ]: [
      ["group", READERS],
      ["bucket", READERS],
    ],
  },
  record: {
    [WRITE]: [
      ["record", [WRITE]],
      ["collection", [WRITE]],
      ["bucket", [WRITE]],
    ],
    [READ]: [
      ["record", READERS],
      ["collection", READERS],
      ["bucket", READERS],
    ],
  },
};

/** Creating an object of a level: the permission on its parent (and `write` there or above). */
const CREATE_ON_PARENT: Readonly<Record<Exclude<TreeLevel, "bucket">, Granters>> = {
  collection: [["bucket", [WRITE, COLLECTION_CREATE]]],
  group: [["bucket", [WRITE, GROUP_CREATE]]],
  record: [
    ["collection", [WRITE, RECORD_CREATE]],
    ["bucket", [WRITE]],
  ],
};

const LEVEL_OF_SEGMENT: Readonly<Record<string, TreeLevel>> = {
  buckets: "bucket",
  collections: "collection",
  groups: "group",
  records: "record",
};

/** The level and the URIs of every object along a tree URI (`*` accepted as a last id). */
interface ParsedUri {
  readonly level: TreeLevel;
  /** True for a list URI (`/buckets/b/collections`), false for an object or a `*` pattern. */
  readonly plural: boolean;
  readonly uris: Partial<Record<TreeLevel, string>>;
}

function parseTreeUri(objectId: string): ParsedUri | undefined {
  // One pass over the slashes: this runs several times per request on a record of the tree.
  const uris: Partial<Record<TreeLevel, string>> = {};
  let level: TreeLevel | undefined;
  let segments = 0;
  let start = 1;
  while (start <= objectId.length) {
    const end = objectId.indexOf("/", start);
    const stop = end === -1 ? objectId.length : end;
    if (segments % 2 === 0) {
      level = LEVEL_OF_SEGMENT[objectId.slice(start, stop)];
      if (!level) return undefined;
    } else uris[level!] = objectId.slice(0, stop);
    segments++;
    if (end === -1) break;
    start = end + 1;
  }
  if (!level) return undefined;
  return { level, plural: segments % 2 === 1, uris };
}

/** The object a tree URI names (`/buckets/b/collections/c`), or undefined for a list URI or another URI. */
export function treeObjectOf(uri: string): (TreePlace & { readonly id: string }) | undefined {
  const parts = uri.split("/").slice(1);
  if (parts.length % 2 !== 0 || parts.length === 0 || parts.length > 6) return undefined;
  const level = LEVEL_OF_SEGMENT[parts[parts.length - 2]!];
  const shapes: Readonly<Record<TreeLevel, string>> = {
    bucket: "buckets",
    collection: "buckets/collections",
    group: "buckets/groups",
    record: "buckets/collections/records",
  };
  if (!level || parts.filter((_, i) => i % 2 === 0).join("/") !== shapes[level]) return undefined;
  return { level, bucket: parts[1], collection: level === "record" ? parts[3] : undefined, id: parts[parts.length - 1]! };
}

/** The permissions `held` directly on an object of `level` give on that same object (write gives read, ...). */
export function impliedOnObject(level: TreeLevel, held: ReadonlySet<string>): string[] {
  const implied = new Set(held);
  for (const [permission, granters] of Object.entries(ON_OBJECT[level]))
    if (granters.some(([from, perms]) => from === level && perms.some((p) => held.has(p)))) implied.add(permission);
  return [...implied].sort();
}

/**
 * Kinto's inheritance as bound permissions: on an object (or a `/*` pattern of objects), the
 * grants of the table above; on a list URI (`/buckets/b/collections/c/records`), the grants on the
 * parent: `create` by the parent's create permission, `read`/`write` (listing, deleting all) by
 * the parent's. `/buckets` is granted by settings alone: the grant names `/buckets` itself.
 */
export const treeBoundPermissions: BoundPermissionsFn = (objectId, permission) => {
  const parsed = parseTreeUri(objectId);
  if (!parsed) return [];
  if (parsed.plural) {
    if (parsed.level === "bucket") return [{ objectId, permission }];
    if (permission === CREATE) return expand(CREATE_ON_PARENT[parsed.level], parsed.uris);
    const parent = parsed.level === "record" ? "collection" : "bucket";
    const inherited = ON_OBJECT.record[permission === WRITE ? WRITE : READ]!.filter(([level]) => level !== "record" && level !== parent);
    const own = permission === WRITE ? [WRITE] : READERS;
    return expand([[parent, own], ...inherited], parsed.uris);
  }
  const table = ON_OBJECT[parsed.level];
  const granters = (permission === READ ? table[READ_ATTRIBUTES] : undefined) ?? table[permission];
  if (!granters) return [{ objectId, permission }];
  return expand(granters, { ...parsed.uris, [parsed.level]: objectId });
};

function expand(granters: Granters, uris: Partial<Record<TreeLevel, string>>): BoundPermission[] {
  const bound: BoundPermission[] = [];
  for (const [level, permissions] of granters) {
    const uri = uris[level];
    if (uri !== undefined) for (const permission of permissions) bound.push({ objectId: uri, permission });
  }
  return bound;
}
