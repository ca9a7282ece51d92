/**
 * RecordAclEditor (what extensions get as `ExtensionContext.acls`) over the memory adapters and
 * the portable SharedRecords: an ACL change is a write of the record, whoever lost read lost it
 * at that write's own timestamp, the write is announced, a concurrent writer is read again, and
 * nothing is written for a missing record or an unchanged ACL. The memory clock stands still at
 * 100, so each write of the scope takes the next integer.
 */
import { expect } from "chai";
import { PreconditionFailedError } from "../../src/domain/errors.js";
import type { JsonObject } from "../../src/domain/json.js";
import type { StoredRecord } from "../../src/domain/records.js";
import { Authorizer } from "../../src/application/authorizer.js";
import { ChangeEvents, CommittedChanges, type ResourceChanged } from "../../src/application/events.js";
import { resourceKinds } from "../../src/application/kinds/resource-kinds.js";
import type { ConditionalWriteOptions, Scope } from "../../src/application/ports/record-store.js";
import type { ResourceDefinition } from "../../src/application/resources.js";
import { PortableSharedRecords } from "../../src/application/shared-records/portable-shared-records.js";
import { RecordAclEditor } from "../../src/application/shared-records/record-acl-editor.js";
import { MemoryPermissionStore } from "../../src/adapters/memory/memory-permission-store.js";
import { MemoryRecordStore, memoryStorage } from "../../src/adapters/memory/memory-record-store.js";
import type { MemoryAccessJournal } from "../../src/adapters/memory/memory-access-journal.js";
import { DirectUnitOfWork } from "../../src/adapters/system/direct-unit-of-work.js";
import { expectRejection } from "../support/rejection.js";

const articles: ResourceDefinition = { name: "articles", kind: "shareable", permissions: ["read", "write"], settingsPrincipals: {} };
const notes: ResourceDefinition = { name: "notes", kind: "user", permissions: ["read", "write"], settingsPrincipals: {} };
const scope: Scope = { collection: "articles", parentId: "" };

/** A memory store that can let another writer in after its next read, or fail updates with contention every time. */
class ContendedRecords extends MemoryRecordStore {
  updates = 0;
  /** Runs once, after the next read and before it answers: a writer getting there first. */
  afterRead: (() => Promise<unknown>) | undefined;
  alwaysContended = false;

  override async get(at: Scope, id: string): Promise<StoredRecord | undefined> {
    const found = await super.get(at, id);
    const afterRead = this.afterRead;
    this.afterRead = undefined;
    await afterRead?.();
    return found;
  }

  override async update(at: Scope, id: string, data: JsonObject, options?: ConditionalWriteOptions): Promise<StoredRecord> {
    this.updates += 1;
    if (this.alwaysContended && options?.ifMatch !== undefined) throw new PreconditionFailedError(null);
    return super.update(at, id, data, options);
  }
}

