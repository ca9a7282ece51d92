/**
 * The group resource over HTTP, on memory, PostgreSQL and PostgreSQL + Redis permissions: a
 * group's members hold `group:<id>`, so what is shared with the group reaches them (reads,
 * listings, `_since`, open streams) and leaves them when they leave it; groups nest; a group is
 * a record like any other (who may read it, ETags, preconditions, batch).
 */
import { expect } from "chai";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { permissionBackendSetups, postgresWithRedisSetup, type BackendSetup } from "../support/backend-setups.js";
import { startTestServer, userId, type TestServer } from "../support/http.js";
import { requireService } from "../support/services.js";
import { SseClient } from "../sync/sse-client.js";

const ALICE = "alice:pw";
const BOB = "bob:pw";
const CAROL = "carol:pw";

const SETUPS: BackendSetup[] = [
  ...permissionBackendSetups("groups_sharing").filter((s) => s.name !== "Redis permissions"),
  postgresWithRedisSetup("groups_sharing"),
];

interface Entry {
  readonly id: string;
  readonly deleted?: boolean;
}

for (const setup of SETUPS) {
  describe(`groups over HTTP [${setup.name}]`, function () {
    if (setup.service) requireService(setup.service);
    if ("alsoNeeds" in setup) requireService(setup.alsoNeeds as "postgresql");
    this.timeout(30_000);
    let server: TestServer;
    const streams: SseClient[] = [];

    before(async () => {
      server = await startTestServer(await setup.settings());
      await (await server.running.container.getAsync(TOKENS.Migrator)).migrate();
    });
    beforeEach(async () => {
      await (await server.running.container.getAsync(TOKENS.RecordStore)).flush();
      await (await server.running.container.getAsync(TOKENS.PermissionStore)).flush();
    });
    after(async () => {
      for (const stream of streams) await stream.close();
      await (await server?.running.container.getAsync(TOKENS.PermissionStore))?.flush();
      await server?.stop();
    });

    async function write(method: string, path: string, body: unknown, user = ALICE, headers: Record<string, string> = {}) {
      const res = await server.request(method, path, { user, body, headers });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).to.be.oneOf([200, 201]);
      return res;
    }
    const share = (id: string, readers: string[]) =>
      write("PUT", `/v1/articles/${id}`, { data: { title: id }, permissions: { read: readers } });
    const listed = async (user: string): Promise<string[]> =>
      ((await server.request("GET", "/v1/articles", { user })).body.data as Entry[]).map((r) => r.id).sort();
    const etagOf = async (user: string): Promise<string> =>
      (await server.request("GET", "/v1/articles", { user })).headers.get("etag")?.replaceAll('"', "") ?? "";
    const since = async (user: string, position: string): Promise<Entry[]> => {
      const res = await server.request("GET", `/v1/articles?_since=${position}`, { user });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body.data as Entry[];
    };
    const readStatus = async (user: string, id: string) => (await server.request("GET", `/v1/articles/${id}`, { user })).status;

    it("gives what is shared with a group to its members, and takes it when one is removed", async () => {
      const created = await write("POST", "/v1/groups", { data: { id: "team", members: [userId(BOB)], title: "The team" } });
      expect(created.status).to.equal(201);
      expect(created.body.data).to.include({ id: "team", title: "The team" });
      expect(created.body.data.members).to.deep.equal([userId(BOB)]);
      expect(created.body.permissions.write).to.deep.equal([userId(ALICE)]);
      const position = await etagOf(BOB);
      await share("for-team", ["group:team"]);
      await share("private", []);

      expect(await readStatus(BOB, "for-team")).to.equal(200);
      expect(await readStatus(CAROL, "for-team")).to.equal(403);
      expect(await listed(BOB)).to.deep.equal(["for-team"]);
      expect((await since(BOB, position)).map((e) => e.id)).to.deep.equal(["for-team"]);
      const principals = (await server.request("GET", "/v1/", { user: BOB })).body.user.principals as string[];
      expect(principals).to.include("group:team");

      const before = await etagOf(BOB);
      await write("PATCH", "/v1/groups/team", { data: { members: [userId(CAROL)] } });
      expect(await readStatus(BOB, "for-team")).to.equal(403);
      expect(await readStatus(CAROL, "for-team")).to.equal(200);
      const lost = await since(BOB, before);
      expect(lost.map((e) => [e.id, e.deleted])).to.deep.equal([["for-team", true]]);
    });

    it("applies JSON Patch and merge patch to the members", async () => {
      await write("PUT", "/v1/groups/patched", { data: { members: [] } });
      await share("for-patched", ["group:patched"]);
      await write("PATCH", "/v1/groups/patched", [{ op: "add", path: "/data/members/-", value: userId(BOB) }], ALICE, {
        "Content-Type": "application/json-patch+json",
      });
      expect(await readStatus(BOB, "for-patched")).to.equal(200);
      await write("PATCH", "/v1/groups/patched", { data: { members: [userId(CAROL)] } }, ALICE, {
        "Content-Type": "application/merge-patch+json",
      });
      expect(await readStatus(BOB, "for-patched")).to.equal(403);
      expect(await readStatus(CAROL, "for-patched")).to.equal(200);
    });

    it("nests groups: the members of a member group hold the outer group", async () => {
      await write("PUT", "/v1/groups/inner", { data: { members: [userId(BOB)] } });
      await write("PUT", "/v1/groups/outer", { data: { members: ["group:inner"] } });
      await write("PUT", "/v1/groups/everyone", { data: { members: ["system.Authenticated"] } });
      await share("for-outer", ["group:outer"]);
      await share("for-everyone", ["group:everyone"]);
      expect(await readStatus(BOB, "for-outer")).to.equal(200);
      expect(await readStatus(CAROL, "for-outer")).to.equal(403);
      expect(await readStatus(CAROL, "for-everyone")).to.equal(200);
      expect(await listed(BOB)).to.deep.equal(["for-everyone", "for-outer"]);

      // Unlinking the inner group takes the outer one from its members.
      await write("PATCH", "/v1/groups/outer", { data: { members: [] } });
      expect(await readStatus(BOB, "for-outer")).to.equal(403);
    });

    it("takes the group from every holder when it is deleted, one by one or all at once", async () => {
      await write("PUT", "/v1/groups/gone", { data: { members: [userId(BOB)] } });
      await write("PUT", "/v1/groups/also-gone", { data: { members: [userId(CAROL)] } });
      await share("for-gone", ["group:gone", "group:also-gone"]);
      const bobBefore = await etagOf(BOB);
      expect(await readStatus(BOB, "for-gone")).to.equal(200);
      await write("DELETE", "/v1/groups/gone", undefined);
      expect(await readStatus(BOB, "for-gone")).to.equal(403);
      expect((await since(BOB, bobBefore)).map((e) => [e.id, e.deleted])).to.deep.equal([["for-gone", true]]);
      expect(await readStatus(CAROL, "for-gone")).to.equal(200);
      await write("DELETE", "/v1/groups", undefined);
      expect(await readStatus(CAROL, "for-gone")).to.equal(403);
      const left = await server.request("GET", "/v1/groups", { user: ALICE });
      expect(left.body.data).to.deep.equal([]);
    });

    it("lets only readers and writers of a group see it, in a read and in the listing", async () => {
      await write("PUT", "/v1/groups/secret", { data: { members: [userId(BOB)] } });
      await write("PUT", "/v1/groups/open", { data: { members: [] }, permissions: { read: [userId(CAROL)] } });
      // Bob is a member of `secret`, not a reader of its record: its members are no business of his.
      expect((await server.request("GET", "/v1/groups/secret", { user: BOB })).status).to.equal(403);
      expect((await server.request("GET", "/v1/groups/secret", { user: CAROL })).status).to.equal(403);
      expect((await server.request("GET", "/v1/groups/secret")).status).to.equal(401);
      expect((await server.request("GET", "/v1/groups/open", { user: CAROL })).status).to.equal(200);
      const carolSees = (await server.request("GET", "/v1/groups", { user: CAROL })).body.data as Entry[];
      expect(carolSees.map((g) => g.id)).to.deep.equal(["open"]);
      const aliceSees = (await server.request("GET", "/v1/groups", { user: ALICE })).body.data as Entry[];
      expect(aliceSees.map((g) => g.id).sort()).to.deep.equal(["open", "secret"]);
      // A reader may not change the members.
      expect(
        (await server.request("PATCH", "/v1/groups/open", { user: CAROL, body: { data: { members: [userId(CAROL)] } } })).status,
      ).to.equal(403);
    });

    it("answers 412 on a stale If-Match and 304 on a matching If-None-Match, changing no membership", async () => {
      const created = await write("PUT", "/v1/groups/tagged", { data: { members: [] } });
      const etag = created.headers.get("etag") ?? "";
      await share("for-tagged", ["group:tagged"]);
      await write("PATCH", "/v1/groups/tagged", { data: { title: "renamed" } });
      const stale = await server.request("PATCH", "/v1/groups/tagged", {
        user: ALICE,
        body: { data: { members: [userId(BOB)] } },
        headers: { "If-Match": etag },
      });
      expect(stale.status).to.equal(412);
      expect(await readStatus(BOB, "for-tagged")).to.equal(403);
      const current = (await server.request("GET", "/v1/groups/tagged", { user: ALICE })).headers.get("etag") ?? "";
      expect((await server.request("GET", "/v1/groups/tagged", { user: ALICE, headers: { "If-None-Match": current } })).status).to.equal(
        304,
      );
      const again = await server.request("PUT", "/v1/groups/tagged", {
        user: ALICE,
        body: { data: { members: [userId(BOB)] } },
        headers: { "If-None-Match": "*" },
      });
      expect(again.status).to.equal(412);
      expect(await readStatus(BOB, "for-tagged")).to.equal(403);
    });

    it("creates a group and shares with it in one batch", async () => {
      const res = await server.request("POST", "/v1/batch", {
        user: ALICE,
        body: {
          requests: [
            { method: "PUT", path: "/groups/batched", body: { data: { members: [userId(BOB)] } } },
            { method: "PUT", path: "/articles/for-batched", body: { data: {}, permissions: { read: ["group:batched"] } } },
            { method: "PATCH", path: "/groups/batched", body: { data: { members: [userId(BOB), userId(CAROL)] } } },
          ],
        },
      });
      expect(res.status).to.equal(200);
      expect((res.body.responses as { status: number }[]).map((r) => r.status)).to.deep.equal([201, 201, 200]);
      expect(await readStatus(BOB, "for-batched")).to.equal(200);
      expect(await readStatus(CAROL, "for-batched")).to.equal(200);
    });

    it("shows a member's open stream what joining and leaving the group gave and took", async () => {
      await write("PUT", "/v1/groups/streamed", { data: { members: [] } });
      await share("for-streamed", ["group:streamed"]);
      const stream = await SseClient.open(`${server.url}/v1/articles`, { user: BOB });
      streams.push(stream);
      expect(stream.status).to.equal(200);
      await write("PATCH", "/v1/groups/streamed", { data: { members: [userId(BOB)] } });
      await stream.waitUntil(() => stream.events.some((e) => e.event !== "delete" && e.data.id === "for-streamed"));
      await write("PATCH", "/v1/groups/streamed", { data: { members: [] } });
      await stream.waitUntil(() => stream.events.some((e) => e.event === "delete" && e.data.id === "for-streamed"));
    });
  });
}
