/**
 * Groups read by an extension's own group finder from elsewhere (a directory Tessera cannot
 * watch): a change told through `context.groups` reaches `_since` and open streams as a change
 * through the permission backend does (docs/api.md, "Sync"); one never told changes nothing of
 * what was already sent.
 */
import { expect } from "chai";
import type { ExtensionContext, TesseraExtension } from "../../src/application/extension.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { startTestServer, userId, type TestServer } from "../support/http.js";
import { requireService } from "../support/services.js";
import { flushBackends, SYNC_BACKENDS } from "./backends.js";
import { SyncClient } from "./client.js";
import { SseClient } from "./sse-client.js";

const ALICE = "alice:pw";
const CAROL = "carol:pw";
const READERS = "group:readers";

for (const backend of SYNC_BACKENDS) {
  describe(`groups of a custom group finder, told through context.groups [${backend.name}]`, function () {
    this.timeout(30_000);
    /** The finder's own source: user id → groups. */
    const directory = new Map<string, Set<string>>();
    let server: TestServer | undefined;
    let context: ExtensionContext | undefined;
    const clients: SseClient[] = [];
    const running = () => {
      if (!server || !context?.groups) throw new Error("the server is not open");
      return { server, groups: context.groups };
    };

    before(async function () {
      this.timeout(60_000);
      for (const service of backend.services) requireService(service);
      const finder: TesseraExtension = {
        groupFinder: (ctx) => {
          context = ctx;
          return (id) => Promise.resolve([...(directory.get(id) ?? [])]);
        },
      };
      server = await startTestServer(await backend.settings(), [finder]);
      await (await server.running.container.getAsync(TOKENS.Migrator)).migrate();
      await server.running.container.getAsync(TOKENS.Authenticator);
    });
    beforeEach(async () => {
      directory.clear();
      if (server) await flushBackends(server.running.container);
    });
    afterEach(async () => {
      for (const client of clients.splice(0)) await client.close();
    });
    after(async () => {
      if (server) await flushBackends(server.running.container);
      await server?.stop();
    });

    const put = async (id: string, reader: string) => {
      const res = await running().server.request("PUT", `/v1/articles/${id}`, {
        user: ALICE,
        body: { data: { id }, permissions: { read: [reader] } },
      });
      expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 201]);
    };
    const setGroup = async (member: boolean) => {
      const carol = userId(CAROL);
      if (member) directory.set(carol, new Set([READERS]));
      else directory.delete(carol);
      await running().groups.changed(carol, READERS, member ? "added" : "removed");
    };

    it("a removal told brings tombstones to `_since` and deletes to the stream; an addition told brings the records back", async () => {
      const { server: srv } = running();
      await setGroup(true);
      await put("m1", READERS);
      await put("c1", userId(CAROL));
      const carol = new SyncClient(() => srv, CAROL);
      await carol.sync();
      expect(carol.ids()).to.deep.equal(["c1", "m1"]);
      const m1 = carol.records.get("m1")?.last_modified;
      const stream = await SseClient.open(`${srv.url}/v1/articles`, { user: CAROL });
      clients.push(stream);
      await stream.waitUntil(() => stream.comments.includes("live"));

      await setGroup(false);
      expect((await srv.request("GET", "/v1/articles/m1", { user: CAROL })).status).to.equal(403);
      const lost = await carol.sync();
      expect(lost.map((e) => [e.id, e.deleted])).to.deep.equal([["m1", true]]);
      await stream.waitUntil(() => stream.events.some((e) => e.event === "delete"));
      expect(stream.events.map((e) => [e.event, e.data.id])).to.deep.equal([["delete", "m1"]]);

      await setGroup(true);
      const gained = await carol.sync();
      // Given back with its own, older timestamp (c1 may come again as it is: docs/api.md, "Sync").
      expect(gained.filter((e) => e.id === "m1").map((e) => e.last_modified)).to.deep.equal([m1]);
      expect(carol.ids()).to.deep.equal(["c1", "m1"]);
      await stream.waitUntil(() => stream.events.some((e) => e.data.id === "m1" && e.event !== "delete"));
      // Gained, not created: the record is older than the client's position.
      expect(stream.events.map((e) => [e.event, e.data.id])).to.deep.equal([
        ["delete", "m1"],
        ["update", "m1"],
      ]);
      expect(stream.ended).to.equal(false);
    });

    it("a removal never told leaves `_since` where it was (the finder's source is not watched), while reads follow the finder", async () => {
      const { server: srv } = running();
      await setGroup(true);
      await put("m1", READERS);
      const carol = new SyncClient(() => srv, CAROL);
      await carol.sync();
      directory.delete(userId(CAROL));
      expect((await srv.request("GET", "/v1/articles/m1", { user: CAROL })).status).to.equal(403);
      expect(await carol.sync()).to.deep.equal([]);
    });
  });
}
