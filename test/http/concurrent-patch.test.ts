/**
 * PATCH without If-Match from two server processes on the same few records: the client set no
 * precondition, so none may fail (412); every change lands (none is lost to a concurrent one).
 */
import { expect } from "chai";
import { startServerProcess, type ServerProcess } from "../support/server-process.js";
import { requireService } from "../support/services.js";
import { prepareReliabilityDatabase } from "../faults/reliability-database.js";
import { sharedPostgresSettings } from "../support/shared-postgres.js";

const RECORDS = 3;
const PATCHES_PER_LANE = 15;
const LANES_PER_PROCESS = 6;
const AUTH = `Basic ${Buffer.from("alice:pw").toString("base64")}`;

describe("PATCH without If-Match under contention (two server processes)", function () {
  requireService("postgresql");
  this.timeout(60_000);
  let servers: ServerProcess[] = [];

  before(async () => {
    const settings = {
      resources: "articles:shareable",
      ...sharedPostgresSettings(await prepareReliabilityDatabase()),
      userid_hmac_secret: "s",
      articles_create_principals: "system.Authenticated",
    };
    servers = await Promise.all([startServerProcess(settings), startServerProcess(settings)]);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  it("never answers 412 and keeps every field each PATCH set", async () => {
    const base = servers[0]?.url ?? "";
    for (let r = 0; r < RECORDS; r++) {
      const created = await fetch(`${base}/v1/articles/r${r}`, {
        method: "PUT",
        headers: { Authorization: AUTH, "Content-Type": "application/json" },
        body: JSON.stringify({ data: {} }),
      });
      expect(created.status).to.equal(201);
    }
    const statuses = new Map<number, number>();
    // Each PATCH sets its own field, so a lost update would show as a missing field.
    const lane = async (server: ServerProcess, name: string) => {
      for (let i = 0; i < PATCHES_PER_LANE; i++) {
        const response = await fetch(`${server.url}/v1/articles/r${i % RECORDS}`, {
          method: "PATCH",
          headers: { Authorization: AUTH, "Content-Type": "application/json" },
          body: JSON.stringify({ data: { [`${name}_${i}`]: i } }),
        });
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        await response.arrayBuffer();
      }
    };
    await Promise.all(servers.flatMap((server, s) => Array.from({ length: LANES_PER_PROCESS }, (_, l) => lane(server, `p${s}l${l}`))));
    expect(Object.fromEntries(statuses)).to.deep.equal({ 200: 2 * LANES_PER_PROCESS * PATCHES_PER_LANE });
    for (let r = 0; r < RECORDS; r++) {
      const response = await fetch(`${base}/v1/articles/r${r}`, { headers: { Authorization: AUTH } });
      const data = ((await response.json()) as { data: Record<string, unknown> }).data;
      const expected = servers.flatMap((_, s) =>
        Array.from({ length: LANES_PER_PROCESS }, (_, l) =>
          Array.from({ length: PATCHES_PER_LANE }, (_, i) => i)
            .filter((i) => i % RECORDS === r)
            .map((i) => `p${s}l${l}_${i}`),
        ).flat(),
      );
      expect(
        Object.keys(data)
          .filter((key) => key.startsWith("p"))
          .sort(),
      ).to.deep.equal(expected.sort());
    }
  });
});
