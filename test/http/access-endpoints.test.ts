/**
 * explain, readers and /permissions over HTTP: what each answers (sources, settings names,
 * chains, group expansion), their pages, and what they refuse, on every backend. Expected bodies
 * are written out.
 */
import { expect } from "chai";
import type { PermissionStore } from "../../src/application/ports/permission-store.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { permissionBackendSetups, postgresWithRedisSetup, type BackendSetup } from "../support/backend-setups.js";
import { startTestServer, userId, type TestServer } from "../support/http.js";
import { walkNextPages } from "../support/page-walk.js";
import { requireService } from "../support/services.js";
import { flushStorage } from "../support/storage-reset.js";

const ALICE = userId("alice:pw");
const BOB = userId("bob:pw");
const CAROL = userId("carol:pw");

const BACKENDS: Array<BackendSetup & { readonly alsoNeeds?: "postgresql" }> = [
  ...permissionBackendSetups("accessroutes"),
  postgresWithRedisSetup("accessroutes"),
];

for (const backend of BACKENDS)
  describe(`explain, readers and /permissions (${backend.name})`, function () {
    if (backend.service) requireService(backend.service);
    if (backend.alsoNeeds) requireService(backend.alsoNeeds);
    this.timeout(30_000);
    let server: TestServer;
    let permissions: PermissionStore;
    const get = (path: string, user?: string) => server.request("GET", path, { user });

    before(async () => {
      server = await startTestServer(
        { ...(await backend.settings()), articles_read_principals: "group:auditors", reviews_create_principals: ALICE },
        [
          {
            // The built-in group records decide who sees a group's members in readers.
            resources: [{ name: "reviews", kind: "shareable", extraPermissions: ["comment"] }],
          },
        ],
      );
      await (await server.running.container.getAsync(TOKENS.Migrator)).migrate();
      permissions = await server.running.container.getAsync(TOKENS.PermissionStore);
    });
    beforeEach(async () => {
      await permissions.flush();
      await flushStorage(server.running.container);
      await permissions.addUserPrincipal(BOB, "group:editors");
      await permissions.addUserPrincipal(CAROL, "group:auditors");
      // Alice may read these groups, so her readers pages show their members.
      for (const group of ["editors", "auditors", "staff"]) await permissions.addPrincipalToAce(`/groups/${group}`, "read", ALICE);
      const put = await server.request("PUT", "/v1/articles/a1", {
        user: "alice:pw",
        body: { data: { t: 1 }, permissions: { read: ["group:editors"] } },
      });
      expect(put.status).to.equal(201);
    });
    after(() => server.stop());

    describe("explain", () => {
      it("names the record grant and the chain through the group", async () => {
        const res = await get("/v1/articles/a1/explain?permission=read", "bob:pw");
        expect(res.status).to.equal(200);
        expect(res.body.data).to.deep.include({ permission: "read", uri: "/articles/a1", allowed: true });
        expect(res.body.data.checked).to.deep.equal([
          { uri: "/articles/a1", permission: "read" },
          { uri: "/articles/a1", permission: "write" },
          { uri: "/articles", permission: "read" },
          { uri: "/articles", permission: "write" },
        ]);
        expect(res.body.data.grants).to.deep.equal([
          {
            source: "record",
            uri: "/articles/a1",
            permission: "read",
            principals: [{ principal: "group:editors", chain: [BOB, "group:editors"] }],
          },
        ]);
      });

      it("follows groups in groups, for explain's chain and for readers", async () => {
        await permissions.addUserPrincipal("group:editors", "group:staff");
        await server.request("PATCH", "/v1/articles/a1", { user: "alice:pw", body: { permissions: { read: ["group:staff"] } } });
        const res = await get("/v1/articles/a1/explain", "bob:pw");
        expect(res.body.data.grants[0].principals).to.deep.equal([
          { principal: "group:staff", chain: [BOB, "group:editors", "group:staff"] },
        ]);
        const readers = await get("/v1/articles/a1/readers", "alice:pw");
        const bob = readers.body.data.find((r: { principal: string }) => r.principal === BOB);
        expect(bob).to.deep.equal({ principal: BOB, grants: [], through: ["group:staff"] });
      });

      it("names the setting and the collection ACL", async () => {
        await permissions.addPrincipalToAce("/articles", "write", "system.Authenticated");
        const res = await get("/v1/articles/a1/explain", "carol:pw");
        expect(res.body.data.grants).to.deep.equal([
          {
            source: "settings",
            uri: "/articles",
            permission: "read",
            setting: "articles_read_principals",
            principals: [{ principal: "group:auditors", chain: [CAROL, "group:auditors"] }],
          },
          {
            source: "collection",
            uri: "/articles",
            permission: "write",
            principals: [{ principal: "system.Authenticated", chain: [CAROL, "system.Authenticated"] }],
          },
        ]);
      });

      it("answers write for a reader who may not write, and create on the collection", async () => {
        const write = await get("/v1/articles/a1/explain?permission=write", "bob:pw");
        expect(write.body.data).to.deep.include({ allowed: false, grants: [] });
        const create = await get("/v1/articles/a1/explain?permission=create", "bob:pw");
        expect(create.body.data.uri).to.equal("/articles");
        expect(create.body.data.allowed).to.equal(true); // the test server's articles_create_principals
        expect(create.body.data.grants[0].setting).to.equal("articles_create_principals");
      });

      it("tells a non-reader the same for an existing and a missing record", async () => {
        const existing = await get("/v1/articles/a1/explain", "dave:pw");
        const missing = await get("/v1/articles/nothing/explain", "dave:pw");
        expect(existing.status).to.equal(200);
        expect(existing.body.data.allowed).to.equal(false);
        expect({ ...missing.body.data, uri: "" }).to.deep.equal({
          ...existing.body.data,
          uri: "",
          checked: existing.body.data.checked.map((c: { uri: string; permission: string }) => ({
            ...c,
            uri: c.uri.replace("a1", "nothing"),
          })),
        });
        expect((await get("/v1/articles/a1/explain?permission=write", "dave:pw")).status).to.equal(403);
        expect((await get("/v1/articles/nothing/explain?permission=write", "dave:pw")).status).to.equal(403);
        expect((await get("/v1/articles/a1/explain?permission=write")).status).to.equal(401);
        expect((await get("/v1/articles/nothing/explain", "carol:pw")).status).to.equal(404);
      });

      it("answers owner on a user resource, and 404 for another user's id", async () => {
        expect((await server.request("PUT", "/v1/notes/n1", { user: "alice:pw", body: { data: {} } })).status).to.equal(201);
        const own = await get("/v1/notes/n1/explain?permission=write", "alice:pw");
        expect(own.body.data.grants).to.deep.equal([
          { source: "owner", uri: "/notes/n1", permission: "write", principals: [{ principal: ALICE, chain: [ALICE] }] },
        ]);
        expect((await get("/v1/notes/n1/explain", "bob:pw")).status).to.equal(404);
        expect((await get("/v1/notes/n1/readers", "alice:pw")).body.data).to.deep.equal([
          { principal: ALICE, grants: [{ source: "owner", uri: "/notes/n1", permission: "read" }], through: [] },
        ]);
        expect((await get("/v1/notes/n1/explain")).status).to.equal(401);
      });

      it("refuses unknown permissions, odd ids, unknown collections and other methods", async () => {
        const bad = await get("/v1/articles/a1/explain?permission=delete", "alice:pw");
        expect(bad.status).to.equal(400);
        expect(bad.body.details[0]).to.deep.include({ location: "querystring", name: "permission" });
        expect((await get("/v1/articles/a1/explain?permission=%00%ff", "alice:pw")).status).to.equal(400);
        expect((await get(`/v1/articles/a1/explain?permission=${"r".repeat(5000)}`, "alice:pw")).status).to.equal(400);
        expect((await get("/v1/articles/-x/explain", "alice:pw")).status).to.equal(400);
        expect((await get(`/v1/articles/${"a".repeat(256)}/explain`, "alice:pw")).status).to.equal(400);
        expect((await get("/v1/articles/%C3%A9t%C3%A9/explain", "alice:pw")).status).to.equal(400);
        expect((await get("/v1/nowhere/a1/explain", "alice:pw")).status).to.equal(404);
        const post = await server.request("POST", "/v1/articles/a1/explain", { user: "alice:pw", body: {} });
        expect(post.status).to.equal(405);
        expect(post.headers.get("allow")).to.equal("GET");
      });
    });

    describe("readers", () => {
      it("lists grants and members through groups, for writers only", async () => {
        await permissions.addUserPrincipal(CAROL, "group:editors");
        const res = await get("/v1/articles/a1/readers", "alice:pw");
        expect(res.status).to.equal(200);
        const byPrincipal = Object.fromEntries(res.body.data.map((r: { principal: string }) => [r.principal, r]));
        expect(Object.keys(byPrincipal).sort()).to.deep.equal([ALICE, BOB, CAROL, "group:auditors", "group:editors"].sort());
        expect(byPrincipal[BOB]).to.deep.equal({ principal: BOB, grants: [], through: ["group:editors"] });
        expect(byPrincipal[CAROL]).to.deep.equal({ principal: CAROL, grants: [], through: ["group:auditors", "group:editors"] });
        expect(byPrincipal["group:auditors"].grants).to.deep.equal([{ source: "settings", uri: "/articles", permission: "read" }]);
        expect(byPrincipal[ALICE].grants).to.deep.equal([{ source: "record", uri: "/articles/a1", permission: "write" }]);
        expect((await get("/v1/articles/a1/readers", "bob:pw")).status).to.equal(403);
        expect((await get("/v1/articles/a1/readers", "dave:pw")).status).to.equal(403);
        expect((await get("/v1/articles/a1/readers")).status).to.equal(401);
        expect((await get("/v1/articles/ghost/readers", "carol:pw")).status).to.equal(404);
      });

      it("pages by principal with _limit and Next-Page, and refuses another record's token", async () => {
        const many = Array.from({ length: 7 }, (_, i) => `group:r${i}`);
        await server.request("PATCH", "/v1/articles/a1", { user: "alice:pw", body: { permissions: { read: many } } });
        const pages = await walkNextPages(server, "/v1/articles/a1/readers?_limit=3", "alice:pw", 10);
        const principals = pages.flatMap((p) => p.body.data.map((r: { principal: string }) => r.principal));
        expect(principals).to.deep.equal([ALICE, CAROL, "group:auditors", ...many].sort());
        expect(pages.map((p) => p.body.data.length)).to.deep.equal([3, 3, 3, 1]);
        const token = new URL(pages[0]!.headers.get("next-page")!).searchParams.get("_token")!;
        await server.request("PUT", "/v1/articles/a2", { user: "alice:pw", body: { data: {} } });
        const other = await get(`/v1/articles/a2/readers?_token=${encodeURIComponent(token)}`, "alice:pw");
        expect(other.status).to.equal(400);
        expect(other.body.details[0].name).to.equal("_token");
      });

      it("pages members of nested groups merged with the named principals, each once, with its groups", async () => {
        // group:editors (named) is also in group:staff (named); m0..m6 in group:staff, m2 also in group:editors.
        await permissions.addUserPrincipal("group:editors", "group:staff");
        const members = Array.from({ length: 7 }, (_, i) => `member:m${i}`);
        for (const member of members) await permissions.addUserPrincipal(member, "group:staff");
        await permissions.addUserPrincipal("member:m2", "group:editors");
        await server.request("PATCH", "/v1/articles/a1", {
          user: "alice:pw",
          body: { permissions: { read: ["group:editors", "group:staff"] } },
        });
        const expected = [
          [ALICE, []],
          [BOB, ["group:editors", "group:staff"]],
          [CAROL, ["group:auditors"]],
          ["group:auditors", []],
          ["group:editors", ["group:staff"]],
          ["group:staff", []],
          ...members.map((m) => [m, m === "member:m2" ? ["group:editors", "group:staff"] : ["group:staff"]]),
        ].sort((a, b) => ((a[0] as string) < (b[0] as string) ? -1 : 1));
        for (const limit of [2, 5, 100]) {
          const pages = await walkNextPages(server, `/v1/articles/a1/readers?_limit=${limit}`, "alice:pw", 20);
          const seen = pages.flatMap((p) => p.body.data.map((r: { principal: string; through: string[] }) => [r.principal, r.through]));
          expect(seen, `_limit=${limit}`).to.deep.equal(expected);
          expect(pages.every((p) => p.body.data.length <= limit)).to.equal(true);
        }
        const staff = (await get("/v1/articles/a1/readers?_limit=100", "alice:pw")).body.data.find(
          (r: { principal: string }) => r.principal === "group:editors",
        );
        expect(staff.grants).to.deep.equal([{ source: "record", uri: "/articles/a1", permission: "read" }]);
      });
    });

    describe("/permissions", () => {
      it("lists the collection and each record the caller holds a permission on, by id, over pages", async () => {
        for (const id of ["b2", "b1", "b3"])
          await server.request("PUT", `/v1/articles/${id}`, { user: "alice:pw", body: { data: {}, permissions: { read: [BOB] } } });
        const pages = await walkNextPages(server, "/v1/permissions?_limit=2", "bob:pw", 10);
        expect(pages.flatMap((p) => p.body.data)).to.deep.equal([
          { id: "articles", resource_name: "collection", uri: "/articles", permissions: ["create"] },
          { id: "a1", collection_id: "articles", resource_name: "record", uri: "/articles/a1", permissions: ["read"] },
          { id: "b1", collection_id: "articles", resource_name: "record", uri: "/articles/b1", permissions: ["read"] },
          { id: "b2", collection_id: "articles", resource_name: "record", uri: "/articles/b2", permissions: ["read"] },
          { id: "b3", collection_id: "articles", resource_name: "record", uri: "/articles/b3", permissions: ["read"] },
          // Kinto's tree: any signed-in user may create buckets (bucket_create_principals), as Kinto lists it.
          { uri: "/", resource_name: "root", permissions: ["bucket:create"] },
          // Any signed-in user may create groups (group_create_principals).
          { id: "groups", resource_name: "collection", uri: "/groups", permissions: ["create"] },
          { id: "notes", resource_name: "collection", uri: "/notes", permissions: ["read", "write", "create"] },
        ]);
        const alice = await get("/v1/permissions", "alice:pw");
        expect(alice.body.data.map((e: { uri: string; permissions: string[] }) => `${e.uri} ${e.permissions.join(",")}`)).to.deep.equal([
          "/articles create",
          "/articles/a1 read,write",
          "/articles/b1 read,write",
          "/articles/b2 read,write",
          "/articles/b3 read,write",
          "/ bucket:create",
          "/groups create",
          "/notes read,write,create",
          "/reviews create",
        ]);
      });

      it("lists records held only through a permission that does not grant read, and the caller's own records", async () => {
        const put = (path: string, user: string, body: object) => server.request("PUT", path, { user, body });
        expect((await put("/v1/reviews/rv2", "alice:pw", { data: {}, permissions: { comment: [BOB] } })).status).to.equal(201);
        expect((await put("/v1/reviews/rv1", "alice:pw", { data: {}, permissions: { read: ["group:editors"] } })).status).to.equal(201);
        await put("/v1/reviews/rv3", "alice:pw", { data: {}, permissions: { comment: [CAROL] } });
        for (const id of ["n2", "n1"]) expect((await put(`/v1/notes/${id}`, "bob:pw", { data: {} })).status).to.equal(201);
        await put("/v1/notes/n3", "alice:pw", { data: {} });
        // Bob cannot read rv2, yet holds comment there: Kinto's /permissions names it.
        expect((await get("/v1/reviews/rv2", "bob:pw")).status).to.equal(403);
        const expected = [
          "/articles create",
          "/articles/a1 read",
          "/ bucket:create",
          "/groups create",
          "/notes read,write,create",
          "/notes/n1 read,write",
          "/notes/n2 read,write",
          "/reviews/rv1 read",
          "/reviews/rv2 comment",
        ];
        for (const limit of [1, 2, 3, 100]) {
          const pages = await walkNextPages(server, `/v1/permissions?_limit=${limit}`, "bob:pw", 20);
          const seen = pages.flatMap((p) =>
            p.body.data.map((e: { uri: string; permissions: string[] }) => `${e.uri} ${e.permissions.join(",")}`),
          );
          expect(seen, `_limit=${limit}`).to.deep.equal(expected);
          expect(pages.every((p) => p.body.data.length <= limit)).to.equal(true);
        }
        const note = (await get("/v1/permissions", "bob:pw")).body.data.find((e: { uri: string }) => e.uri === "/notes/n1");
        expect(note).to.deep.equal({
          id: "n1",
          collection_id: "notes",
          resource_name: "record",
          uri: "/notes/n1",
          permissions: ["read", "write"],
        });
        const anonymous = await get("/v1/permissions");
        expect(anonymous.status).to.equal(200);
        expect(anonymous.body.data).to.deep.equal([]);
      });

      it("lists what anonymous callers hold through system.Everyone", async () => {
        await server.request("PUT", "/v1/articles/pub", {
          user: "alice:pw",
          body: { data: {}, permissions: { read: ["system.Everyone"] } },
        });
        expect((await get("/v1/permissions")).body.data).to.deep.equal([
          { id: "pub", collection_id: "articles", resource_name: "record", uri: "/articles/pub", permissions: ["read"] },
        ]);
      });

      it("refuses _limit out of 1..1000 and foreign tokens", async () => {
        for (const limit of ["0", "1001", "99999999999", "-1", "abc", "1.5"]) {
          const res = await get(`/v1/permissions?_limit=${limit}`, "bob:pw");
          expect(res.status, limit).to.equal(400);
          expect(res.body.details[0].name).to.equal("_limit");
        }
        expect((await get("/v1/permissions?_limit=1000", "bob:pw")).status).to.equal(200);
        expect((await get("/v1/permissions?_token=eyJ4Ijox", "bob:pw")).status).to.equal(400);
        expect((await get(`/v1/permissions?_token=${"A".repeat(5000)}`, "bob:pw")).status).to.equal(400);
      });
    });
  });
