/**
 * SharedRecords over any RecordStore and PermissionStore (memory, Redis, or PostgreSQL
 * permissions in another database than the records): no snapshot joins the two, so
 *
 * - a record and its ACL read apart are paired by version (acl-version.ts);
 * - a write goes record first (inside the unit of work's transaction where the storage has
 *   one), then its ACL, stamped with the record's new version: a refused or failed record write
 *   leaves the permission backend untouched, a failed ACL write rolls the record back, and an
 *   ACL written before a rollback is put back as it was (compensation); without a transaction
 *   the ACL is marked in flight first, so readers wait rather than pair a wrong ACL;
 * - a restricted view resolves the caller's record ids through the permission backend first,
 *   but for a listing from a position, started from the changes since (changes-first-listing.ts).
 */
import type { JsonObject } from "../../domain/json.js";
import { READ, type BoundPermission } from "../../domain/permissions.js";
import type { RecordOrTombstone, StoredRecord, Tombstone } from "../../domain/records.js";
import { MODIFIED_FIELD, type CountQuery, type ListQuery, type RecordAccess } from "../listing.js";
import type { ObjectPermissions, PermissionStore } from "../ports/permission-store.js";
import type { AccessJournal } from "../ports/access-journal.js";
import type { ConditionalWriteOptions, RecordStore, Scope, WriteOptions } from "../ports/record-store.js";
import {
  lostBetween,
  readersOf,
  type AclChange,
  type AclEntries,
  type ChangeRange,
  type ChangeReaders,
  type ChangesWithAcls,
  type Grants,
  type InheritedAcls,
  type RecordAcls,
  type RecordSelection,
  type SharedRead,
  type SharedRecords,
  type SharedWrite,
} from "../ports/shared-records.js";
import type { UnitOfWork } from "../ports/unit-of-work.js";
import { DEFAULT_CHANGES_WINDOW, restrictedList, type ChangesFirstDeps, type ChangesWindow } from "./changes-first-listing.js";
import { ACL_VERSION, aclOfVersion, pairingPermissions, PENDING, replacingStamp, versionStamp } from "./acl-version.js";
import { grantedIds } from "./granted-ids.js";
import { forgetAclsOfDeleted, recordLosses, removeAcls } from "./record-losses.js";
import { readsVersion } from "./restricted-view.js";

/** Reads of a record and its ACL before a persistent mismatch is decided on no record grant. */
const PAIRING_ATTEMPTS = 6;
const PAIRING_PAUSE_MS = 1;

export class PortableSharedRecords implements SharedRecords {
  readonly aclMayTrailRecord = true;

  constructor(
    private readonly records: RecordStore,
    private readonly journal: AccessJournal,
    private readonly permissions: PermissionStore,
    private readonly unitOfWork: UnitOfWork,
    private readonly changesWindow: ChangesWindow = DEFAULT_CHANGES_WINDOW,
  ) {}

