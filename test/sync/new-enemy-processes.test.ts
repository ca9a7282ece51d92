/**
 * No "new enemy" across processes (issue 26 item 4): once a revoke was answered on one process,
 * no process shows the revoked reader anything written after it, through a read, a listing page,
 * a `_since` sync or a live feed event (a stream opened before the revoke, or after it).
 *
 * Three processes share one PostgreSQL database (permissions in it, or in Redis): two `serve`
 * children and this test's own server, whose permission port changes group memberships as an
 * extension would (no command changes them). An ACL edit is answered by one child; a group
 * removal by this test's server. Every other process is then asked at once, round after round,
 * so that a process deciding on a stale view (a principal or an ACL it read before the revoke)
 * shows up as a leak. What was written after the revoke carries a marker no answer may show.
 * The second child hears notifications late (its listening connection goes through a slow proxy)
 * while its catch-up check finds new writes at once: its streams learn of a group removal in time
 * only through the fence (docs/feed-fence.md), never through the signal.
 */
import { expect } from "chai";
import type { MembershipChanges } from "../../src/application/memberships/membership-changes.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { BASE_SETTINGS, startTestServer, userId, type TestServer } from "../support/http.js";
import { startServerProcess, type ServerProcess } from "../support/server-process.js";
import { processBackends } from "../support/process-backends.js";
import { requireService } from "../support/services.js";
import { migratedDatabase } from "../support/shared-postgres.js";
import { SlowListenProxy } from "../support/slow-listen-proxy.js";
import { SseClient, type SseEvent } from "./sse-client.js";

const ALICE = "alice:pw";
const BOB = "bob:pw";
const TEAM = "group:team";
/** What every write made after a revoke carries: no answer to the revoked reader may contain it. */
const AFTER_REVOKE = "written-after-the-revoke";
/** Rounds per scenario (20 in `npm test`; TESSERA_NEW_ENEMY_ROUNDS for a longer run): each a fresh race. */
const ROUNDS = Number(process.env.TESSERA_NEW_ENEMY_ROUNDS ?? 20);
/** How late the second child hears notifications: longer than a round's reads take. */
const LISTEN_DELAY_MS = 1500;

const BACKENDS = processBackends("tessera-new-enemy-test");

/** A process as the reads see it: its base URL. */
interface Process {
  readonly name: string;
  readonly url: string;
}

interface Answer {
  status: number;
  body: unknown;
  headers: Headers;
}

