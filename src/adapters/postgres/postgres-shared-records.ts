/**
 * SharedRecords where the records and the permission backend's ACEs live in one PostgreSQL
 * database (docs/adr/0014): a read is one statement (record, ACL, principals; concurrent reads
 * go in bursts, ADR 13), a create with its ACL is one statement shared by the creates of its
 * group commit (ADR 10), a write's ACL goes first and its lost access is recorded in the same
 * transaction, restricted views join the grants in the listing's statement (ADR 2, 8), and the
 * live feed reads a page of changes with their ACLs in one statement (one snapshot).
 */
import { MODIFIED_FIELD, type CountQuery, type ListQuery } from "../../application/listing.js";
import { DEFAULT_GROUP_MAX_DEPTH, type ObjectPermissions, type PermissionStore } from "../../application/ports/permission-store.js";
import type { AccessJournal } from "../../application/ports/access-journal.js";
import type { ConditionalWriteOptions, RecordStore, Scope, WriteOptions } from "../../application/ports/record-store.js";
import {
  lostBetween,
  type AclChange,
  type AclEntries,
  type ChangeRange,
  type ChangeReaders,
  type ChangesWithAcls,
  type Grants,
  type RecordAcls,
  type RecordSelection,
  type SharedRead,
  type SharedRecords,
  type SharedWrite,
} from "../../application/ports/shared-records.js";
import type { UnitOfWork } from "../../application/ports/unit-of-work.js";
import { manyAcls } from "../../application/shared-records/portable-shared-records.js";
import { forgetAclsOfDeleted, recordLosses, removeAcls } from "../../application/shared-records/record-losses.js";
import type { JsonObject } from "../../domain/json.js";
import type { RecordOrTombstone, StoredRecord, Tombstone } from "../../domain/records.js";
import type { JoinedGrants } from "./joined-grants.js";
import type { PostgresDatabase } from "./postgres-database.js";
import { PostgresPermissionStore } from "./postgres-permission-store.js";
import { PostgresRecordWithAclReader } from "./postgres-record-with-acl-reader.js";
import type { PostgresRecordStore } from "./postgres-record-store.js";

/** What this class asks of the record store: PostgresRecordStore's statements that join the ACEs. */
export type JoinedRecordStore = RecordStore &
  Pick<PostgresRecordStore, "createWithAcl" | "list" | "count" | "deleteMany" | "changesWithAcls">;

export class PostgresSharedRecords implements SharedRecords {
  readonly aclMayTrailRecord = false;

