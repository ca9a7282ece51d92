/**
 * explain never disagrees with the decision: over generated worlds (record ACLs, collection ACEs,
 * settings principals, memberships with groups in groups), every caller's explain verdict for
 * `read`, `write` and `create` is what GET, PATCH and PUT answer them, on every backend. The
 * writes are made conditional on a wrong ETag, so an allowed one answers 412 and changes nothing.
 */
import { expect } from "chai";
import type { PermissionStore } from "../../src/application/ports/permission-store.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { permissionBackendSetups, postgresWithRedisSetup, type BackendSetup } from "../support/backend-setups.js";
import { startTestServer, userId, type TestResponse, type TestServer } from "../support/http.js";
import { requireService } from "../support/services.js";

const USERS = ["u0:pw", "u1:pw", "u2:pw", "u3:pw", "u4:pw"];
const CALLERS: (string | undefined)[] = [undefined, ...USERS];
const GROUPS = ["group:g0", "group:g1", "group:g2", "group:g3"];
const PRINCIPALS = [...USERS.map((u) => userId(u)), ...GROUPS, "system.Everyone", "system.Authenticated"];
const CASES = 30;

const BACKENDS: Array<BackendSetup & { readonly alsoNeeds?: "postgresql" }> = [
  ...permissionBackendSetups("explaindiff"),
  postgresWithRedisSetup("explaindiff"),
];

/** A small seeded generator (mulberry32), so a failing world can be replayed by its seed. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const some = <T>(items: readonly T[], chance: number) => items.filter(() => next() < chance);
  return { next, some };
}

/** The verdict a real request's status gives: allowed, denied, or missing (404). */
function verdictOfStatus(status: number, allowedStatus: number): string {
  if (status === allowedStatus) return "allowed";
  if (status === 401 || status === 403) return "denied";
  if (status === 404) return "missing";
  return `unexpected ${status}`;
}

/** explain's verdict: 200 with `allowed`, a refusal, or 404. */
function verdictOfExplain(response: TestResponse): string {
  if (response.status === 200) return response.body.data.allowed === true ? "allowed" : "denied";
  return verdictOfStatus(response.status, -1);
}

for (const backend of BACKENDS) {
  describe(`explain agrees with GET, PATCH and PUT (${backend.name})`, function () {
    if (backend.service) requireService(backend.service);
    if (backend.alsoNeeds) requireService(backend.alsoNeeds);
    this.timeout(120_000);
    let server: TestServer;
    let permissions: PermissionStore;

    before(async () => {
      server = await startTestServer({
        ...(await backend.settings()),
        articles_create_principals: "group:g3",
        articles_read_principals: `group:g2 ${userId("u4:pw")}`,
        articles_write_principals: "group:nobody",
      });
      await (await server.running.container.getAsync(TOKENS.Migrator)).migrate();
      permissions = await server.running.container.getAsync(TOKENS.PermissionStore);
      await permissions.flush();
    });
    after(async () => {
      await permissions?.flush();
      await server?.stop();
    });

    it(`over ${CASES} generated worlds, for every caller and permission`, async () => {
      const writer = "owner:pw"; // creates the records, under create granted to group:g3
      await permissions.addUserPrincipal(userId(writer), "group:g3");
      let compared = 0;
      const seen = new Set<string>();
      for (let seed = 1; seed <= CASES; seed++) {
        const random = generator(seed);
        // Memberships: each user and group in some groups (groups in groups, cycles allowed).
        for (const member of [...USERS.map((u) => userId(u)), ...GROUPS])
          for (const group of GROUPS) {
            if (member === group) continue;
            if (random.next() < 0.2) await permissions.addUserPrincipal(member, group);
            else await permissions.removeUserPrincipal(member, group);
          }
        await permissions.replaceObjectPermissions("/articles", {
          read: random.some(PRINCIPALS, 0.08),
          write: random.some(PRINCIPALS, 0.04),
        });
        const id = `r${seed}`;
        const acl = { read: random.some(PRINCIPALS, 0.2), write: random.some(PRINCIPALS, 0.1) };
        const put = await server.request("PUT", `/v1/articles/${id}`, { user: writer, body: { data: { seed }, permissions: acl } });
        expect(put.status, JSON.stringify(put.body)).to.equal(201);
        // The owner ends up in write: take them out again so the record is anyone's by the ACL drawn.
        await permissions.removePrincipalFromAce(`/articles/${id}`, "write", userId(writer));
        for (const target of [id, `missing${seed}`]) {
          for (const caller of CALLERS) {
            const path = `/v1/articles/${target}`;
            const context = `seed ${seed}, ${target}, caller ${caller ?? "anonymous"}`;
            const explainRead = await server.request("GET", `${path}/explain?permission=read`, { user: caller });
            const get = await server.request("GET", path, { user: caller });
            expect(verdictOfExplain(explainRead), `read: ${context}`).to.equal(verdictOfStatus(get.status, 200));
            seen.add(`read ${verdictOfExplain(explainRead)}`);
            const explainWrite = await server.request("GET", `${path}/explain?permission=write`, { user: caller });
            const patch = await server.request("PATCH", path, { user: caller, body: { data: { x: 1 } }, headers: { "If-Match": '"1"' } });
            // Without read, explain refuses to say more than GET: a refusal it shares with the write.
            expect(verdictOfExplain(explainWrite), `write: ${context}`).to.equal(verdictOfStatus(patch.status, 412));
            seen.add(`write ${verdictOfExplain(explainWrite)}`);
            for (const grant of explainWrite.body?.data?.grants ?? []) seen.add(`write through ${grant.source}`);
            for (const grant of explainRead.body?.data?.grants ?? []) seen.add(`read through ${grant.source}`);
            const explainCreate = await server.request("GET", `${path}/explain?permission=create`, { user: caller });
            if (explainCreate.status === 200) {
              const create = await server.request("PUT", `/v1/articles/fresh${seed}`, {
                user: caller,
                body: { data: {} },
                headers: { "If-Match": '"1"' },
              });
              expect(verdictOfExplain(explainCreate), `create: ${context}`).to.equal(verdictOfStatus(create.status, 412));
              seen.add(`create ${verdictOfExplain(explainCreate)}`);
            }
            compared += 1;
          }
        }
      }
      expect(compared).to.equal(CASES * 2 * CALLERS.length);
      // The worlds drawn reach every verdict, and allowed answers through every kind of grant.
      expect([...seen].sort()).to.include.members([
        "create allowed",
        "create denied",
        "read allowed",
        "read denied",
        "read missing",
        "read through collection",
        "read through record",
        "read through settings",
        "write allowed",
        "write denied",
        "write missing",
        "write through collection",
        "write through record",
      ]);
    });
  });
}