  /**
   * The record first, then its ACL and the caller's principals (together): both are read after
   * the record, so a revoke answered before that version was written (an ACE removed, a group
   * left) is in them. Read alongside the record, an ACL or principals from before the revoke
   * could be paired with a version written after it (the "new enemy"). Met with an ACL stamped
   * above the record (a write in flight, or whose writer died before its commit), read again at
   * once with the copy of the ACL that write replaced, which the record's version keeps; then,
   * while a mark of a write in flight lasts, again after a pause; when that lasts, no ACL: it
   * grants nothing.
   */
  async read(scope: Scope, id: string, acls: RecordAcls, principalsOf: string | undefined): Promise<SharedRead> {
    const objectId = acls.objectIdPrefix + id;
    // The copy is read only when the stamps call for it (it is rarely there to be used).
    const stamped = [...acls.permissions, ACL_VERSION];
    const withCopy = [...acls.permissions, ...pairingPermissions(acls.permissions)];
    const inherited = acls.inherited ?? [];
    for (let attempt = 1; ; attempt++) {
      const record = await this.records.get(scope, id);
      const [stored, principals, others] = await Promise.all([
        this.permissions.objectPermissions(objectId, attempt === 1 ? stamped : withCopy),
        principalsOf === undefined ? undefined : this.permissions.userPrincipals(principalsOf),
        inherited.length === 0
          ? undefined
          : this.permissions.manyObjectPermissions(
              [...new Set(inherited.map((g) => g.objectId))],
              [...new Set(inherited.map((g) => g.permission))],
            ),
      ]);
      const acl = aclOfVersion(stored, record ? record.lastModified : Number.MAX_SAFE_INTEGER);
      if (acl || attempt === PAIRING_ATTEMPTS)
        return { record, acl, principals, ...(others ? { inherited: asked(inherited, others) } : {}) };
      if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, PAIRING_PAUSE_MS * 2 ** attempt));
    }
  }

  async create(
    scope: Scope,
    id: string,
    data: JsonObject,
    options: WriteOptions,
    acls: RecordAcls,
    acl: AclEntries,
  ): Promise<StoredRecord> {
    const objectId = acls.objectIdPrefix + id;
    const { written } = await this.recordThenAcl(scope, () => this.records.create(scope, id, data, options), {
      write: async (version) => {
        await this.permissions.replaceObjectPermissions(objectId, { ...acl, ...versionStamp(version) });
        return [];
      },
      undo: () => this.permissions.replaceObjectPermissions(objectId, { ...emptied(acl), ...versionStamp(undefined) }),
      objectId,
      previousVersion: undefined,
      marks: true,
    });
    return written;
  }

  update(
    scope: Scope,
    id: string,
    data: JsonObject,
    options: ConditionalWriteOptions,
    acls: RecordAcls,
    change: AclChange | undefined,
  ): Promise<SharedWrite<StoredRecord>> {
    const writeRecord = () => this.records.update(scope, id, data, options);
    if (!change) return writeRecord().then((written) => ({ written, lost: [] }));
    const objectId = acls.objectIdPrefix + id;
    return this.recordThenAcl(scope, writeRecord, {
      write: async (version) => {
        // With a copy of the ACL it replaces: the record's version keeps it should the write never commit.
        await this.permissions.replaceObjectPermissions(objectId, {
          ...change.acl,
          ...replacingStamp(version, change.previous, change.previousVersion, change.acl),
        });
        return lostBetween(acls.readPermissions(objectId), change.previous, change.acl);
      },
      undo: () => this.permissions.replaceObjectPermissions(objectId, { ...change.previous, ...versionStamp(change.previousVersion) }),
      objectId,
      previousVersion: change.previousVersion,
      marks: true,
    });
  }

  delete(
    scope: Scope,
    id: string,
    options: ConditionalWriteOptions,
    acls: RecordAcls,
    previous: { readonly acl: AclEntries; readonly version: number },
  ): Promise<SharedWrite<Tombstone>> {
    const objectId = acls.objectIdPrefix + id;
    return this.recordThenAcl(scope, () => this.records.delete(scope, id, options), {
      write: async () => (await removeAcls(this.permissions, acls, [id])).get(id) ?? [],
      undo: () => this.permissions.replaceObjectPermissions(objectId, { ...previous.acl, ...versionStamp(previous.version) }),
      objectId,
      previousVersion: previous.version,
      marks: false,
    });
  }

  select(acls: RecordAcls, grants: Grants | undefined): Promise<RecordSelection> {
    const { records, permissions, unitOfWork } = this;
    // Every id the caller may read: resolved once, and only by a view that needs them all.
    let resolved: Promise<RecordAccess> | undefined;
    const everyGranted = (reach: Grants) =>
      (resolved ??= grantedIds(this.permissions, acls, reach).then((ids) => ({ ids, principals: reach.principals })));
    const restricted = async <Q extends CountQuery>(query: Q): Promise<Q> =>
      grants ? { ...query, access: await everyGranted(grants) } : query;
    // A listing from a position (`_since`) starts from what changed since: its cost follows the changes.
    const fromChanges: ChangesFirstDeps | undefined = grants && {
      records,
      journal: this.journal,
      principals: grants.principals,
      readable: (ids) => this.readableAmong(ids, acls, grants),
      granted: () => everyGranted(grants),
      window: this.changesWindow,
    };
    return Promise.resolve({
      list: (scope: Scope, query: ListQuery) => (fromChanges ? restrictedList(fromChanges, scope, query) : records.list(scope, query)),
      count: async (scope: Scope, query: CountQuery) => records.count(scope, await restricted(query)),
      deleteMany: async (scope: Scope, query: CountQuery) => {
        const reached = await restricted(query);
        return unitOfWork.run(async () => {
          const deleted = await records.deleteMany(scope, reached);
          await forgetAclsOfDeleted(this.journal, permissions, acls, scope, deleted);
          return deleted;
        });
      },
    });
  }

  /**
   * With `readers` who read at most a page of records now (the ids their ACEs name, asked of the
   * permission backend as a restricted listing does), the page is read among those ids: its cost
   * follows what they read, not every change. More readable ids than a page: every change, as
   * without `readers` (an id list that long costs more than the changes it would spare).
   */
  async changes(scope: Scope, range: ChangeRange, acls: RecordAcls, withAcls: boolean, readers?: ChangeReaders): Promise<ChangesWithAcls> {
    const ids = withAcls && readers ? await this.fewReadable(acls, readers, range.limit) : undefined;
    const entries = await this.records.list(scope, {
      filters: [{ field: MODIFIED_FIELD, operator: "gt", value: range.after }],
      sort: [{ field: MODIFIED_FIELD, descending: false }],
      limit: range.limit,
      upTo: range.upTo,
      includeDeleted: true,
      ...(ids ? { access: { ids } } : {}),
    });
    return { entries, acls: withAcls ? await this.aclsOfVersions(entries, acls) : new Map(), narrowed: ids !== undefined };
  }

  /** The ids whose ACL gives one of the readers' permissions to one of their principals, when at most `limit`. */
  private async fewReadable(acls: RecordAcls, readers: ChangeReaders, limit: number): Promise<string[] | undefined> {
    // Grants matching exactly these ACE permissions on the records (no collection-level pair).
    const ids = await grantedIds(this.permissions, acls, {
      principals: readers.principals,
      permission: READ,
      boundPermissions: (objectId) => readers.permissions.map((permission) => ({ objectId, permission })),
      permissions: readers.permissions,
    });
    return ids.length <= limit ? ids : undefined;
  }

  currentAcls(ids: readonly string[], acls: RecordAcls): Promise<Map<string, ObjectPermissions>> {
    return manyAcls(this.permissions, acls, ids);
  }

  /**
   * The ACLs read after the versions, with their stamps, kept only where they pair with the
   * version read; those stamped above it are read again with the copy of the ACL they replaced.
   */
  async aclsOfVersions(versions: readonly RecordOrTombstone[], acls: RecordAcls): Promise<Map<string, ObjectPermissions>> {
    const paired = new Map<string, ObjectPermissions>();
    const pair = (stored: Map<string, ObjectPermissions>, among: readonly RecordOrTombstone[]) =>
      among.filter((version) => {
        const acl = aclOfVersion(stored.get(version.id) ?? {}, version.lastModified);
        if (acl) paired.set(version.id, acl);
        return !acl;
      });
    const ids = versions.map((v) => v.id);
    const ahead = pair(await manyAcls(this.permissions, acls, ids, [ACL_VERSION]), versions);
    if (ahead.length > 0) {
      const aheadIds = ahead.map((v) => v.id);
      // The copy of every permission the first read asked (manyAcls adds each record's read permissions).
      const firstRead = new Set([...acls.permissions, ...aheadIds.flatMap((id) => acls.readPermissions(acls.objectIdPrefix + id))]);
      pair(await manyAcls(this.permissions, acls, aheadIds, pairingPermissions([...firstRead])), ahead);
    }
    return paired;
  }

  /**
   * The ids among `ids` whose ACL, as it is now, gives one of the grants' permissions to one of
   * its principals: the rule of grantedIds, on a few ACLs read in one batch.
   */
  private async readableAmong(ids: readonly string[], acls: RecordAcls, grants: Grants): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const found = await manyAcls(this.permissions, acls, ids, grants.permissions);
    const principals = new Set(grants.principals);
    return new Set(ids.filter((id) => readsVersion(principals, readersOf(grants.permissions, found.get(id) ?? {}))));
  }

  /**
   * The record write, then its ACL write, in one unit of work (a transaction where the storage
   * has one); who lost read by the ACL write lost it at the record write's own timestamp.
   */
  private recordThenAcl<R extends { readonly id: string; readonly lastModified: number }>(
    scope: Scope,
    writeRecord: () => Promise<R>,
    acl: {
      readonly write: (version: number) => Promise<readonly string[]>;
      readonly undo: () => Promise<void>;
      readonly objectId: string;
      readonly previousVersion: number | undefined;
      /** The record becomes visible before its ACL is rewritten: mark the ACL in flight first. */
      readonly marks: boolean;
    },
  ): Promise<SharedWrite<R>> {
    const { unitOfWork, permissions } = this;
    return unitOfWork.run(async () => {
      // Without a transaction the record is visible at once: its ACL is marked in flight first.
      const marked = acl.marks && !unitOfWork.atomic;
      const stampOnly = (version: number | undefined) => permissions.replaceObjectPermissions(acl.objectId, versionStamp(version));
      if (marked) await stampOnly(PENDING);
      const written = await writeRecord().catch(async (error: unknown) => {
        if (marked) await stampOnly(acl.previousVersion);
        throw error;
      });
      // Registered before writing: a write whose reply was lost may still have happened.
      unitOfWork.onRollback?.(acl.undo);
      const lost = await acl.write(written.lastModified);
      await recordLosses(this.journal, scope, [{ id: written.id, lastModified: written.lastModified, principals: lost }]);
      return { written, lost };
    });
  }
}

