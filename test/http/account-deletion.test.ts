/**
 * A deleted account's id is never inherited: whoever signs up as it next, anonymous or
 * administrator, is refused, so no one holds the old account's groups, notes or shares; and the
 * old account's own memberships are gone from the permission backend. On every backend.
 */
import { expect } from "chai";
import type { PermissionStore } from "../../src/application/ports/permission-store.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { permissionBackendSetups, postgresWithRedisSetup, type BackendSetup } from "../support/backend-setups.js";
import { startTestServer, type TestServer } from "../support/http.js";
import { requireService } from "../support/services.js";
import { flushStorage } from "../support/storage-reset.js";

const BACKENDS: Array<BackendSetup & { readonly alsoNeeds?: "postgresql" }> = [
  ...permissionBackendSetups("acctdel"),
  postgresWithRedisSetup("acctdel"),
];

/** The refusal the docs promise, written out here rather than taken from the product. */
const retiredMessage = (id: string) => `Account ID '${id}' belonged to a deleted account and cannot be used again`;

for (const backend of BACKENDS)
  describe(`a deleted account's id is never inherited (${backend.name})`, function () {
    if (backend.service) requireService(backend.service);
    if (backend.alsoNeeds) requireService(backend.alsoNeeds);
    this.timeout(30_000);
    let server: TestServer;
    let permissions: PermissionStore;

    const signUp = (id: string, password: string, user?: string) =>
      server.request("PUT", `/v1/accounts/${id}`, { user, body: { data: { password } } });
    const postSignUp = (id: string, password: string, user?: string) =>
      server.request("POST", "/v1/accounts", { user, body: { data: { id, password } } });
    const whoAmI = async (user: string) => ((await server.request("GET", "/v1/", { user })).body as { user?: { id: string } }).user;

    /** The owner deletes their account (Kinto's answer). */
    async function deleteAsOwner(id: string, password: string) {
      const deleted = await server.request("DELETE", `/v1/accounts/${id}`, { user: `${id}:${password}` });
      expect(deleted.status).to.equal(200);
      expect(deleted.body.data).to.deep.include({ id, deleted: true });
    }

    before(async () => {
      server = await startTestServer({
        ...(await backend.settings()),
        "multiauth.policies": "account",
        account_scrypt_cost: "4",
        account_write_principals: "account:admin",
      });
      await (await server.running.container.getAsync(TOKENS.Migrator)).migrate();
      permissions = await server.running.container.getAsync(TOKENS.PermissionStore);
      await permissions.flush();
      await flushStorage(server.running.container);
      expect((await signUp("admin", "pw-admin")).status).to.equal(201);
      expect((await signUp("alice", "pw-alice")).status).to.equal(201);
    });
    after(() => server?.stop());

    it("gives group:big's access to no later `mallory`, and drops the old account's memberships", async () => {
      expect((await signUp("mallory", "pw-mallory")).status).to.equal(201);
      await permissions.addUserPrincipal("account:mallory", "group:big");
      // And the other way: a group holding mallory's principal (its members saw what she saw).
      await permissions.addUserPrincipal("group:mallory-watchers", "account:mallory");
      const shared = await server.request("PUT", "/v1/articles/big-plans", {
        user: "alice:pw-alice",
        body: { data: { title: "for the big group" }, permissions: { read: ["group:big"] } },
      });
      expect(shared.status).to.equal(201);
      expect((await server.request("GET", "/v1/articles/big-plans", { user: "mallory:pw-mallory" })).status).to.equal(200);

      await deleteAsOwner("mallory", "pw-mallory");

      const again = await signUp("mallory", "pw-new");
      expect(again.status).to.equal(403);
      expect(again.body.message).to.equal(retiredMessage("mallory"));
      expect((await postSignUp("mallory", "pw-new")).status).to.equal(403);
      for (const user of ["mallory:pw-new", "mallory:pw-mallory"]) {
        expect(await whoAmI(user)).to.equal(undefined);
        expect((await server.request("GET", "/v1/articles/big-plans", { user })).status).to.equal(401);
      }
      // The membership rows themselves are gone, not only unusable.
      expect([...((await permissions.directPrincipals(["account:mallory"])).get("account:mallory") ?? [])]).to.deep.equal([]);
      expect([...(await permissions.userPrincipals("account:mallory"))]).to.deep.equal([]);
      expect([...(await permissions.membersOf("group:big"))]).to.deep.equal([]);
      expect([...(await permissions.membersOf("account:mallory"))]).to.deep.equal([]);
    });

    it("lets no stranger signing up as `carol` read her notes or the article shared with her", async () => {
      expect((await signUp("carol", "pw-carol")).status).to.equal(201);
      const note = await server.request("POST", "/v1/notes", { user: "carol:pw-carol", body: { data: { text: "private" } } });
      expect(note.status).to.equal(201);
      const noteId = note.body.data.id as string;
      const article = await server.request("PUT", "/v1/articles/for-carol", {
        user: "alice:pw-alice",
        body: { data: { title: "for carol" }, permissions: { read: ["account:carol"] } },
      });
      expect(article.status).to.equal(201);
      expect((await server.request("GET", `/v1/notes/${noteId}`, { user: "carol:pw-carol" })).status).to.equal(200);
      expect((await server.request("GET", "/v1/articles/for-carol", { user: "carol:pw-carol" })).status).to.equal(200);
      await deleteAsOwner("carol", "pw-carol");

      const put = await signUp("carol", "stranger");
      expect(put.status).to.equal(403);
      expect(put.body.message).to.equal(retiredMessage("carol"));
      const post = await postSignUp("carol", "stranger");
      expect(post.status).to.equal(403);
      expect(post.body.message).to.equal(retiredMessage("carol"));
      expect(await whoAmI("carol:stranger")).to.equal(undefined);
      expect((await server.request("GET", `/v1/notes/${noteId}`, { user: "carol:stranger" })).status).to.equal(401);
      expect((await server.request("GET", "/v1/articles/for-carol", { user: "carol:stranger" })).status).to.equal(401);
      // The article stays Alice's, with its ACL as she wrote it.
      const kept = await server.request("GET", "/v1/articles/for-carol", { user: "alice:pw-alice" });
      expect(kept.status).to.equal(200);
      expect(kept.body.permissions.read).to.deep.equal(["account:carol"]);
    });

    it("lets no administrator re-create a deleted id either, and answers 404 for it", async () => {
      const admin = "admin:pw-admin";
      expect((await signUp("dora", "pw-dora")).status).to.equal(201);
      await deleteAsOwner("dora", "pw-dora");

      const put = await signUp("dora", "by-admin", admin);
      expect(put.status).to.equal(403);
      expect(put.body.message).to.equal(retiredMessage("dora"));
      const post = await postSignUp("dora", "by-admin", admin);
      expect(post.status).to.equal(403);
      expect(post.body.message).to.equal(retiredMessage("dora"));
      expect(await whoAmI("dora:by-admin")).to.equal(undefined);
      expect((await server.request("GET", "/v1/accounts/dora", { user: admin })).status).to.equal(404);
      expect((await server.request("PATCH", "/v1/accounts/dora", { user: admin, body: { data: { password: "reset" } } })).status).to.equal(
        404,
      );
      expect((await server.request("DELETE", "/v1/accounts/dora", { user: admin })).status).to.equal(404);
      const listed = await server.request("GET", "/v1/accounts", { user: admin });
      // Only the live accounts of this suite (the others it deleted are retired too).
      expect(listed.body.data.map((a: { id: string }) => a.id)).to.deep.equal(["admin", "alice"]);
    });

    it("still tells a live account's id from a deleted one's: 'already exists' for the former", async () => {
      const taken = await postSignUp("alice", "other");
      expect(taken.status).to.equal(403);
      expect(taken.body.message).to.equal("Account ID 'alice' already exists");
    });
  });
