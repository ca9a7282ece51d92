/**
 * readers shows a group's members only to a caller who may read the group: `GET /groups/<id>`
 * would answer them (200, or 404 with a read on the collection) for `group:<id>`. Anyone who may
 * create a record can name any group in its ACL; naming it must not list who is in it. The group
 * itself stays listed (it is in the ACL its writer sees). On every permission backend.
 */
import { expect } from "chai";
import type { PermissionStore } from "../../src/application/ports/permission-store.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { startTestServer, userId, type TestServer } from "../support/http.js";
import { permissionBackendSetups } from "../support/backend-setups.js";
import { walkNextPages } from "../support/page-walk.js";
import { requireService } from "../support/services.js";

const DAVE = userId("dave:pw");
const ADMIN = userId("admin:pw");

/** What a readers answer shows, as "principal <- through,through". */
type Row = string;
const rowsOf = (data: { principal: string; through: string[] }[]): Row[] => data.map((r) => `${r.principal} <- ${r.through.join(",")}`);

for (const backend of permissionBackendSetups("readersprivacy"))
  describe(`readers shows only the members of groups the caller may read (${backend.name})`, function () {
    if (backend.service) requireService(backend.service);
    this.timeout(60_000);
    let server: TestServer;
    let permissions: PermissionStore;
    const get = (path: string, user?: string) => server.request("GET", path, { user });
    /** Every readers page of the record, as rows. */
    const readers = async (record: string, user: string, limit = 3): Promise<Row[]> =>
      (await walkNextPages(server, `/v1/articles/${record}/readers?_limit=${limit}`, user, 100)).flatMap((p) => rowsOf(p.body.data));
    const share = async (record: string, user: string, read: string[]) =>
      expect((await server.request("PUT", `/v1/articles/${record}`, { user, body: { data: {}, permissions: { read } } })).status).to.equal(
        201,
      );

    before(async () => {
      server = await startTestServer({
        ...(await backend.settings()),
        // The built-in group records; the admin reads every one of them through the settings.
        groups_read_principals: ADMIN,
      });
      await (await server.running.container.getAsync(TOKENS.Migrator)).migrate();
      permissions = await server.running.container.getAsync(TOKENS.PermissionStore);
    });
    beforeEach(async () => {
      await permissions.flush();
      await (await server.running.container.getAsync(TOKENS.RecordStore)).flush();
    });
    after(() => server.stop());

    it("hides the members of a group named in the caller's own record until the caller may read it", async () => {
      await permissions.addUserPrincipal("bob", "group:editors");
      await permissions.addUserPrincipal("carol", "group:secret");
      await share("d1", "dave:pw", ["group:editors", "group:secret"]);
      expect(await readers("d1", "dave:pw")).to.deep.equal([`${DAVE} <- `, "group:editors <- ", "group:secret <- "].sort());
      // Now a reader of /groups/editors (its record's ACL): its members, not group:secret's.
      await permissions.addPrincipalToAce("/groups/editors", "read", DAVE);
      expect(await readers("d1", "dave:pw")).to.deep.equal(
        [`${DAVE} <- `, "bob <- group:editors", "group:editors <- ", "group:secret <- "].sort(),
      );
    });

    it("lists a group nested in a readable one, never walking into it unless it is readable too", async () => {
      // group:secret is in group:team; carol in group:secret, erin in group:team.
      await permissions.addUserPrincipal("group:secret", "group:team");
      await permissions.addUserPrincipal("carol", "group:secret");
      await permissions.addUserPrincipal("erin", "group:team");
      await permissions.addPrincipalToAce("/groups/team", "read", DAVE);
      await share("d1", "dave:pw", ["group:team"]);
      expect(await readers("d1", "dave:pw")).to.deep.equal(
        [`${DAVE} <- `, "erin <- group:team", "group:secret <- group:team", "group:team <- "].sort(),
      );
      await permissions.addPrincipalToAce("/groups/secret", "read", DAVE);
      expect(await readers("d1", "dave:pw")).to.include("carol <- group:team");
    });

    it("decides as GET /groups/<id> decides: record ACL, its groups, write, not a group without its record", async () => {
      await permissions.addUserPrincipal(DAVE, "group:club");
      const owner = "owner:pw";
      const cases: Record<string, Record<string, string[]>> = {
        "g-read": { read: [DAVE] },
        "g-write": { write: [DAVE] },
        "g-club": { read: ["group:club"] },
        "g-none": { read: [userId("someone:pw")] },
      };
      for (const [id, acl] of Object.entries(cases))
        expect(
          (await server.request("PUT", `/v1/groups/${id}`, { user: owner, body: { data: { members: [] }, permissions: acl } })).status,
        ).to.equal(201);
      // g-code: a group created by code, without a record (private to code).
      const names = [...Object.keys(cases), "g-code"];
      for (const name of names) await permissions.addUserPrincipal(`m-${name}`, `group:${name}`);
      await share(
        "d1",
        "dave:pw",
        names.map((n) => `group:${n}`),
      );
      const shown = (await readers("d1", "dave:pw")).filter((row) => row.startsWith("m-"));
      const readable: string[] = [];
      for (const name of names) if ((await get(`/v1/groups/${name}`, "dave:pw")).status === 200) readable.push(name);
      expect(readable).to.deep.equal(["g-read", "g-write", "g-club"]);
      expect(shown).to.deep.equal(readable.map((n) => `m-${n} <- group:${n}`).sort());
    });

    it("shows every group's members to a settings principal of the groups resource, records or not", async () => {
      await permissions.addUserPrincipal("m1", "group:by-code");
      await permissions.addUserPrincipal("m2", "group:other");
      await share("a1", "admin:pw", ["group:by-code", "group:other"]);
      expect(await readers("a1", "admin:pw")).to.deep.equal(
        [`${ADMIN} <- `, "group:by-code <- ", "group:other <- ", "m1 <- group:by-code", "m2 <- group:other"].sort(),
      );
    });

    it("gives no member of 300 unreadable groups named at once, and refuses odd tokens", async () => {
      const many = Array.from({ length: 300 }, (_, i) => `group:victim${String(i).padStart(3, "0")}`);
      for (const group of many.slice(0, 20)) for (const m of ["x", "y"]) await permissions.addUserPrincipal(`${m}-${group}`, group);
      await share("d1", "dave:pw", many);
      const rows = await readers("d1", "dave:pw", 7);
      expect(rows).to.deep.equal([`${DAVE} <- `, ...many.map((g) => `${g} <- `)].sort());
      for (const token of ["%00%01", "abc", "eyJ9", encodeURIComponent("x".repeat(4097))]) {
        const res = await get(`/v1/articles/d1/readers?_token=${token}`, "dave:pw");
        expect(res.status, token.slice(0, 20)).to.equal(400);
        expect(res.body.details[0].name).to.equal("_token");
      }
      expect((await get("/v1/articles/d1/readers?_token=%FF%FE", "dave:pw")).status).to.equal(400); // not UTF-8
      // A /permissions token is no readers token.
      await share("d2", "dave:pw", []);
      const objects = await get("/v1/permissions?_limit=1", "dave:pw");
      const foreign = new URL(objects.headers.get("next-page")!).searchParams.get("_token")!;
      expect((await get(`/v1/articles/d1/readers?_token=${encodeURIComponent(foreign)}`, "dave:pw")).status).to.equal(400);
    });
  });

describe("readers of a group made by code, with no group record", function () {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  it("shows none of its members: groups made by code are private to code", async () => {
    const permissions = await server.running.container.getAsync(TOKENS.PermissionStore);
    await permissions.addUserPrincipal("bob", "group:editors");
    await server.request("PUT", "/v1/articles/a1", { user: "alice:pw", body: { data: {}, permissions: { read: ["group:editors"] } } });
    const res = await server.request("GET", "/v1/articles/a1/readers", { user: "alice:pw" });
    expect(res.status).to.equal(200);
    expect(rowsOf(res.body.data)).to.deep.equal([`${userId("alice:pw")} <- `, "group:editors <- "]);
  });
});
