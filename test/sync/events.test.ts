/**
 * `ResourceChanged` events for extensions: one per committed write, with action, collection,
 * timestamp, old and new records and the requester; listeners that throw are logged and never
 * fail the request; nothing is announced before commit, nor after a rollback.
 */
import { expect } from "chai";
import { pino } from "pino";
import type { ResourceChanged } from "../../src/application/events.js";
import type { RecordAcls } from "../../src/application/ports/shared-records.js";
import { recordReadPermissions } from "../../src/application/record-readers.js";
import type { ResourceDefinition } from "../../src/application/resources.js";
import { PostgresDatabase } from "../../src/adapters/postgres/postgres-database.js";
import { PostgresPermissionStore } from "../../src/adapters/postgres/postgres-permission-store.js";
import { PostgresRecordStore } from "../../src/adapters/postgres/postgres-record-store.js";
import { PostgresAccessJournal } from "../../src/adapters/postgres/postgres-access-journal.js";
import { PostgresSharedRecords } from "../../src/adapters/postgres/postgres-shared-records.js";
import { PostgresUnitOfWork } from "../../src/adapters/postgres/postgres-unit-of-work.js";
import { startServer, type RunningServer } from "../../src/bootstrap/server.js";
import { settingsFrom, userId } from "../support/http.js";
import { databaseUrl, ensureDatabase, withAdmin } from "../support/postgres.js";
import { requireService } from "../support/services.js";

const ALICE = "alice:pw";

