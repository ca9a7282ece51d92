/**
 * Reads on a real streaming standby (its own primary and a hot standby fed over the streaming
 * protocol): two `serve` processes with `storage_replica_urls`, writers running on both. Over 300
 * rounds a write answered by one process is never missing from a read through the other; once
 * a revoke is answered (an ACL edit, a group's member removed) no read anywhere shows the record
 * to the revoked user; the replica really answers reads (counted by the processes' metrics); and
 * a replica that falls behind, stops or is promoted is skipped without an error for clients; the
 * live feed of a process with a replica misses nothing.
 */
import { expect } from "chai";
import { buildContainer } from "../../src/bootstrap/container.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { settingsFrom, userId } from "../support/http.js";
import { startServerProcess, type ServerProcess } from "../support/server-process.js";
import { requireStreamingStandby } from "../support/streaming-standby-required.js";
import { startStreamingPair, type StreamingPair } from "../support/streaming-standby.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import { SseClient } from "./sse-client.js";

const SECRET = "replica-secret";
const ALICE = `Basic ${Buffer.from("alice:pw").toString("base64")}`;
const BOB = `Basic ${Buffer.from("bob:pw").toString("base64")}`;
const BOB_ID = userId("bob:pw", SECRET);
const ROUNDS = 300;
const REVOKES = 60;

interface Answer {
  readonly status: number;
  readonly body: { data?: Record<string, unknown> } & Record<string, unknown>;
}

