/**
 * No one gains a principal by naming a group: creating a group whose principal a setting, an
 * ACL or a membership already gives meaning to is refused (403), by POST, PUT, inside a batch,
 * after the group was deleted while shares still name it, and when two creates race (one wins).
 * On memory, PostgreSQL and PostgreSQL + Redis permissions.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { permissionBackendSetups, postgresWithRedisSetup, type BackendSetup } from "../support/backend-setups.js";
import { startTestServer, userId, type TestServer } from "../support/http.js";
import { requireService } from "../support/services.js";

const ALICE = "alice:pw";
const EVE = "eve:pw";

const SETUPS: BackendSetup[] = [
  ...permissionBackendSetups("groups_takeover").filter((s) => s.name !== "Redis permissions"),
  postgresWithRedisSetup("groups_takeover"),
];

for (const setup of SETUPS) {
  describe(`taking over a principal by naming a group [${setup.name}]`, function () {
    if (setup.service) requireService(setup.service);
    if ("alsoNeeds" in setup) requireService(setup.alsoNeeds as "postgresql");
    this.timeout(30_000);
    let server: TestServer;

    before(async () => {
      // The settings give `group:admins` write on every article.
      server = await startTestServer({ ...(await setup.settings()), articles_write_principals: "group:admins" });
      await (await server.running.container.getAsync(TOKENS.Migrator)).migrate();
    });
    beforeEach(async () => {
      await (await server.running.container.getAsync(TOKENS.RecordStore)).flush();
      await (await server.running.container.getAsync(TOKENS.PermissionStore)).flush();
    });
    after(async () => {
      await (await server?.running.container.getAsync(TOKENS.PermissionStore))?.flush();
      await server?.stop();
    });

    const eveCreates = (id: string, method: "POST" | "PUT" = "PUT") =>
      server.request(method, method === "POST" ? "/v1/groups" : `/v1/groups/${id}`, {
        user: EVE,
        body: { data: { ...(method === "POST" ? { id } : {}), members: [userId(EVE)] } },
      });
    const evePrincipals = async (): Promise<string[]> => (await server.request("GET", "/v1/", { user: EVE })).body.user.principals;
    const share = async (id: string, readers: string[]) => {
      const res = await server.request("PUT", `/v1/articles/${id}`, { user: ALICE, body: { data: {}, permissions: { read: readers } } });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    };

    async function expectRefused(id: string): Promise<void> {
      for (const method of ["POST", "PUT"] as const) {
        const res = await eveCreates(id, method);
        expect(res.status, `${method} ${id}: ${JSON.stringify(res.body)}`).to.equal(403);
        expect(res.body.message).to.include(`group:${id}`).and.include("in use");
      }
      expect(await evePrincipals()).not.to.include(`group:${id}`);
      expect((await server.request("GET", `/v1/groups/${id}`, { user: EVE })).status).to.be.oneOf([403, 404]);
    }

    it("refuses a group that a setting names", async () => {
      await expectRefused("admins");
      // Nor can Eve write an article through it.
      await share("a1", []);
      expect((await server.request("PATCH", "/v1/articles/a1", { user: EVE, body: { data: { x: 1 } } })).status).to.equal(403);
    });

    it("refuses a group that a record's ACL names", async () => {
      await share("for-x", ["group:x"]);
      await expectRefused("x");
      expect((await server.request("GET", "/v1/articles/for-x", { user: EVE })).status).to.equal(403);
    });

    it("refuses a group that code gave members to, or made a member of another group", async () => {
      const permissions = await server.running.container.getAsync(TOKENS.PermissionStore);
      await permissions.addUserPrincipal(userId(ALICE), "group:coded");
      await expectRefused("coded");
      await permissions.addUserPrincipal("group:member", "group:coded");
      await expectRefused("member");
    });

    it("refuses to re-create a deleted group that shares still name, and lets an unnamed one be re-created", async () => {
      const created = await server.request("PUT", "/v1/groups/team", { user: ALICE, body: { data: { members: [userId(ALICE)] } } });
      expect(created.status).to.equal(201);
      await share("for-team", ["group:team"]);
      expect((await server.request("DELETE", "/v1/groups/team", { user: ALICE })).status).to.equal(200);
      await expectRefused("team");
      expect((await server.request("GET", "/v1/articles/for-team", { user: EVE })).status).to.equal(403);

      // A group nothing names any more is free again once deleted.
      expect((await server.request("PUT", "/v1/groups/free", { user: ALICE, body: { data: { members: [] } } })).status).to.equal(201);
      expect((await server.request("DELETE", "/v1/groups/free", { user: ALICE })).status).to.equal(200);
      expect((await eveCreates("free")).status).to.equal(201);
    });

    it("refuses it inside a batch too, keeping the batch's other answers", async () => {
      await share("for-batch", ["group:batch"]);
      const res = await server.request("POST", "/v1/batch", {
        user: EVE,
        body: {
          requests: [
            { method: "PUT", path: "/groups/batch", body: { data: { members: [userId(EVE)] } } },
            { method: "POST", path: "/groups", body: { data: { id: "admins", members: [userId(EVE)] } } },
            { method: "PUT", path: "/groups/fresh", body: { data: { members: [userId(EVE)] } } },
          ],
        },
      });
      expect(res.status).to.equal(200);
      expect((res.body.responses as { status: number }[]).map((r) => r.status)).to.deep.equal([403, 403, 201]);
      const principals = await evePrincipals();
      expect(principals).to.include("group:fresh").and.not.include("group:batch").and.not.include("group:admins");
    });

    it("lets one of two concurrent creates of an id win, and only its members hold the group", async () => {
      for (let round = 0; round < 5; round++) {
        const id = `race${round}`;
        const [alice, eve] = await Promise.all([
          server.request("PUT", `/v1/groups/${id}`, { user: ALICE, body: { data: { members: [userId(ALICE)] } } }),
          server.request("PUT", `/v1/groups/${id}`, { user: EVE, body: { data: { members: [userId(EVE)] } } }),
        ]);
        expect([alice.status, eve.status].sort(), JSON.stringify([alice.body, eve.body])).to.deep.equal([201, 403]);
        const winner = alice.status === 201 ? ALICE : EVE;
        const loser = winner === ALICE ? EVE : ALICE;
        const stored = await server.request("GET", `/v1/groups/${id}`, { user: winner });
        expect(stored.body.data.members).to.deep.equal([userId(winner)]);
        const loserPrincipals = (await server.request("GET", "/v1/", { user: loser })).body.user.principals as string[];
        expect(loserPrincipals).not.to.include(`group:${id}`);
      }
    });
  });
}

describe("the group resource's rules", function () {
  this.timeout(20_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ group_max_members: "3" });
  });
  after(() => server?.stop());

  const create = (data: unknown, id = "g") => server.request("PUT", `/v1/groups/${id}`, { user: ALICE, body: { data } });

  for (const [what, data, said] of [
    ["no members", { title: "t" }, "members is required"],
    ["members that are not a list", { members: "bob" }, "list of principal strings"],
    ["a member that is not a string", { members: [1] }, "list of principal strings"],
    ["an empty principal", { members: [""] }, "list of principal strings"],
    ["a member twice", { members: ["a", "a"] }, `"a" more than once`],
    ["an unknown system principal", { members: ["system.everyone"] }, "not a system principal"],
    ["system.Everyone", { members: ["system.Everyone"] }, "cannot be a member"],
    ["more members than group_max_members", { members: ["a", "b", "c", "d"] }, "at most 3"],
    ["its own principal", { members: ["group:g"] }, "its own member"],
  ] as const) {
    it(`refuses ${what} with a 400 naming data.members`, async () => {
      const res = await create(data);
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      const details = res.body.details as { name: string; description: string }[];
      expect(
        details.some((d) => d.name === "data.members" && d.description.includes(said)),
        JSON.stringify(details),
      ).to.equal(true);
    });
  }

  it("refuses a JSON Patch that makes the group its own member, and keeps other fields of data", async () => {
    expect((await create({ members: [], title: "kept" }, "h")).status).to.equal(201);
    const res = await server.request("PATCH", "/v1/groups/h", {
      user: ALICE,
      rawBody: JSON.stringify([{ op: "add", path: "/data/members/-", value: "group:h" }]),
      headers: { "Content-Type": "application/json-patch+json" },
    });
    expect(res.status).to.equal(400);
    expect((await server.request("GET", "/v1/groups/h", { user: ALICE })).body.data).to.deep.include({ members: [], title: "kept" });
  });

  it("lets only group_create_principals create groups", async () => {
    const restricted = await startTestServer({ group_create_principals: userId(ALICE) });
    try {
      const body = { data: { members: [] } };
      expect((await restricted.request("PUT", "/v1/groups/mine", { user: ALICE, body })).status).to.equal(201);
      expect((await restricted.request("PUT", "/v1/groups/theirs", { user: EVE, body })).status).to.equal(403);
      expect((await restricted.request("POST", "/v1/groups", { body })).status).to.equal(401);
    } finally {
      await restricted.stop();
    }
  });
});

describe("where the group resource is served", function () {
  this.timeout(20_000);

  it("is absent without a permission backend", async () => {
    const server = await startTestServer({ resources: "notes:user", permission_backend: undefined, articles_create_principals: undefined });
    try {
      expect((await server.request("GET", "/v1/groups", { user: ALICE })).status).to.equal(404);
    } finally {
      await server.stop();
    }
  });

  it("stops startup when a declared resource is named groups", async () => {
    let error: unknown;
    try {
      const server = await startTestServer({ resources: "groups:shareable articles:shareable" });
      await server.stop();
    } catch (thrown) {
      error = thrown;
    }
    expect(String(error)).to.include(`resource "groups" is built in`);
  });

  it("stops startup when groups_create_principals is spelled as a resource's setting", async () => {
    let error: unknown;
    try {
      const server = await startTestServer({ groups_create_principals: "system.Authenticated" });
      await server.stop();
    } catch (thrown) {
      error = thrown;
    }
    expect(String(error)).to.include("who may create groups is group_create_principals");
  });

  it("reserves every group id while an OpenID policy maps a groups claim", async () => {
    // Dotted policy options come from a config file (the environment overrides only names it knows).
    const file = path.join(mkdtempSync(path.join(tmpdir(), "tessera-groups-")), "openid.ini");
    writeFileSync(
      file,
      [
        "multiauth.policies = basicauth corp",
        "multiauth.policy.corp.use = openid",
        "multiauth.policy.corp.issuer = https://issuer.invalid",
        "multiauth.policy.corp.client_id = tessera",
        "multiauth.policy.corp.groups_claim = groups",
      ].join("\n"),
    );
    const server = await startTestServer({ config: file });
    try {
      const res = await server.request("PUT", "/v1/groups/admins", { user: EVE, body: { data: { members: [userId(EVE)] } } });
      expect(res.status).to.equal(403);
      expect(res.body.message).to.include("groups_claim");
      expect((await server.request("GET", "/v1/", { user: EVE })).body.user.principals).not.to.include("group:admins");
    } finally {
      await server.stop();
    }
  });
});