describe("RecordAclEditor (ExtensionContext.acls)", () => {
  let records: ContendedRecords;
  let journal: MemoryAccessJournal;
  let permissions: MemoryPermissionStore;
  let editor: RecordAclEditor;
  let announced: ResourceChanged[];

  /** The record's stored ACL, principals sorted, empty permissions left out. */
  async function aclOf(id: string): Promise<Record<string, string[]>> {
    const found = await permissions.objectPermissions(`/articles/${id}`, ["read", "write"]);
    return Object.fromEntries(
      Object.entries(found)
        .filter(([, principals]) => principals.size > 0)
        .map(([p, principals]) => [p, [...principals].sort()]),
    );
  }

  /** A record of articles with an ACL, written as the service writes one. */
  async function put(id: string, data: JsonObject, acl: Record<string, string[]>): Promise<StoredRecord> {
    const shared = new PortableSharedRecords(records, journal, permissions, new DirectUnitOfWork());
    const full = { read: [], write: [], ...acl };
    return shared.create(
      scope,
      id,
      data,
      {},
      resourceKinds({ authorizer: new Authorizer(permissions) }).shareable.recordAcls(articles)!,
      full,
    );
  }

  beforeEach(() => {
    ({ records, journal } = memoryStorage({ now: () => 100 }, ContendedRecords));
    permissions = new MemoryPermissionStore();
    announced = [];
    const events = new ChangeEvents(() => undefined);
    events.onResourceChanged((event) => void announced.push(event));
    const unitOfWork = new DirectUnitOfWork();
    editor = new RecordAclEditor({
      shared: new PortableSharedRecords(records, journal, permissions, unitOfWork),
      kinds: resourceKinds({ authorizer: new Authorizer(permissions) }),
      resource: (name) => [articles, notes].find((r) => r.name === name),
      changes: new CommittedChanges(events, unitOfWork),
    });
  });

  it("records a revoked reader's loss at the record's new version, its data unchanged, and announces the update", async () => {
    const created = await put("a1", { n: 1 }, { read: ["bob", "carol"], write: ["alice"] }); // 100
    const written = await editor.revoke("articles", "a1", "read", "bob");
    expect(written?.lastModified).to.equal(101);
    expect(written?.data).to.deep.equal({ n: 1 });
    expect(await aclOf("a1")).to.deep.equal({ read: ["carol"], write: ["alice"] });
    expect(await journal.lostAccessAfter(scope, 0)).to.deep.equal([{ id: "a1", lastModified: 101, principals: ["bob"] }]);
    expect(announced).to.deep.equal([
      {
        action: "update",
        collection: "articles",
        parentId: "",
        timestamp: 101,
        impacted: [{ old: created, new: written }],
        userId: undefined,
      },
    ]);
  });

  it("gives a granted reader the record at a new version, with no loss", async () => {
    await put("a1", { n: 1 }, { write: ["alice"] }); // 100
    const written = await editor.grant("articles", "a1", "read", "bob");
    expect(written?.lastModified).to.equal(101);
    expect(await aclOf("a1")).to.deep.equal({ read: ["bob"], write: ["alice"] });
    expect(await journal.lostAccessAfter(scope, 0)).to.deep.equal([]);
  });

  it("replaces only the permissions it names; every reader removed loses the record (write grants read)", async () => {
    await put("a1", { n: 1 }, { read: ["bob"], write: ["alice", "dan"] }); // 100
    await editor.replace("articles", "a1", { read: ["carol"] }); // 101
    expect(await aclOf("a1")).to.deep.equal({ read: ["carol"], write: ["alice", "dan"] });
    await editor.replace("articles", "a1", { read: [], write: ["alice"] }); // 102
    expect(await aclOf("a1")).to.deep.equal({ write: ["alice"] });
    const losses = (await journal.lostAccessAfter(scope, 0)).map((l) => ({ ...l, principals: [...l.principals].sort() }));
    expect(losses).to.deep.equal([
      { id: "a1", lastModified: 101, principals: ["bob"] },
      { id: "a1", lastModified: 102, principals: ["carol", "dan"] },
    ]);
  });

  it("writes nothing when the ACL does not change, and nothing for a missing or deleted record", async () => {
    const created = await put("a1", { n: 1 }, { read: ["bob"] }); // 100
    expect(await editor.grant("articles", "a1", "read", "bob")).to.deep.equal(created);
    expect(await editor.revoke("articles", "a1", "read", "carol")).to.deep.equal(created);
    expect(await editor.grant("articles", "nope", "read", "bob")).to.equal(undefined);
    await records.delete(scope, "a1");
    expect(await editor.revoke("articles", "a1", "read", "bob")).to.equal(undefined);
    expect(records.updates).to.equal(0);
    expect(await permissions.objectPermissions("/articles/nope")).to.deep.equal({});
    expect(announced).to.deep.equal([]);
  });

  it("reads the record and its ACL again when another writer gets there first, keeping that writer's data and grants", async () => {
    await put("a1", { n: 1 }, { read: ["bob"] }); // 100
    records.afterRead = () => editor.grant("articles", "a1", "read", "carol"); // 101: the other writer
    const written = await editor.revoke("articles", "a1", "read", "bob");
    expect(written?.lastModified).to.equal(102);
    expect(await aclOf("a1")).to.deep.equal({ read: ["carol"] });
    expect(await journal.lostAccessAfter(scope, 0)).to.deep.equal([{ id: "a1", lastModified: 102, principals: ["bob"] }]);
  });

  it("gives up after a few rounds of contention, with the contention error and nothing written", async () => {
    await put("a1", { n: 1 }, { read: ["bob"] }); // 100
    records.alwaysContended = true;
    await expectRejection(editor.revoke("articles", "a1", "read", "bob"), PreconditionFailedError);
    expect(records.updates).to.equal(5);
    expect(await aclOf("a1")).to.deep.equal({ read: ["bob"] });
    expect(await journal.lostAccessAfter(scope, 0)).to.deep.equal([]);
  });

  it("refuses a resource that does not exist or keeps no record ACLs", async () => {
    expect((await expectRejection(editor.grant("nothing", "a1", "read", "bob"), Error)).message).to.match(/no resource "nothing"/);
    expect((await expectRejection(editor.grant("notes", "a1", "read", "bob"), Error)).message).to.match(/keeps no record ACLs/);
  });
});
