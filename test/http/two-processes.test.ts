/**
 * Two Tessera processes on one PostgreSQL database writing to one collection at once: each
 * process groups its writes into shared transactions, the counter row lock orders the groups,
 * so timestamps are unique and increasing, no write is lost and no If-Match is refused wrongly.
 */
import { expect } from "chai";
import { migratedDatabase, sharedPostgresSettings } from "../support/shared-postgres.js";
import { startServerProcess, type ServerProcess } from "../support/server-process.js";
import { requireService } from "../support/services.js";

const DATABASE = "tessera_two_processes_test";
const WRITES_PER_PROCESS = 150;
const CONCURRENCY = 10;
const PATCHES = 40;
const AUTH = `Basic ${Buffer.from("alice:pw").toString("base64")}`;

describe("two server processes on one database", function () {
  requireService("postgresql");
  this.timeout(60_000);
  let servers: ServerProcess[] = [];

  before(async () => {
    const settings = {
      resources: "articles:shareable",
      ...sharedPostgresSettings(await migratedDatabase(DATABASE, true)),
      userid_hmac_secret: "s",
      articles_create_principals: "system.Authenticated",
      articles_read_principals: "system.Authenticated",
    };
    servers = await Promise.all([startServerProcess(settings), startServerProcess(settings)]);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  it("gives every concurrent write a distinct, increasing timestamp and loses none", async () => {
    const statuses: number[] = [];
    const write = async (server: ServerProcess, n: number) => {
      const response = await fetch(`${server.url}/v1/articles`, {
        method: "POST",
        headers: { Authorization: AUTH, "Content-Type": "application/json" },
        body: JSON.stringify({ data: { n } }),
      });
      statuses.push(response.status);
      await response.arrayBuffer();
    };
    await Promise.all(
      servers.flatMap((server, s) =>
        Array.from({ length: CONCURRENCY }, async (_, lane) => {
          for (let i = lane; i < WRITES_PER_PROCESS; i += CONCURRENCY) await write(server, s * WRITES_PER_PROCESS + i);
        }),
      ),
    );
    expect(statuses.filter((s) => s !== 201)).to.deep.equal([]);
    const listing = await fetch(`${servers[0]?.url}/v1/articles?_sort=last_modified`, { headers: { Authorization: AUTH } });
    const records = ((await listing.json()) as { data: { n: number; last_modified: number }[] }).data;
    expect(records).to.have.length(2 * WRITES_PER_PROCESS);
    expect(new Set(records.map((r) => r.n)).size).to.equal(2 * WRITES_PER_PROCESS);
    const stamps = records.map((r) => r.last_modified);
    stamps.slice(1).forEach((stamp, i) => expect(stamp).to.be.greaterThan(stamps[i]!));
    expect(listing.headers.get("etag")).to.equal(`"${stamps[stamps.length - 1]}"`);
  });

  it("applies concurrent PATCHes with If-Match from both processes, none refused, stamps still unique", async () => {
    const listing = await fetch(`${servers[0]?.url}/v1/articles?_limit=${PATCHES}`, { headers: { Authorization: AUTH } });
    const records = ((await listing.json()) as { data: { id: string; last_modified: number }[] }).data;
    expect(records).to.have.length(PATCHES);
    const statuses = await Promise.all(
      records.map(async (record, i) => {
        const server = servers[i % servers.length];
        const response = await fetch(`${server!.url}/v1/articles/${record.id}`, {
          method: "PATCH",
          headers: { Authorization: AUTH, "Content-Type": "application/json", "If-Match": `"${record.last_modified}"` },
          body: JSON.stringify({ data: { patched: true } }),
        });
        await response.arrayBuffer();
        return response.status;
      }),
    );
    expect(statuses.filter((s) => s !== 200)).to.deep.equal([]);
    const after = await fetch(`${servers[1]?.url}/v1/articles?_sort=last_modified`, { headers: { Authorization: AUTH } });
    const all = ((await after.json()) as { data: { patched?: boolean; last_modified: number }[] }).data;
    expect(all.filter((r) => r.patched)).to.have.length(PATCHES);
    const stamps = all.map((r) => r.last_modified);
    stamps.slice(1).forEach((stamp, i) => expect(stamp).to.be.greaterThan(stamps[i]!));
  });
});
