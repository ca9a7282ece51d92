/**
 * Reads create nothing, at the issue's scale: 50,000 identities that never wrote each list their
 * notes (one in 50 also syncs with `_since` and asks for a record it never wrote), through the
 * authenticator and the record service as the HTTP layer calls them (HTTP itself is covered by
 * test/http/invented-readers.test.ts at a smaller count). Afterwards the memory store holds no
 * more scopes, PostgreSQL has no row more in `timestamps` or `records`, and the heap, after a
 * full collection, grew by far less than the state the defect left (about 1.3 KiB per reader on
 * memory: 64 MiB for 50,000).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { expect } from "chai";
import type { Container } from "inversify";
import { pino } from "pino";
import { MemoryRecordStore } from "../../src/adapters/memory/memory-record-store.js";
import type { Authenticator } from "../../src/application/authenticator.js";
import type { RecordService } from "../../src/application/record-service.js";
import type { ResourceDefinition } from "../../src/application/resources.js";
import { RecordNotFoundError } from "../../src/domain/errors.js";
import { buildContainer } from "../../src/bootstrap/container.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { settingsFrom } from "../support/http.js";
import { databaseUrl, ensureDatabase, withAdmin } from "../support/postgres.js";
import { requireService } from "../support/services.js";

const READERS = 50_000;
const CONCURRENCY = 32;
/** Heap growth allowed for all the readers: an eighth of what the defect kept on memory. */
const MAX_HEAP_GROWTH = 8 * 1024 * 1024;

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

function heapAfterCollection(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

interface Reading {
  readonly records: RecordService;
  readonly authenticator: Authenticator;
  readonly notes: ResourceDefinition;
}

async function reading(container: Container): Promise<Reading> {
  const services = await container.getAsync(TOKENS.HttpServices);
  const notes = services.resources.get("notes")?.definition;
  if (!notes) throw new Error("notes is configured");
  return { records: services.records, authenticator: services.authenticator, notes };
}

async function readAsInventedUsers({ records, authenticator, notes }: Reading, from: number, count: number): Promise<void> {
  let next = from;
  const end = from + count;
  const reader = async () => {
    while (next < end) {
      const n = next++;
      const basic = `Basic ${Buffer.from(`invented-${n}:pw`).toString("base64")}`;
      const requester = await authenticator.identify({ header: (name) => (name === "authorization" ? basic : undefined) });
      const page = await records.list(requester, notes, { filters: [], sort: [], limit: 10, includeDeleted: false });
      expect(page.entries).to.have.length(0);
      if (n % 50 !== 0) continue;
      const since = await records.list(requester, notes, {
        filters: [{ field: "last_modified", operator: "gt", value: 0 }],
        sort: [],
        limit: 10,
        includeDeleted: true,
      });
      expect(since.entries).to.have.length(0);
      const missing = await records.get(requester, notes, "missing").catch((error: unknown) => error);
      expect(missing).to.be.instanceOf(RecordNotFoundError);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, reader));
}

/** Warms every code path and pool, then reads as 50,000 new identities; returns the heap growth. */
async function heapGrowthOfReaders(read: Reading): Promise<number> {
  await readAsInventedUsers(read, READERS, 2000);
  const before = heapAfterCollection();
  await readAsInventedUsers(read, 0, READERS);
  return heapAfterCollection() - before;
}

describe(`Reads by ${READERS.toLocaleString("en")} invented identities create nothing`, function () {
  this.timeout(120_000);

  describe("memory storage", function () {
    let container: Container;
    before(() => {
      container = buildContainer(settingsFrom({}), { logger: pino({ level: "silent" }) });
    });
    after(() => container?.unbindAllAsync());

    it("keeps no per-scope state and a bounded heap", async () => {
      const store = await container.getAsync(TOKENS.RecordStore);
      // The container hands out the store behind a timing proxy; the getter reads the real map.
      const scopes = () => (store as unknown as MemoryRecordStore).scopeCount;
      const read = await reading(container);
      const scopesBefore = scopes();
      const growth = await heapGrowthOfReaders(read);
      expect(scopes(), "scopes held by the record store").to.equal(scopesBefore);
      expect(growth, "heap growth in bytes").to.be.below(MAX_HEAP_GROWTH);
    });
  });

  describe("PostgreSQL storage", function () {
    requireService("postgresql");
    const database = "tessera_invented_readers_scale_test";
    let container: Container;
    const rows = (table: "timestamps" | "records") =>
      withAdmin(databaseUrl(database), async (client) => Number((await client.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n));
    before(async () => {
      await ensureDatabase(database, true);
      const url = databaseUrl(database);
      container = buildContainer(
        settingsFrom({ storage_backend: "postgresql", storage_url: url, permission_backend: "postgresql", permission_url: url }),
        { logger: pino({ level: "silent" }) },
      );
      await (await container.getAsync(TOKENS.Migrator)).migrate();
    });
    after(() => container?.unbindAllAsync());

    it("writes no row and keeps a bounded heap", async () => {
      const read = await reading(container);
      const growth = await heapGrowthOfReaders(read);
      expect(await rows("timestamps"), "rows in timestamps after reads only").to.equal(0);
      expect(await rows("records"), "rows in records after reads only").to.equal(0);
      expect(growth, "heap growth in bytes").to.be.below(MAX_HEAP_GROWTH);
    });
  });
});