async function call(
  running: RunningServer,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: { data?: Record<string, unknown> } }> {
  const headers: Record<string, string> = { Authorization: `Basic ${Buffer.from(ALICE).toString("base64")}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(`${running.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as { data?: Record<string, unknown> } };
}

describe("ResourceChanged events for extensions", function () {
  this.timeout(20_000);
  const events: ResourceChanged[] = [];
  const logs: string[] = [];
  let running: RunningServer;

  before(async () => {
    const logger = pino({ level: "error" }, { write: (line: string) => logs.push(line) });
    running = await startServer(settingsFrom(), {
      logger,
      extensions: [
        {
          onResourceChanged: () => {
            throw new Error("listener failing synchronously");
          },
        },
        { onResourceChanged: () => Promise.reject(new Error("listener failing asynchronously")) },
        { onResourceChanged: (event) => void events.push(event) },
      ],
    });
  });
  beforeEach(() => {
    events.length = 0;
    logs.length = 0;
  });
  after(() => running?.stop());

  it("announces create, update and delete with old and new records, timestamp and requester, despite failing listeners", async () => {
    const created = await call(running, "PUT", "/v1/articles/e1", { data: { n: 1 } });
    expect(created.status).to.equal(201);
    const updated = await call(running, "PATCH", "/v1/articles/e1", { data: { n: 2 } });
    expect(updated.status).to.equal(200);
    const deleted = await call(running, "DELETE", "/v1/articles/e1");
    expect(deleted.status).to.equal(200);
    const t1 = created.body.data?.last_modified as number;
    const t2 = updated.body.data?.last_modified as number;
    const t3 = deleted.body.data?.last_modified as number;
    expect(events).to.deep.equal([
      {
        action: "create",
        collection: "articles",
        parentId: "",
        timestamp: t1,
        userId: userId(ALICE),
        impacted: [{ new: { id: "e1", lastModified: t1, data: { n: 1 } } }],
      },
      {
        action: "update",
        collection: "articles",
        parentId: "",
        timestamp: t2,
        userId: userId(ALICE),
        impacted: [{ old: { id: "e1", lastModified: t1, data: { n: 1 } }, new: { id: "e1", lastModified: t2, data: { n: 2 } } }],
      },
      {
        action: "delete",
        collection: "articles",
        parentId: "",
        timestamp: t3,
        userId: userId(ALICE),
        impacted: [{ old: { id: "e1", lastModified: t2, data: { n: 2 } }, new: { id: "e1", lastModified: t3, deleted: true } }],
      },
    ]);
    // Both failures of each event are logged (the rejection once it settles).
    await new Promise((resolve) => setImmediate(resolve));
    expect(logs.filter((l) => l.includes("a change listener failed"))).to.have.length(6);
  });

  it("announces a collection-wide delete once, with every tombstone, and user resources under their owner", async () => {
    await call(running, "PUT", "/v1/articles/a", { data: {} });
    await call(running, "PUT", "/v1/articles/b", { data: {} });
    await call(running, "PUT", "/v1/notes/n1", { data: { text: "x" } });
    events.length = 0;
    const res = await call(running, "DELETE", "/v1/articles");
    expect(res.status).to.equal(200);
    expect(events).to.have.length(1);
    expect(events[0]!.action).to.equal("delete");
    expect(events[0]!.impacted.map((i) => i.new.id).sort()).to.deep.equal(["a", "b"]);
    expect(events[0]!.timestamp).to.equal(Math.max(...events[0]!.impacted.map((i) => i.new.lastModified)));
    await call(running, "PATCH", "/v1/notes/n1", { data: { text: "y" } });
    expect(events[1]).to.include({ action: "update", collection: "notes", parentId: userId(ALICE) });
  });

  it("announces nothing for a write that changes nothing or is refused", async () => {
    await call(running, "PUT", "/v1/articles/same", { data: { n: 1 } });
    events.length = 0;
    expect((await call(running, "PATCH", "/v1/articles/same", { data: { n: 1 } })).status).to.equal(200);
    expect((await call(running, "DELETE", "/v1/articles/missing")).status).to.equal(403);
    expect(events).to.deep.equal([]);
  });
});

describe("PostgresUnitOfWork.afterCommit", function () {
  requireService("postgresql");
  let database: PostgresDatabase;
  let observer: PostgresDatabase;

  before(async () => {
    await ensureDatabase("tessera_events_test");
    database = new PostgresDatabase({ url: databaseUrl("tessera_events_test"), poolSize: 2, maxOverflow: 0 });
    observer = new PostgresDatabase({ url: databaseUrl("tessera_events_test"), poolSize: 1, maxOverflow: 0 });
    await database.migrate();
  });
  after(async () => {
    await database?.close();
    await observer?.close();
  });

  it("calls back after the outermost run commits, when other connections see the write, and never after a rollback", async () => {
    const unitOfWork = new PostgresUnitOfWork(database);
    const records = new PostgresRecordStore(database);
    const seen = new PostgresRecordStore(observer);
    const scope = { collection: "events", parentId: "" };
    await records.flush();
    const calls: string[] = [];
    let observed: Promise<unknown> = Promise.resolve();
    await unitOfWork.run(async () => {
      await unitOfWork.run(async () => {
        await records.create(scope, "x", {});
        unitOfWork.afterCommit(() => {
          calls.push("inner");
          observed = seen.get(scope, "x").then((r) => calls.push(r ? "visible" : "invisible"));
        });
      });
      expect(calls).to.deep.equal([]);
    });
    expect(calls[0]).to.equal("inner");
    await observed;
    expect(calls).to.deep.equal(["inner", "visible"]);

    const failed = unitOfWork.run(async () => {
      await records.create(scope, "y", {});
      unitOfWork.afterCommit(() => calls.push("rolled back"));
      throw new Error("abort");
    });
    await failed.then(
      () => expect.fail("expected the run to fail"),
      () => undefined,
    );
    expect(calls).to.not.include("rolled back");
    expect(await seen.get(scope, "y")).to.equal(undefined);
    unitOfWork.afterCommit(() => calls.push("outside"));
    expect(calls).to.include("outside");
  });

  it("returns from the outermost run once the promises its callbacks returned have settled, failed ones included", async () => {
    const unitOfWork = new PostgresUnitOfWork(database);
    const calls: string[] = [];
    const later = (name: string, fails: boolean) => () =>
      new Promise<void>((resolve, reject) =>
        setTimeout(() => {
          calls.push(name);
          if (fails) reject(new Error(name));
          else resolve();
        }, 20),
      );
    const answer = await unitOfWork.run(async () => {
      await unitOfWork.run(async () => unitOfWork.afterCommit(later("announced", false)));
      unitOfWork.afterCommit(later("failed", true));
      return "answer";
    });
    expect(answer).to.equal("answer");
    expect(calls.sort()).to.deep.equal(["announced", "failed"]);
  });

  it("in a group commit: calls back each member once after the group's commit, never a member rolled back alone; its lost access commits or rolls back with it", async () => {
    const grouped = new PostgresUnitOfWork(database);
    const records = new PostgresRecordStore(database);
    const seen = new PostgresRecordStore(observer);
    const resource: ResourceDefinition = { name: "grouped", kind: "shareable", permissions: ["read", "write"], settingsPrincipals: {} };
    const journal = new PostgresAccessJournal(database);
    const shared = PostgresSharedRecords.on(database, records, journal, grouped);
    const acls: RecordAcls = {
      objectIdPrefix: "/grouped/",
      permissions: resource.permissions,
      readPermissions: (objectId) => recordReadPermissions(resource, objectId),
    };
    const permissions = new PostgresPermissionStore(database);
    const scope = { collection: "grouped", parentId: "" };
    await journal.flush();
    await records.flush();
    await permissions.flush();
    const readable = { read: ["bob"], write: [] };
    const created = new Map<string, number>();
    for (const id of ["k0", "k1", "k2", "k3"]) created.set(id, (await shared.create(scope, id, {}, {}, acls, readable)).lastModified);
    const calls: string[] = [];
    const checks: Promise<unknown>[] = [];
    // Each member takes bob's read away from one record with a write of it; member k2 then fails.
    const member = (id: string) =>
      grouped.run(async () => {
        const change = { acl: { read: [], write: [] }, previous: readable, previousVersion: created.get(id) ?? 0 };
        await shared.update(scope, id, { n: 1 }, {}, acls, change);
        grouped.afterCommit(() => {
          calls.push(id);
          checks.push(seen.get(scope, id).then((r) => expect(r?.data, `${id} written at its callback`).to.include({ n: 1 })));
        });
        if (id === "k2") throw new Error("refused after writing");
      }, scope);
    const outcomes = await Promise.allSettled(["k0", "k1", "k2", "k3"].map(member));
    await Promise.all(checks);
    expect(outcomes.map((o) => o.status)).to.deep.equal(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect([...calls].sort()).to.deep.equal(["k0", "k1", "k3"]);
    // Lost access is stored with its member only, at the member's own record write.
    const lost = await withAdmin(
      databaseUrl("tessera_events_test"),
      async (client) =>
        (
          await client.query<{ id: string; last_modified: string }>(
            "SELECT id, last_modified FROM lost_access WHERE collection = 'grouped' ORDER BY id",
          )
        ).rows,
    );
    expect(lost.map((row) => row.id)).to.deep.equal(["k0", "k1", "k3"]);
    for (const row of lost) expect(Number(row.last_modified)).to.equal((await seen.get(scope, row.id))?.lastModified);
    expect((await seen.get(scope, "k2"))?.lastModified).to.equal(created.get("k2"));
    expect([...((await permissions.objectPermissions("/grouped/k2")).read ?? [])]).to.deep.equal(["bob"]);
    const stamps: number[] = [];
    for (const id of ["k0", "k1", "k3"]) stamps.push((await seen.get(scope, id))?.lastModified ?? 0);
    expect(new Set(stamps).size).to.equal(stamps.length);
    expect(await seen.collectionTimestamp(scope)).to.equal(Math.max(...stamps));
  });
});