  /**
   * Everything on one database: `permissions` and `unitOfWork` on the one of `records`, so a
   * unit of work given a scope joins that scope's group commit with the ACE writes in it.
   */
  constructor(
    private readonly reader: Pick<PostgresRecordWithAclReader, "getWithAcl">,
    private readonly records: JoinedRecordStore,
    private readonly journal: AccessJournal,
    private readonly permissions: PermissionStore,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  /** Over the PostgreSQL adapters of one database; `groupMaxDepth` as the permission store's (`group_max_depth`). */
  static on(
    database: PostgresDatabase,
    records: PostgresRecordStore,
    journal: AccessJournal,
    unitOfWork: UnitOfWork,
    groupMaxDepth = DEFAULT_GROUP_MAX_DEPTH,
  ): PostgresSharedRecords {
    return new PostgresSharedRecords(
      new PostgresRecordWithAclReader(database, groupMaxDepth),
      records,
      journal,
      new PostgresPermissionStore(database, groupMaxDepth),
      unitOfWork,
    );
  }

  read(scope: Scope, id: string, acls: RecordAcls, principalsOf: string | undefined): Promise<SharedRead> {
    const { inherited } = acls;
    const query = { objectId: acls.objectIdPrefix + id, permissions: acls.permissions, principalsOf };
    return this.reader.getWithAcl(scope, id, inherited ? { ...query, inherited } : query);
  }

  create(scope: Scope, id: string, data: JsonObject, options: WriteOptions, acls: RecordAcls, acl: AclEntries): Promise<StoredRecord> {
    return this.records.createWithAcl(scope, id, data, options, { objectId: acls.objectIdPrefix + id, permissions: acl });
  }

  async update(
    scope: Scope,
    id: string,
    data: JsonObject,
    options: ConditionalWriteOptions,
    acls: RecordAcls,
    change: AclChange | undefined,
  ): Promise<SharedWrite<StoredRecord>> {
    if (!change) return { written: await this.records.update(scope, id, data, options), lost: [] };
    const objectId = acls.objectIdPrefix + id;
    return this.aclThenRecord(
      scope,
      async () => {
        await this.permissions.replaceObjectPermissions(objectId, change.acl);
        return lostBetween(acls.readPermissions(objectId), change.previous, change.acl);
      },
      () => this.records.update(scope, id, data, options),
    );
  }

  delete(scope: Scope, id: string, options: ConditionalWriteOptions, acls: RecordAcls): Promise<SharedWrite<Tombstone>> {
    return this.aclThenRecord(
      scope,
      async () => (await removeAcls(this.permissions, acls, [id])).get(id) ?? [],
      () => this.records.delete(scope, id, options),
    );
  }

  select(acls: RecordAcls, grants: Grants | undefined): Promise<RecordSelection> {
    const { records, journal, permissions, unitOfWork } = this;
    const joined: JoinedGrants | undefined = grants && {
      principals: grants.principals,
      permissions: grants.permissions,
      objectIdPrefix: acls.objectIdPrefix,
    };
    return Promise.resolve({
      list: (scope: Scope, query: ListQuery) => records.list(scope, query, joined),
      count: (scope: Scope, query: CountQuery) => records.count(scope, query, joined),
      deleteMany: (scope: Scope, query: CountQuery) =>
        unitOfWork.run(async () => {
          const deleted = await records.deleteMany(scope, query, joined);
          await forgetAclsOfDeleted(journal, permissions, acls, scope, deleted);
          return deleted;
        }),
    });
  }

  /** With `readers`, the versions none of them reads are left out in the statement (the joined grants of a restricted listing). */
  async changes(scope: Scope, range: ChangeRange, acls: RecordAcls, withAcls: boolean, readers?: ChangeReaders): Promise<ChangesWithAcls> {
    if (withAcls) return this.records.changesWithAcls(scope, range, acls, readers && { ...readers, objectIdPrefix: acls.objectIdPrefix });
    const entries = await this.records.list(scope, {
      filters: [{ field: MODIFIED_FIELD, operator: "gt", value: range.after }],
      sort: [{ field: MODIFIED_FIELD, descending: false }],
      limit: range.limit,
      upTo: range.upTo,
      includeDeleted: true,
    });
    return { entries, acls: new Map() };
  }

  currentAcls(ids: readonly string[], acls: RecordAcls): Promise<Map<string, ObjectPermissions>> {
    return manyAcls(this.permissions, acls, ids);
  }

  /** An ACL commits with its record here: the ACL read now is the one of every committed version not rewritten since. */
  aclsOfVersions(versions: readonly RecordOrTombstone[], acls: RecordAcls): Promise<Map<string, ObjectPermissions>> {
    return manyAcls(
      this.permissions,
      acls,
      versions.map((v) => v.id),
    );
  }

  /**
   * The ACL first, then the record, in one transaction that joins the scope's group commit: the
   * record write takes the scope's timestamp lock, held until commit, so it comes last. Who lost
   * read lost it at the record write's own timestamp, recorded in the same transaction.
   */
  private aclThenRecord<R extends { readonly id: string; readonly lastModified: number }>(
    scope: Scope,
    writeAcl: () => Promise<readonly string[]>,
    writeRecord: () => Promise<R>,
  ): Promise<SharedWrite<R>> {
    return this.unitOfWork.run(async () => {
      const lost = await writeAcl();
      const written = await writeRecord();
      await recordLosses(this.journal, scope, [{ id: written.id, lastModified: written.lastModified, principals: lost }]);
      return { written, lost };
    }, scope);
  }
}
