/**
 * Property: paging through a shareable collection as a reader whose access comes from random
 * per-record ACLs, while the owner writes between pages (creates, updates, deletes, ACL grants and
 * revocations), on memory and on PostgreSQL. Whatever the interleaving, the walk ends; returns no
 * record twice; returns every record the reader could read at the start and nobody touched; returns
 * nothing else than records readable at the start, as they were then; and keeps the sort order.
 */
import { expect } from "chai";
import fc from "fast-check";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { startTestServer, userId, type TestServer } from "../support/http.js";
import { walkNextPages } from "../support/page-walk.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { requireService, underCi } from "../support/services.js";
import { flushStorage } from "../support/storage-reset.js";

const OWNER = "owner:pw";
const READER = "reader:pw";
const DATABASE = "tessera_pagination_property_test";

type Access = "none" | "read" | "write" | "authenticated";
interface Seed {
  a: number;
  access: Access;
}
type Write =
  | { kind: "create"; a: number; access: Access }
  | { kind: "update"; index: number; a: number }
  | { kind: "delete"; index: number }
  | { kind: "grant"; index: number }
  | { kind: "revoke"; index: number };
interface Row {
  id: string;
  last_modified: number;
  a: number;
}

const access = fc.constantFrom<Access>("none", "read", "write", "authenticated");
const seed: fc.Arbitrary<Seed> = fc.record({ a: fc.integer({ min: 0, max: 3 }), access });
const write: fc.Arbitrary<Write> = fc.oneof(
  fc.record({ kind: fc.constant("create" as const), a: fc.integer({ min: 0, max: 3 }), access }),
  fc.record({ kind: fc.constant("update" as const), index: fc.nat(15), a: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ kind: fc.constant("delete" as const), index: fc.nat(15) }),
  fc.record({ kind: fc.constant("grant" as const), index: fc.nat(15) }),
  fc.record({ kind: fc.constant("revoke" as const), index: fc.nat(15) }),
);
const SORTS = ["a", "-a", "id", "-id", "last_modified", "-last_modified", ""] as const;

function permissionsFor(choice: Access): Record<string, string[]> {
  const reader = userId(READER);
  return { none: {}, read: { read: [reader] }, write: { write: [reader] }, authenticated: { read: ["system.Authenticated"] } }[choice];
}

/** The primary sort key of a row, and whether consecutive rows are in order for it. */
function inOrder(sort: string, previous: Row, next: Row): boolean {
  const field = (sort.replace("-", "") || "last_modified") as keyof Row;
  const descending = sort.startsWith("-") || sort === "";
  const [x, y] = [previous[field], next[field]];
  return descending ? x >= y : x <= y;
}

interface Backend {
  name: string;
  service?: "postgresql";
  runs: number;
  settings(): Promise<Record<string, string>>;
}

const CI = underCi();
const BACKENDS: Backend[] = [
  { name: "memory", runs: CI ? 60 : 30, settings: () => Promise.resolve({}) },
  {
    name: "postgresql",
    service: "postgresql",
    runs: CI ? 25 : 12,
    async settings() {
      await ensureDatabase(DATABASE);
      return {
        storage_backend: "postgresql",
        storage_url: databaseUrl(DATABASE),
        permission_backend: "postgresql",
        permission_url: databaseUrl(DATABASE),
      };
    },
  },
];

for (const backend of BACKENDS) {
  describe(`Pagination property on a shared collection with writes during the walk (${backend.name})`, function () {
    if (backend.service) requireService(backend.service);
    this.timeout(60_000);
    let server: TestServer;

    before(async () => {
      server = await startTestServer(await backend.settings());
      await (await server.running.container.getAsync(TOKENS.Migrator)).migrate();
    });
    after(() => server?.stop());

    async function reset(): Promise<void> {
      await flushStorage(server.running.container);
      await (await server.running.container.getAsync(TOKENS.PermissionStore)).flush();
    }

    async function apply(op: Write, ids: readonly string[], created: number): Promise<string | undefined> {
      const target = ids.length > 0 && op.kind !== "create" ? ids[op.index % ids.length] : undefined;
      const path = (id: string) => `/v1/articles/${id}`;
      let status: number;
      switch (op.kind) {
        case "create":
          status = (
            await server.request("PUT", path(`n${String(created).padStart(2, "0")}`), {
              user: OWNER,
              body: { data: { a: op.a }, permissions: permissionsFor(op.access) },
            })
          ).status;
          expect(status).to.equal(201);
          return undefined;
        case "update":
          if (!target) return undefined;
          status = (await server.request("PATCH", path(target), { user: OWNER, body: { data: { a: op.a, touched: true } } })).status;
          break;
        case "delete":
          if (!target) return undefined;
          status = (await server.request("DELETE", path(target), { user: OWNER })).status;
          break;
        case "grant":
        case "revoke":
          if (!target) return undefined;
          status = (
            await server.request("PATCH", path(target), {
              user: OWNER,
              body: { data: { touched: op.kind }, permissions: op.kind === "grant" ? { read: [userId(READER)] } : { read: [], write: [] } },
            })
          ).status;
          break;
      }
      // A record deleted earlier in the walk: gone, and its ACL with it (so 403 to the owner too).
      expect([200, 403, 404], `${op.kind} ${target}`).to.include(status);
      return status === 200 ? target : undefined;
    }

    it("ends, never repeats, keeps every untouched readable record and the sort order", async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(seed, { maxLength: 14 }),
          fc.array(write, { maxLength: 8 }),
          fc.constantFrom(...SORTS),
          fc.integer({ min: 1, max: 4 }),
          async (seeds, writes, sort, limit) => {
            run += 1;
            await reset();
            const ids = seeds.map((_, i) => `r${String(i).padStart(2, "0")}`);
            const start = new Map<string, number>();
            for (const [i, { a, access: choice }] of seeds.entries()) {
              const res = await server.request("PUT", `/v1/articles/${ids[i]}`, {
                user: OWNER,
                body: { data: { a }, permissions: permissionsFor(choice) },
              });
              expect(res.status).to.equal(201);
              if (choice !== "none") start.set(ids[i]!, a);
            }
            const touched = new Set<string>();
            let created = 0;
            const query = `/v1/articles?_limit=${limit}${sort ? `&_sort=${sort}` : ""}`;
            const pages = await walkNextPages(server, query, READER, seeds.length + 2, async (_page, index) => {
              const op = writes[index];
              if (!op) return;
              if (op.kind === "create") created += 1;
              const target = await apply(op, ids, created);
              if (target) touched.add(target);
            });
            const rows = pages.flatMap((page) => page.body.data as Row[]);
            const seen = rows.map((r) => r.id);
            expect(new Set(seen).size, `duplicates in ${seen.join(",")}`).to.equal(seen.length);
            for (const row of rows) {
              expect(start.has(row.id), `${row.id} was not readable at the start`).to.equal(true);
              expect(row.a, `${row.id} as it was at the start`).to.equal(start.get(row.id));
            }
            const untouched = [...start.keys()].filter((id) => !touched.has(id));
            expect(seen.filter((id) => untouched.includes(id)).sort(), "every untouched readable record").to.deep.equal(untouched.sort());
            for (let i = 1; i < rows.length; i += 1)
              expect(inOrder(sort, rows[i - 1]!, rows[i]!), `order by ${sort || "-last_modified"} at ${i}`).to.equal(true);
          },
        ),
        { numRuns: backend.runs },
      );
      expect(run).to.be.at.least(backend.runs);
    });
  });
}
