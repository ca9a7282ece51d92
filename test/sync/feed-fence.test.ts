/**
 * The principal fence across processes (docs/feed-fence.md; issue: "no event the user may no
 * longer read is sent after the change returned, on any process"). Process A runs in this test
 * process (its permission port makes the change), process B is a `tessera serve` child on the
 * same database. B's listening connection is slowed down (SlowListenProxy), so the signal that
 * ends Bob's stream reaches B seconds late, while B learns of new writes at once through its
 * catch-up check: without the fence B delivers the group's next record to Bob after the removal
 * returned. A process that loses its database (its lease cannot be renewed) ends its streams by
 * itself within the lease, and a change made meanwhile waits at most that long.
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
import { TcpProxy } from "../support/tcp-proxy.js";
import { SseClient } from "./sse-client.js";

const ALICE = "alice:pw";
const BOB = "bob:pw";
const TEAM = "group:team";
/** How late B hears notifications: far longer than the catch-up period and the checks below. */
const LISTEN_DELAY_MS = 3000;

const BACKENDS = processBackends("tessera-fence-test");

function summary(client: SseClient): [string | undefined, unknown][] {
  return client.events.map((e) => [e.event, e.data.id]);
}

for (const backend of BACKENDS) {
  describe(`live feed: a principal change fences every process's streams [${backend.name}]`, function () {
    for (const service of backend.services) requireService(service);
    this.timeout(60_000);
    let url: string;
    let a: TestServer | undefined;
    let port: MembershipChanges;
    const children: ServerProcess[] = [];
    const clients: SseClient[] = [];
    const closers: (() => Promise<void>)[] = [];

    before(async () => {
      url = await migratedDatabase(`tessera_feed_fence_${backend.services.join("_")}_test`, true);
      a = await startTestServer(backend.settings(url));
      port = await a.running.container.getAsync(TOKENS.Memberships);
    });
    afterEach(async () => {
      for (const client of clients.splice(0)) await client.close();
      await Promise.all(children.splice(0).map((child) => child.stop()));
      for (const close of closers.splice(0)) await close();
      await (await a?.running.container.getAsync(TOKENS.PermissionStore))?.flush();
    });
    after(() => a?.stop());

    const startB = (databaseUrl: string, extra: Record<string, string> = {}) => {
      const { listen_port: _unused, ...shared } = BASE_SETTINGS;
      return startServerProcess({ ...shared, ...backend.settings(databaseUrl), ...extra }).then((child) => {
        children.push(child);
        return child;
      });
    };
    const put = async (id: string, reader: string) => {
      const res = await a!.request("PUT", `/v1/articles/${id}`, { user: ALICE, body: { data: { id }, permissions: { read: [reader] } } });
      expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 201]);
    };
    // A principal change heard by B while the stream opens (the test's own grant to Bob, whose
    // signal may still be on its way) ends it with `resync`: the client then opens it again.
    const stream = async (server: { url: string }) => {
      for (let attempt = 1; ; attempt++) {
        const client = await SseClient.open(`${server.url}/v1/articles`, { user: BOB });
        clients.push(client);
        expect(client.status).to.equal(200);
        await client.waitUntil(() => client.comments.includes("live") || client.ended);
        if (client.comments.includes("live") || attempt === 3) return client;
        await client.close();
      }
    };

    it("sends nothing the removed group granted once the removal returned, though the signal reaches the other process late", async () => {
      const proxy = await SlowListenProxy.start(url, "tessera-listen");
      closers.push(() => proxy.close());
      // The catch-up check (not slowed down) tells B of every write within 200 ms.
      const b = await startB(proxy.rewrite(url), { feed_catch_up_seconds: "0.2" });
      await port.add(TEAM, [userId(BOB)]);
      const bob = await stream(b);
      await put("g1", TEAM);
      await bob.waitFor(1);
      proxy.slowDown(LISTEN_DELAY_MS);

      const started = performance.now();
      await port.remove(TEAM, [userId(BOB)]);
      const tookMs = performance.now() - started;
      const seenAtReturn = bob.events.length;
      // Records only the group granted, written right after the removal returned.
      await put("g2", TEAM);
      await put("g3", TEAM);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const leaked = bob.events.slice(seenAtReturn).filter((e) => e.data.id === "g2" || e.data.id === "g3");
      expect(
        leaked.map((e) => [e.event, e.data.id]),
        "the group's records sent after the removal returned",
      ).to.deep.equal([]);
      // The stream goes on with Bob's new principals: what the group gave him arrives as deleted.
      await bob.waitUntil(() => bob.events.length >= 2, LISTEN_DELAY_MS + 5000);
      expect(summary(bob)).to.deep.equal([
        ["create", "g1"],
        ["delete", "g1"],
      ]);
      expect(bob.ended).to.equal(false);
      // Acknowledged by B, not waited out: far less than a lease (10 s).
      expect(tookMs).to.be.below(LISTEN_DELAY_MS);
      expect((await fetch(`${b.url}/v1/articles/g2`, { headers: { Authorization: `Basic ${btoa(BOB)}` } })).status).to.equal(403);
    });

    it("a process that loses its database ends its streams within its lease; a change meanwhile waits at most that long", async () => {
      const proxy = await TcpProxy.start(url, 5432);
      closers.push(() => proxy.close());
      const leaseSeconds = 2;
      const c = await startB(proxy.rewrite(url), { feed_lease_seconds: String(leaseSeconds), shutdown_timeout_seconds: "1" });
      await port.add(TEAM, [userId(BOB)]);
      const bob = await stream(c);
      await put("h1", TEAM);
      await bob.waitFor(1);

      proxy.stall();
      const stalledAt = performance.now();
      await port.remove(TEAM, [userId(BOB)]);
      const waitedMs = performance.now() - stalledAt;
      // C could not acknowledge: the change waited for its lease to end, and by then C had ended the stream itself.
      expect(bob.ended, "stream on the cut-off process ended when the change returned").to.equal(true);
      expect(summary(bob)).to.deep.equal([
        ["create", "h1"],
        ["resync", undefined],
      ]);
      expect(waitedMs).to.be.below(leaseSeconds * 1000 + 1000);
    });
  });
}