/** Every permission of `acl` emptied: what was there before a create. */
function emptied(acl: AclEntries): AclEntries {
  return Object.fromEntries(Object.keys(acl).map((permission) => [permission, []]));
}

/**
 * Per record id, its ACL (the resource's permissions, those granting read on it, and `extra`):
 * one read per distinct set of permissions, which the records of one resource share.
 */
export async function manyAcls(
  permissions: PermissionStore,
  acls: RecordAcls,
  ids: readonly string[],
  extra: readonly string[] = [],
): Promise<Map<string, ObjectPermissions>> {
  const groups = new Map<string, { permissions: string[]; objects: Map<string, string> }>();
  for (const id of ids) {
    const objectId = acls.objectIdPrefix + id;
    const wanted = [...new Set([...acls.permissions, ...acls.readPermissions(objectId), ...extra])];
    const key = JSON.stringify(wanted);
    let group = groups.get(key);
    if (!group) {
      group = { permissions: wanted, objects: new Map() };
      groups.set(key, group);
    }
    group.objects.set(id, objectId);
  }
  const found = new Map<string, ObjectPermissions>();
  for (const group of groups.values()) {
    const read = await permissions.manyObjectPermissions([...group.objects.values()], group.permissions);
    for (const [id, objectId] of group.objects) found.set(id, read.get(objectId) ?? {});
  }
  return found;
}

/** The ACLs read for these grants, every permission asked a key (an empty set when none holds it). */
function asked(grants: readonly BoundPermission[], read: ReadonlyMap<string, ObjectPermissions>): InheritedAcls {
  const acls = new Map<string, ObjectPermissions>();
  for (const { objectId, permission } of grants) {
    const acl = acls.get(objectId) ?? {};
    acl[permission] = new Set(read.get(objectId)?.[permission] ?? []);
    acls.set(objectId, acl);
  }
  return acls;
}