async function send(base: string, method: string, path: string, auth: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${base}/v1${path}`, {
    method,
    headers: { Authorization: auth, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Answer["body"]) : {} };
}

/** Reads answered by each server, from a process's metrics. */
async function readsByServer(server: ServerProcess): Promise<Record<string, number>> {
  const text = await (await fetch(`${server.url}/v1/__metrics__`)).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^tessera_db_reads_total\{pool="[^"]*",server="([^"]+)"\} (\d+)/gm))
    counts[match[1]!] = (counts[match[1]!] ?? 0) + Number(match[2]);
  return counts;
}

const replicaReads = (counts: Record<string, number>) =>
  Object.entries(counts)
    .filter(([server]) => server !== "primary")
    .reduce((total, [, n]) => total + n, 0);

describe("reads on a streaming replica, with writers running", function () {
  requireStreamingStandby();
  this.timeout(180_000);
  let pair: StreamingPair;
  /** Between the processes and the standby: a read can be cut in the middle. */
  let toStandby: TcpProxy;
  let processes: ServerProcess[] = [];
  let writing = true;
  let writers: Promise<void>[] = [];

  const through = (i: number) => processes[i % 2]!.url;

  before(async () => {
    pair = await startStreamingPair({ database: "tessera_replica_reads", name: "replica-reads" });
    toStandby = await TcpProxy.start(pair.standbyUrl, 5432);
    const settings = {
      resources: "articles:shareable noise:shareable",
      storage_backend: "postgresql",
      storage_url: pair.primaryUrl,
      permission_backend: "postgresql",
      permission_url: pair.primaryUrl,
      storage_replica_urls: toStandby.rewrite(pair.standbyUrl),
      userid_hmac_secret: SECRET,
      articles_create_principals: "system.Authenticated",
      noise_create_principals: "system.Authenticated",
      metrics_enabled: "true",
    };
    const container = buildContainer(settingsFrom(settings));
    await (await container.getAsync(TOKENS.Migrator)).migrate();
    await container.unbindAllAsync();
    processes = await Promise.all([startServerProcess(settings), startServerProcess(settings)]);
    // Writers on both processes the whole time: the replica replays a steady stream of WAL.
    writers = [0, 1].map(async (p) => {
      for (let n = 0; writing; n += 1)
        await send(through(p), "PUT", `/noise/w${p}-${n % 50}`, ALICE, { data: { n } }).catch(() => undefined);
    });
  });
  after(async () => {
    writing = false;
    await Promise.all(writers);
    await Promise.all(processes.map((p) => p.stop()));
    await toStandby?.close();
    await pair?.close();
  });

  it(`never misses a write answered by another process: ${ROUNDS} rounds of create then read, update then read`, async () => {
    const before = await Promise.all(processes.map(readsByServer));
    const misses: string[] = [];
    for (let i = 0; i < ROUNDS; i += 1) {
      const created = await send(through(i), "PUT", `/articles/r${i}`, ALICE, { data: { n: i } });
      expect(created.status).to.equal(201);
      const read = await send(through(i + 1), "GET", `/articles/r${i}`, ALICE);
      if (read.status !== 200 || read.body.data?.n !== i) misses.push(`create r${i}: ${read.status} ${JSON.stringify(read.body.data)}`);
      const patched = await send(through(i + 1), "PATCH", `/articles/r${i}`, ALICE, { data: { n: i + 1 } });
      expect(patched.status).to.equal(200);
      const again = await send(through(i), "GET", `/articles/r${i}`, ALICE);
      if (again.status !== 200 || again.body.data?.n !== i + 1)
        misses.push(`update r${i}: ${again.status} ${JSON.stringify(again.body.data)}`);
      const listed = await send(through(i), "GET", `/articles?id=r${i}`, ALICE);
      if ((listed.body.data as unknown as { n: number }[] | undefined)?.[0]?.n !== i + 1)
        misses.push(`listing r${i}: ${JSON.stringify(listed.body)}`);
    }
    expect(misses).to.deep.equal([]);
    const after = await Promise.all(processes.map(readsByServer));
    const served = after.map((counts, i) => replicaReads(counts) - replicaReads(before[i]!));
    // 3 reads a round on two processes, and the writers' own checks: the replica took a real share.
    expect(served[0]! + served[1]!, `reads answered by the replica: ${JSON.stringify(after)}`).to.be.above(ROUNDS / 2);
  });

  it(`never shows a record to a user after the revoke of his access was answered: ${REVOKES} ACL edits, ${REVOKES} group removals`, async () => {
    const leaks: string[] = [];
    for (let i = 0; i < REVOKES; i += 1) {
      const shared = await send(through(i), "PUT", `/articles/acl${i}`, ALICE, { data: { secret: i }, permissions: { read: [BOB_ID] } });
      expect(shared.status).to.equal(201);
      expect((await send(through(i + 1), "GET", `/articles/acl${i}`, BOB)).status).to.equal(200);
      expect((await send(through(i), "PATCH", `/articles/acl${i}`, ALICE, { permissions: { read: [] } })).status).to.equal(200);
      for (const p of [0, 1]) {
        const read = await send(through(p), "GET", `/articles/acl${i}`, BOB);
        if (read.status === 200) leaks.push(`ACL edit acl${i} on process ${p}`);
        const listed = await send(through(p), "GET", `/articles?id=acl${i}`, BOB);
        if (Array.isArray(listed.body.data) && listed.body.data.length > 0) leaks.push(`ACL edit acl${i} listed on process ${p}`);
      }

      const group = await send(through(i), "PUT", `/groups/g${i}`, ALICE, { data: { members: [BOB_ID] } });
      expect(group.status).to.equal(201);
      const record = await send(through(i), "PUT", `/articles/grp${i}`, ALICE, {
        data: { secret: i },
        permissions: { read: [`group:g${i}`] },
      });
      expect(record.status).to.equal(201);
      expect((await send(through(i + 1), "GET", `/articles/grp${i}`, BOB)).status).to.equal(200);
      expect((await send(through(i + 1), "PATCH", `/groups/g${i}`, ALICE, { data: { members: [] } })).status).to.equal(200);
      for (const p of [0, 1]) {
        const read = await send(through(p), "GET", `/articles/grp${i}`, BOB);
        if (read.status === 200) leaks.push(`group removal grp${i} on process ${p}`);
      }
    }
    expect(leaks).to.deep.equal([]);
  });

  it("streams every change to a subscriber of another process, in order, its reads routed like any other", async () => {
    const stream = await SseClient.open(`${through(1)}/v1/articles`, { headers: { Authorization: ALICE } });
    await stream.waitUntil(() => stream.comments.includes("live"));
    for (let i = 0; i < 30; i += 1)
      expect((await send(through(0), "PUT", `/articles/feed${i}`, ALICE, { data: { n: i } })).status).to.equal(201);
    const events = await stream.waitFor(30, 15_000);
    expect(events.map((e) => e.data.id)).to.deep.equal(Array.from({ length: 30 }, (_, i) => `feed${i}`));
    await stream.close();
  });

  it("skips a replica that falls behind, stops or is promoted, without an error for clients", async () => {
    const check = async (label: string, rounds: number) => {
      for (let i = 0; i < rounds; i += 1) {
        const id = `${label}${i}`;
        expect((await send(through(i), "PUT", `/articles/${id}`, ALICE, { data: { n: i } })).status, id).to.equal(201);
        const read = await send(through(i + 1), "GET", `/articles/${id}`, ALICE);
        expect([read.status, read.body.data?.n], id).to.deep.equal([200, i]);
      }
    };
    await pair.pauseReplay();
    const paused = await Promise.all(processes.map(readsByServer));
    await check("paused", 20);
    const whilePaused = await Promise.all(processes.map(readsByServer));
    // Reads of records written after the pause cannot come from the replica.
    expect(whilePaused.map((c, i) => (c.primary ?? 0) - (paused[i]!.primary ?? 0)).reduce((a, b) => a + b)).to.be.at.least(20);
    await pair.resumeReplay();
    await pair.caughtUp();

    // A read cut on the replica in the middle of its statement: the primary answers it.
    const cut = toStandby.cutWhen((chunk) => chunk.includes("tessera_records_get_with_acl"));
    await check("cut", 20);
    await cut;
    await toStandby.restore();

    await pair.stopStandby();
    await check("stopped", 20);
    // Health is the primary's: a replica away does not make a process unhealthy.
    for (const p of processes) expect((await fetch(`${p.url}/v1/__heartbeat__`)).status).to.equal(200);
    await pair.startStandby();
    await pair.caughtUp();
    await check("restarted", 20);

    await pair.promote();
    await check("promoted", 20);
  });
});
