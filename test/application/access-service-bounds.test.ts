/**
 * The work one explain, readers or /permissions request does is bounded by the page and the
 * record's ACL, never by how much the caller can reach: backend calls are counted while the
 * readable records grow from 20 to 400, with the ids and principals they carry.
 */
import { expect } from "chai";
import { AccessService } from "../../src/application/access/access-service.js";
import { Authorizer } from "../../src/application/authorizer.js";
import { resourceKinds } from "../../src/application/kinds/resource-kinds.js";
import { PaginationTokens } from "../../src/application/pagination-token.js";
import type { PermissionStore } from "../../src/application/ports/permission-store.js";
import type { RecordStore } from "../../src/application/ports/record-store.js";
import { RecordService } from "../../src/application/record-service.js";
import { authenticatedRequester } from "../../src/application/requester.js";
import type { ResourceDefinition } from "../../src/application/resources.js";
import { PortableSharedRecords } from "../../src/application/shared-records/portable-shared-records.js";
import { MemoryPermissionStore } from "../../src/adapters/memory/memory-permission-store.js";
import { memoryStorage } from "../../src/adapters/memory/memory-record-store.js";
import { DirectUnitOfWork } from "../../src/adapters/system/direct-unit-of-work.js";

const articles: ResourceDefinition = {
  name: "articles",
  kind: "shareable",
  permissions: ["read", "write"],
  settingsPrincipals: { create: ["system.Authenticated"] },
};

const notes: ResourceDefinition = { name: "notes", kind: "user", permissions: ["read", "write"], settingsPrincipals: {} };

/** The group records: who may read `/groups/<id>` sees the members of `group:<id>` in readers. */
const groups: ResourceDefinition = { name: "groups", kind: "shareable", permissions: ["read", "write"], settingsPrincipals: {} };

/** Entries in what a call answered (an array, a set, a map with what each key holds; 1 for anything else). */
function sizeOf(value: unknown): number {
  if (value instanceof Map) return [...value.values()].reduce<number>((sum, entry) => sum + Math.max(1, sizeOf(entry)), 0);
  return Array.isArray(value) ? value.length : value instanceof Set ? value.size : 1;
}

/**
 * A proxy counting every method call, by name, and under `items` the ids and principals they
 * carry (array arguments); `rows`, when given, counts by name the entries each call answered.
 * Methods run with the proxy as `this`: the calls an adapter makes on itself count too.
 */
function counted<T extends object>(target: T, calls: Map<string, number>, rows?: Map<string, number>): T {
  const proxy: T = new Proxy(target, {
    get(object, name, receiver) {
      const value: unknown = Reflect.get(object, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls.set(String(name), (calls.get(String(name)) ?? 0) + 1);
        const items = args.reduce<number>((sum, arg) => sum + (Array.isArray(arg) ? arg.length : 0), 0);
        calls.set("items", (calls.get("items") ?? 0) + items);
        const result = (value as (...a: unknown[]) => unknown).apply(proxy, args);
        if (rows && result instanceof Promise)
          void result.then((answer) => rows.set(String(name), (rows.get(String(name)) ?? 0) + sizeOf(answer))).catch(() => undefined);
        return result;
      };
    },
  });
  return proxy;
}

async function world(readable: number, members = 0) {
  const permissions = new MemoryPermissionStore();
  const { records, journal } = memoryStorage({ now: () => 1_000_000 });
  const calls = new Map<string, number>();
  const rows = new Map<string, number>();
  const countedPermissions = counted<PermissionStore>(permissions, calls, rows);
  const countedRecords = counted<RecordStore>(records, calls, rows);
  const groups = (id: string) => permissions.userPrincipals(id);
  const alice = authenticatedRequester("alice", groups);
  const bob = authenticatedRequester("bob", groups);
  const unitOfWork = new DirectUnitOfWork();
  const tokens = new PaginationTokens("secret");
  const service = new RecordService({
    records,
    journal,
    kinds: resourceKinds({ authorizer: new Authorizer(permissions) }),
    shared: new PortableSharedRecords(records, journal, permissions, unitOfWork),
    unitOfWork,
    ids: { generate: () => "x" },
    tokens,
  });
  await permissions.addUserPrincipal("bob", "group:g1");
  await permissions.addUserPrincipal("group:g1", "group:g2");
  for (let i = 0; i < members; i++) await permissions.addUserPrincipal(`member:${String(i).padStart(4, "0")}`, "group:g1");
  for (const group of ["/groups/g1", "/groups/g2"]) await permissions.addPrincipalToAce(group, "read", "alice");
  for (let i = 0; i < readable; i++) {
    const id = `r${String(i).padStart(4, "0")}`;
    await service.replace(alice, articles, id, { data: {}, permissions: { read: ["group:g2"] } });
    await service.replace(bob, notes, id, { data: {} });
  }
  const access = new AccessService({
    records: countedRecords,
    shared: new PortableSharedRecords(countedRecords, journal, countedPermissions, unitOfWork),
    kinds: resourceKinds({ authorizer: new Authorizer(countedPermissions) }),
    permissions: countedPermissions,
    tokens,
  });
  return { access, alice, bob, calls, rows };
}

