/**
 * explain, readers and /permissions under abuse: many invented identities at once, odd bytes in
 * ids, permissions and tokens, and the largest page. Each answer is bounded (a 400, a refusal or
 * a capped page) and the service keeps answering a regular user meanwhile.
 */
import { expect } from "chai";
import type { PermissionStore } from "../../src/application/ports/permission-store.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { startTestServer, userId, type TestServer } from "../support/http.js";

describe("explain, readers and /permissions under abuse", function () {
  this.timeout(120_000);
  let server: TestServer;
  let permissions: PermissionStore;
  const get = (path: string, user?: string) => server.request("GET", path, { user });

  before(async () => {
    // The built-in group records: who may read /groups/<id> sees the members of group:<id> in readers.
    server = await startTestServer({});
    permissions = await server.running.container.getAsync(TOKENS.PermissionStore);
    await permissions.addPrincipalToAce("/groups/big", "read", userId("alice:pw"));
    const put = await server.request("PUT", "/v1/articles/a1", {
      user: "alice:pw",
      body: { data: {}, permissions: { read: ["group:big"] } },
    });
    expect(put.status).to.equal(201);
  });
  after(() => server.stop());

  it("answers 600 invented identities at once, each within its bounds, and leaves no principal behind", async () => {
    let next = 0;
    const statuses = new Map<string, number>();
    const tally = (key: string) => statuses.set(key, (statuses.get(key) ?? 0) + 1);
    const worker = async () => {
      while (next < 600) {
        const user = `invented-${next++}:pw`;
        tally(`explain ${(await get("/v1/articles/a1/explain", user)).status}`);
        tally(`readers ${(await get("/v1/articles/a1/readers?_limit=1000", user)).status}`);
        const objects = await get("/v1/permissions?_limit=1000", user);
        tally(`permissions ${objects.status} ${objects.body.data.length}`);
      }
    };
    const regular: number[] = [];
    const probe = async () => {
      while (next < 600) {
        const started = Date.now();
        expect((await get("/v1/articles/a1", "alice:pw")).status).to.equal(200);
        regular.push(Date.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    await Promise.all([...Array.from({ length: 24 }, worker), probe()]);
    // Every invented caller: read denied (explained), no readers, only the collections' create (articles, groups), their own
    // (empty) notes, and the tree's root (any signed-in user may create buckets).
    expect(Object.fromEntries(statuses)).to.deep.equal({ "explain 200": 600, "readers 403": 600, "permissions 200 4": 600 });
    expect(regular.length).to.be.above(0);
    for (let i = 0; i < 600; i += 97) expect([...(await permissions.userPrincipals(userId(`invented-${i}:pw`)))]).to.deep.equal([]);
  });

  it("refuses odd bytes in ids, permissions and tokens with a 400, never a 500", async () => {
    const paths = [
      "/v1/articles/a%00b/explain",
      "/v1/articles/a%0Ab/readers",
      `/v1/articles/${"x".repeat(300)}/readers`,
      "/v1/articles/a1/explain?permission=read%00",
      "/v1/articles/a1/explain?permission=%E2%80%AEdaer",
      "/v1/articles/a1/explain?permission=system.Everyone",
      "/v1/articles/a1/readers?_token=%00%01",
      "/v1/articles/a1/readers?_limit=%00",
      "/v1/permissions?_token=e30%3D",
      "/v1/permissions?_limit=1e3",
    ];
    for (const path of paths) {
      const res = await get(path, "alice:pw");
      expect(res.status, path).to.equal(400);
      expect(res.body.details, path).to.be.an("array").that.is.not.empty;
    }
    // Bytes that are no UTF-8 fail at the router, as on every route: errno 107 too.
    const undecodable = await get("/v1/articles/%FF%FE/explain", "alice:pw");
    expect([undecodable.status, undecodable.body.errno]).to.deep.equal([400, 107]);
  });

  it("caps a readers page at 1,000 of 1,500 members, with the next page to follow", async () => {
    for (let i = 0; i < 1500; i++) await permissions.addUserPrincipal(`member-${String(i).padStart(4, "0")}`, "group:big");
    const first = await get("/v1/articles/a1/readers?_limit=1000", "alice:pw");
    expect(first.status).to.equal(200);
    expect(first.body.data).to.have.length(1000);
    const next = new URL(first.headers.get("next-page")!);
    const second = await get(next.pathname + next.search, "alice:pw");
    expect(second.body.data).to.have.length(1500 + 2 - 1000); // the members, group:big and alice
    expect(second.headers.get("next-page")).to.equal(null);
    expect((await get("/v1/articles/a1/readers?_limit=1001", "alice:pw")).status).to.equal(400);
  });
});