async function call(process: Process, method: string, path: string, user: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { Authorization: `Basic ${Buffer.from(user).toString("base64")}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(`${process.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined, headers: response.headers };
}

/** Whether anything in a JSON value carries the after-revoke marker (or one revoke's own). */
function showsAfterRevoke(value: unknown, marker = AFTER_REVOKE): boolean {
  return JSON.stringify(value ?? null).includes(marker);
}

/** Every entry of a listing, following Next-Page. */
async function listAll(process: Process, user: string, query: string): Promise<Record<string, unknown>[]> {
  let path = `/v1/articles${query}`;
  const entries: Record<string, unknown>[] = [];
  for (let page = 0; page < 100; page += 1) {
    const answer = await call(process, "GET", path, user);
    expect(answer.status, `${process.name} GET ${path}: ${JSON.stringify(answer.body)}`).to.equal(200);
    entries.push(...(answer.body as { data: Record<string, unknown>[] }).data);
    const next = answer.headers.get("next-page");
    if (!next) return entries;
    const url = new URL(next);
    path = `${url.pathname}${url.search}`;
  }
  throw new Error("pagination never ended");
}

/** Bob's stream, live (its replay over); a principal change heard while it opens ends it: opened again. */
async function liveStream(process: Process, query = ""): Promise<SseClient> {
  for (let attempt = 1; ; attempt++) {
    const client = await SseClient.open(`${process.url}/v1/articles${query}`, { user: BOB });
    expect(client.status, `${process.name}: ${JSON.stringify(client.body)}`).to.equal(200);
    await client.waitUntil(() => client.comments.includes("live") || client.ended);
    if (client.comments.includes("live") || attempt === 5) return client;
    await client.close();
  }
}

/**
 * Bob's streams on the readers, each having shown him `id` (its version at `at`, written by
 * `write` once they were live): each decided he may read it before the revoke. A stream ended
 * meanwhile (a principal signal heard late) is opened again from just before `at`.
 */
async function streamsShowing(readers: readonly Process[], id: string, write: () => Promise<number>): Promise<SseClient[]> {
  const streams = await Promise.all(readers.map((reader) => liveStream(reader)));
  const at = await write();
  const shown = (client: SseClient) => client.events.some((e) => e.data.id === id && e.data.last_modified === at);
  for (const [i, reader] of readers.entries()) {
    for (let attempt = 1; ; attempt++) {
      const client = streams[i] as SseClient;
      await client.waitUntil(() => shown(client) || client.ended, 10_000);
      if (shown(client) && !client.ended) break;
      if (attempt === 5) throw new Error(`${reader.name}: Bob's stream never showed ${id} while open`);
      await client.close();
      streams[i] = await liveStream(reader, `?_since=${at - 1}`);
    }
  }
  return streams;
}

/** Waits until the stream sent the sentinel record or ended; returns its events. */
async function eventsUntil(client: SseClient, sentinel: string): Promise<SseEvent[]> {
  await client.waitUntil(() => client.ended || client.events.some((e) => e.data.id === sentinel), 10_000);
  return client.events;
}

/** The next call of `method` on `target` waits until released; `reached` resolves once it is called. */
function holdNextCall<T extends object>(target: T, method: keyof T & string) {
  const original = (target[method] as (...args: unknown[]) => unknown).bind(target);
  let reach: () => void = () => undefined;
  let release: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const gate = new Promise<void>((resolve) => (release = resolve));
  let armed = true;
  Reflect.set(target, method, async (...args: unknown[]) => {
    if (armed) {
      armed = false;
      reach();
      await gate;
    }
    return original(...args);
  });
  return {
    reached,
    release,
    restore: () => {
      release();
      Reflect.deleteProperty(target, method);
    },
  };
}

/** Time for whatever a held request reads alongside the held call to answer. */
const ALONGSIDE_MS = 200;

for (const backend of BACKENDS) {
  describe(`no new enemy across processes [${backend.name}]`, function () {
    for (const service of backend.services) requireService(service);
    this.timeout(600_000);
    let own: TestServer | undefined;
    let proxy: SlowListenProxy | undefined;
    let port: MembershipChanges;
    const children: ServerProcess[] = [];
    const streams: SseClient[] = [];
    /** This test's server, then the two `serve` children. */
    let processes: Process[] = [];

    before(async () => {
      const url = await migratedDatabase(`tessera_new_enemy_${backend.services.join("_")}_test`, true);
      own = await startTestServer(backend.settings(url));
      port = await own.running.container.getAsync(TOKENS.Memberships);
      const { listen_port: _unused, ...shared } = BASE_SETTINGS;
      proxy = await SlowListenProxy.start(url, "tessera-listen");
      // The catch-up check (not slowed down) tells the second child of every write within 200 ms.
      const slow = { ...backend.settings(proxy.rewrite(url)), feed_catch_up_seconds: "0.2" };
      children.push(
        ...(await Promise.all([startServerProcess({ ...shared, ...backend.settings(url) }), startServerProcess({ ...shared, ...slow })])),
      );
      proxy.slowDown(LISTEN_DELAY_MS);
      processes = [{ name: "test process", url: own.url }, ...children.map((child, i) => ({ name: `serve ${i + 1}`, url: child.url }))];
    });
    afterEach(async () => {
      for (const stream of streams.splice(0)) await stream.close();
    });
    after(async () => {
      for (const stream of streams.splice(0)) await stream.close();
      await Promise.all(children.splice(0).map((child) => child.stop()));
      await proxy?.close();
      await (await own?.running.container.getAsync(TOKENS.PermissionStore))?.flush();
      await own?.stop();
    });

    const byAlice = async (process: Process, method: string, path: string, body: unknown): Promise<number> => {
      const answer = await call(process, method, path, ALICE, body);
      expect(answer.status, `${process.name} ${method} ${path}: ${JSON.stringify(answer.body)}`).to.be.oneOf([200, 201]);
      return (answer.body as { data: { last_modified: number } }).data.last_modified;
    };

    /**
     * Everything a reader process answers Bob right after the revoke: a GET of each record, a
     * listing, a `_since` sync from before the revoke, and a stream opened now from there too.
     */
    const assertNothingAfterRevoke = async (
      reader: Process,
      ids: readonly string[],
      before: number,
      sentinel: string,
      marker = AFTER_REVOKE,
    ) => {
      for (const id of ids) {
        const read = await call(reader, "GET", `/v1/articles/${id}`, BOB);
        expect(read.status, `${reader.name} GET ${id}: ${JSON.stringify(read.body)}`).to.be.oneOf([403, 404]);
        expect(showsAfterRevoke(read.body, marker), `${reader.name} GET ${id}`).to.equal(false);
      }
      const listing = await listAll(reader, BOB, "?_limit=50");
      expect(
        listing.filter((e) => ids.includes(e.id as string)),
        `${reader.name} listing`,
      ).to.deep.equal([]);
      expect(showsAfterRevoke(listing, marker), `${reader.name} listing`).to.equal(false);
      const since = await listAll(reader, BOB, `?_since=${before}&_limit=20`);
      expect(
        since.filter((e) => ids.includes(e.id as string) && e.deleted !== true),
        `${reader.name} _since`,
      ).to.deep.equal([]);
      expect(showsAfterRevoke(since, marker), `${reader.name} _since`).to.equal(false);
      const late = await liveStream(reader, `?_since=${before}`);
      streams.push(late);
      const replayed = await eventsUntil(late, sentinel);
      expect(showsAfterRevoke(replayed, marker), `${reader.name} stream opened after the revoke: ${JSON.stringify(replayed)}`).to.equal(
        false,
      );
      return since;
    };

    it(`an ACL edit answered on one process: the others show nothing written after it (${ROUNDS} rounds)`, async () => {
      const [, revoker, other] = processes as [Process, Process, Process];
      const readers = processes.filter((p) => p !== revoker);
      const bob = userId(BOB);
      for (let round = 0; round < ROUNDS; round += 1) {
        const x = `x${round}`;
        const sentinel = `sx${round}`;
        let before = 0;
        const open = await streamsShowing(readers, x, async () => {
          before = await byAlice(revoker, "PUT", `/v1/articles/${x}`, { data: { round }, permissions: { read: [bob] } });
          return before;
        });
        streams.push(...open);
        // The revoke, answered; then a new version of the record, then one Bob may read (the sentinel).
        await byAlice(revoker, "PATCH", `/v1/articles/${x}`, { permissions: { read: [] } });
        await byAlice(round % 2 === 0 ? revoker : other, "PATCH", `/v1/articles/${x}`, { data: { secret: AFTER_REVOKE } });
        await byAlice(revoker, "PUT", `/v1/articles/${sentinel}`, { data: { round }, permissions: { read: [bob] } });
        for (const reader of readers) {
          const since = await assertNothingAfterRevoke(reader, [x], before, sentinel);
          // The lost access itself reaches the sync as a tombstone (docs/api.md, Sync).
          expect(
            since.filter((e) => e.id === x).map((e) => e.deleted),
            `${reader.name} _since, round ${round}`,
          ).to.deep.equal([true]);
        }
        for (const [i, stream] of open.entries()) {
          const events = await eventsUntil(stream, sentinel);
          const name = readers[i]?.name ?? "?";
          expect(showsAfterRevoke(events), `${name} stream opened before the revoke, round ${round}: ${JSON.stringify(events)}`).to.equal(
            false,
          );
          expect(
            events.filter((e) => e.data.id === x && Number(e.data.last_modified) > before).map((e) => e.event),
            `${name} stream, round ${round}`,
          ).to.deep.equal(["delete"]);
        }
        for (const stream of streams.splice(0)) await stream.close();
      }
    });

    it(`a group removal answered on one process: the others show nothing the group grants written after it (${ROUNDS} rounds)`, async () => {
      const [revoker, writer] = processes as [Process, Process, Process];
      const readers = processes.filter((p) => p !== revoker);
      const bob = userId(BOB);
      for (let round = 0; round < ROUNDS; round += 1) {
        const old = `g${round}`;
        const fresh = `y${round}`;
        const sentinel = `sy${round}`;
        // This round's own: re-added to the group, Bob may read again what earlier rounds wrote
        // after their removals, and his streams get it as gained access.
        const marker = `${AFTER_REVOKE} in round ${round};`;
        await port.add(TEAM, [bob]);
        let before = 0;
        const open = await streamsShowing(readers, old, async () => {
          before = await byAlice(writer, "PUT", `/v1/articles/${old}`, { data: { round }, permissions: { read: [TEAM] } });
          return before;
        });
        streams.push(...open);
        // The removal, answered; then a new version of a record the group reads, a new such record, and the sentinel.
        await port.remove(TEAM, [bob]);
        await byAlice(writer, "PATCH", `/v1/articles/${old}`, { data: { secret: marker } });
        await byAlice(round % 2 === 0 ? writer : (processes[2] as Process), "PUT", `/v1/articles/${fresh}`, {
          data: { secret: marker },
          permissions: { read: [TEAM] },
        });
        await byAlice(writer, "PUT", `/v1/articles/${sentinel}`, { data: { round }, permissions: { read: [bob] } });
        for (const reader of readers) await assertNothingAfterRevoke(reader, [old, fresh], before, sentinel, marker);
        for (const [i, stream] of open.entries()) {
          const events = await eventsUntil(stream, sentinel);
          expect(
            showsAfterRevoke(events, marker),
            `${readers[i]?.name ?? "?"} stream opened before the removal, round ${round}: ${JSON.stringify(events)}`,
          ).to.equal(false);
        }
        for (const stream of streams.splice(0)) await stream.close();
      }
    });

    for (const revoke of ["group removal", "ACL edit"] as const)
      it(`a listing under way when the ${revoke} is answered shows nothing written after it`, async () => {
        const [here, writer] = processes as [Process, Process, Process];
        const bob = userId(BOB);
        const id = `held-list-${revoke.replace(" ", "-")}`;
        const team = `group:${id}`;
        await port.add(team, [bob]);
        await byAlice(writer, "PUT", `/v1/articles/${id}`, { data: {}, permissions: { read: [team] } });
        // Bob's listing on this test's process is held at its read of the collection timestamp.
        const held = holdNextCall(await own!.running.container.getAsync(TOKENS.RecordStore), "collectionTimestamp");
        try {
          const listing = listAll(here, BOB, "?_limit=50");
          await held.reached;
          await new Promise((resolve) => setTimeout(resolve, ALONGSIDE_MS));
          if (revoke === "group removal") await port.remove(team, [bob]);
          else await byAlice(writer, "PATCH", `/v1/articles/${id}`, { permissions: { read: [] } });
          // A new version of that record; after a group removal, also a new record the group reads.
          await byAlice(writer, "PATCH", `/v1/articles/${id}`, { data: { secret: AFTER_REVOKE } });
          if (revoke === "group removal")
            await byAlice(writer, "PUT", `/v1/articles/${id}-new`, { data: { secret: AFTER_REVOKE }, permissions: { read: [team] } });
          held.release();
          const entries = await listing;
          expect(showsAfterRevoke(entries), JSON.stringify(entries)).to.equal(false);
        } finally {
          held.restore();
          await port.remove(team, [bob]);
        }
      });

    // With PostgreSQL permissions a record, its ACL and the caller's principals are one statement.
    if (backend.services.includes("redis"))
      for (const revoke of ["group removal", "ACL edit"] as const)
        it(`a read under way when the ${revoke} is answered does not show the version written after it`, async () => {
          const [here, writer] = processes as [Process, Process, Process];
          const bob = userId(BOB);
          const id = `held-read-${revoke.replace(" ", "-")}`;
          const team = `group:${id}`;
          await port.add(team, [bob]);
          await byAlice(writer, "PUT", `/v1/articles/${id}`, { data: {}, permissions: { read: [team] } });
          // Bob's read on this test's process is held at its read of the record.
          const held = holdNextCall(await own!.running.container.getAsync(TOKENS.RecordStore), "get");
          try {
            const read = call(here, "GET", `/v1/articles/${id}`, BOB);
            await held.reached;
            await new Promise((resolve) => setTimeout(resolve, ALONGSIDE_MS));
            if (revoke === "group removal") await port.remove(team, [bob]);
            else await byAlice(writer, "PATCH", `/v1/articles/${id}`, { permissions: { read: [] } });
            await byAlice(writer, "PATCH", `/v1/articles/${id}`, { data: { secret: AFTER_REVOKE } });
            held.release();
            const answer = await read;
            expect(showsAfterRevoke(answer.body), JSON.stringify(answer.body)).to.equal(false);
          } finally {
            held.restore();
            await port.remove(team, [bob]);
          }
        });
  });
}