function total(calls: Map<string, number>): number {
  return [...calls.values()].reduce((a, b) => a + b, 0);
}

describe("access requests do bounded work", () => {
  it("/permissions: the same backend calls for a page whether 20 or 400 records are readable", async () => {
    const counts: number[] = [];
    for (const readable of [20, 400]) {
      const { access, bob, calls } = await world(readable);
      const page = await access.accessibleObjects(bob, [articles], { limit: 10 });
      expect(page.entries).to.have.length(10);
      expect(page.nextToken).to.be.a("string");
      const next = await access.accessibleObjects(bob, [articles], { limit: 10, token: page.nextToken! });
      expect(next.entries[0]?.id).to.equal("r0009");
      counts.push(total(calls));
    }
    expect(counts[0]).to.be.above(0);
    expect(counts[1]).to.equal(counts[0]);
  });

  it("/permissions: the same backend calls and rows for a page of the caller's own records, 20 or 400", async () => {
    const counts: number[] = [];
    for (const readable of [20, 400]) {
      const { access, bob, calls, rows } = await world(readable);
      const page = await access.accessibleObjects(bob, [notes], { limit: 10 });
      expect(page.entries.map((e) => e.id)).to.deep.equal([undefined, ...Array.from({ length: 9 }, (_, i) => `r000${i}`)]);
      const next = await access.accessibleObjects(bob, [notes], { limit: 10, token: page.nextToken! });
      expect(next.entries.map((e) => e.id)).to.deep.equal(Array.from({ length: 10 }, (_, i) => `r${String(i + 9).padStart(4, "0")}`));
      expect(next.entries[0]?.permissions).to.deep.equal(["read", "write"]);
      counts.push(
        total(calls),
        [...rows.values()].reduce((a, b) => a + b, 0),
      );
    }
    expect(counts.slice(2)).to.deep.equal(counts.slice(0, 2));
  });

  it("explain and readers: the same backend calls whether 20 or 400 records are readable", async () => {
    const counts: number[] = [];
    for (const readable of [20, 400]) {
      const { access, alice, bob, calls } = await world(readable);
      const explanation = await access.explain(bob, articles, "r0001", "read");
      expect(explanation.held[0]?.through[0]?.chain).to.deep.equal(["bob", "group:g1", "group:g2"]);
      const readers = await access.readers(alice, articles, "r0001", { limit: 2 }, groups);
      expect(readers.entries.map((r) => r.principal)).to.deep.equal(["alice", "bob"]);
      counts.push(total(calls));
    }
    expect(counts[1]).to.equal(counts[0]);
  });

  it("readers: a page reads a page of members, whether the group has 20 or 400", async () => {
    const read: number[] = [];
    for (const members of [20, 400]) {
      const { access, alice, calls, rows } = await world(1, members);
      const first = await access.readers(alice, articles, "r0000", { limit: 5 }, groups);
      const second = await access.readers(alice, articles, "r0000", { limit: 5, token: first.nextToken! }, groups);
      // Sorted: alice, bob, group:g1, group:g2, member:0000...; bob and group:g1 through group:g2.
      expect(first.entries.map((r) => r.principal)).to.deep.equal(["alice", "bob", "group:g1", "group:g2", "member:0000"]);
      expect(second.entries.map((r) => r.principal)).to.deep.equal([
        "member:0001",
        "member:0002",
        "member:0003",
        "member:0004",
        "member:0005",
      ]);
      expect(second.entries[0]?.through).to.deep.equal(["group:g2"]);
      expect(calls.get("membersOf") ?? 0).to.equal(0);
      read.push(rows.get("membersPage") ?? 0);
    }
    expect(read[0]).to.be.within(1, 2 * 6);
    expect(read[1]).to.equal(read[0]);
  });

  it("readers: _limit=1 makes the same backend calls and reads the same rows over 20 or 2,000 members", async () => {
    const work: number[][] = [];
    for (const members of [20, 2_000]) {
      const { access, alice, calls, rows } = await world(1, members);
      const pages: string[][] = [];
      let token: string | undefined;
      for (let page = 0; page < 5; page++) {
        const answer = await access.readers(alice, articles, "r0000", token === undefined ? { limit: 1 } : { limit: 1, token }, groups);
        pages.push(answer.entries.map((r) => `${r.principal} ${r.through.join(",")}`));
        token = answer.nextToken;
      }
      // alice writes; bob and group:g1 in group:g2 (named); member:0000... in group:g1.
      expect(pages).to.deep.equal([["alice "], ["bob group:g2"], ["group:g1 group:g2"], ["group:g2 "], ["member:0000 group:g2"]]);
      const read = (name: string) => rows.get(name) ?? 0;
      // The walk asks for the groups nested, then one page of holders: never the whole group.
      expect(calls.get("subgroupsOf"), "subgroupsOf calls").to.be.above(0);
      expect(calls.get("membersOf") ?? 0).to.equal(0);
      work.push([total(calls), read("subgroupsOf"), read("holdersPage"), read("currentAcls")]);
    }
    expect(work[1]).to.deep.equal(work[0]);
  });
});
