/**
 * Contract of sharing over HTTP, run on every backend combination (test/http/sharing-contract.test.ts):
 * who a listing shows records to, and the timestamps of writes made inside a batch. Each case
 * guards a rule whose PostgreSQL form is SQL (docs/mutation-testing.md, "Adapters"): the grant
 * scan's object-id range, write implying read in the grant scan, a user's groups in the
 * collection-level check, and the counter bump of writes inside a transaction.
 */
import { expect } from "chai";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { userId, type TestServer } from "../support/http.js";
import { flushStorage } from "../support/storage-reset.js";

const ALICE = "alice:pw";
const BOB = "bob:pw";

/** Two shareable collections whose names have the same length, the second sorting after the first. */
export const SHARING_RESOURCES = "notes:user articles:shareable articlez:shareable";
export const SHARING_SETTINGS: Record<string, string> = {
  resources: SHARING_RESOURCES,
  articles_create_principals: "system.Authenticated",
  articlez_create_principals: "system.Authenticated",
};

type Entry = { id: string; last_modified: number; deleted?: boolean };

/** An hour ahead of the clock: the collection's counter stays ahead of it for the whole case. */
function aheadOfClock(): number {
  return Date.now() + 3_600_000;
}

export function sharingContract(server: () => TestServer): void {
  const request = (...args: Parameters<TestServer["request"]>) => server().request(...args);
  const ids = async (path: string, user: string): Promise<string[]> => {
    const res = await request("GET", path, { user });
    expect(res.status, `GET ${path}`).to.equal(200);
    return (res.body.data as Entry[]).map((entry) => entry.id);
  };
  const put = async (path: string, body: unknown, user = ALICE): Promise<Entry> => {
    const res = await request("PUT", path, { user, body });
    expect(res.status, `PUT ${path}`).to.be.oneOf([200, 201]);
    return res.body.data as Entry;
  };

  beforeEach(async () => {
    const container = server().running.container;
    await flushStorage(container);
    await (await container.getAsync(TOKENS.PermissionStore)).flush();
  });

  describe("a shared listing beside a same-length collection holding the same ids", () => {
    beforeEach(async () => {
      await put("/v1/articles/mine", { data: { n: 1 }, permissions: { read: [userId(BOB)], write: [userId(BOB)] } });
      await put("/v1/articles/r1", { data: { n: 2 } });
      // Grants on objects of `articlez` whose ids are also ids in `articles`.
      await put("/v1/articlez/r1", { data: { n: 3 }, permissions: { read: [userId(BOB)], write: [userId(BOB)] } });
      await put("/v1/articlez/r2", { data: { n: 4 }, permissions: { read: [userId(BOB)] } });
    });

    it("lists, counts and syncs only the records shared in this collection", async () => {
      expect(await ids("/v1/articles", BOB)).to.deep.equal(["mine"]);
      expect(await ids("/v1/articles?_since=0", BOB)).to.deep.equal(["mine"]);
      expect(await ids("/v1/articles?_sort=id&_limit=1", BOB)).to.deep.equal(["mine"]);
      const head = await request("HEAD", "/v1/articles", { user: BOB });
      expect(head.headers.get("total-records")).to.equal("1");
      expect((await ids("/v1/articlez", BOB)).sort()).to.deep.equal(["r1", "r2"]);
      expect((await request("GET", "/v1/articles/r1", { user: BOB })).status).to.equal(403);
    });

    it("deletes in bulk only the records the caller may write in this collection", async () => {
      const res = await request("DELETE", "/v1/articles", { user: BOB });
      expect(res.status).to.equal(200);
      expect((res.body.data as Entry[]).map((entry) => entry.id)).to.deep.equal(["mine"]);
      expect((await request("GET", "/v1/articles/r1", { user: ALICE })).status).to.equal(200);
    });
  });

  it("lists and counts a record shared for writing only to its grantee (write implies read)", async () => {
    await put("/v1/articles/w1", { data: { n: 1 }, permissions: { write: [userId(BOB)] } });
    await put("/v1/articles/r1", { data: { n: 2 }, permissions: { read: [userId(BOB)] } });
    await put("/v1/articles/p1", { data: { n: 3 } });
    expect(await ids("/v1/articles?_sort=id", BOB)).to.deep.equal(["r1", "w1"]);
    const head = await request("HEAD", "/v1/articles", { user: BOB });
    expect(head.headers.get("total-records")).to.equal("2");
  });

  it("lets a member of a group granted read on the collection list every record of it", async () => {
    await put("/v1/articles/p1", { data: { n: 1 } });
    await put("/v1/articles/p2", { data: { n: 2 } });
    const permissions = await server().running.container.getAsync(TOKENS.PermissionStore);
    await permissions.addUserPrincipal(userId(BOB), "team");
    await permissions.addPrincipalToAce("/articles", "read", "team");
    expect(await ids("/v1/articles?_sort=id", BOB)).to.deep.equal(["p1", "p2"]);
    const head = await request("HEAD", "/v1/articles", { user: BOB });
    expect(head.headers.get("total-records")).to.equal("2");
    // Without the group, the same user reads nothing of the collection.
    await permissions.removeUserPrincipal(userId(BOB), "team");
    expect((await request("GET", "/v1/articles/p1", { user: BOB })).status).to.equal(403);
  });

  it("shows a record unshared from the caller as deleted in his next sync, while others still read it", async () => {
    await put("/v1/articles/kept", { data: { n: 1 }, permissions: { read: [userId(BOB)] } });
    await put("/v1/articles/s1", { data: { n: 2 }, permissions: { read: [userId(BOB), "carol"] } });
    const synced = await request("GET", "/v1/articles", { user: BOB });
    expect((synced.body.data as Entry[]).map((entry) => entry.id).sort()).to.deep.equal(["kept", "s1"]);
    const since = JSON.parse(synced.headers.get("etag") ?? "") as string;
    // Alice (its writer) and carol still read it: only bob lost it.
    await put("/v1/articles/s1", { data: { n: 3 }, permissions: { read: ["carol"] } });
    const next = await request("GET", `/v1/articles?_since=${since}`, { user: BOB });
    expect(next.status).to.equal(200);
    const entries = next.body.data as Entry[];
    expect(entries.map((entry) => [entry.id, entry.deleted === true])).to.deep.equal([["s1", true]]);
    expect(entries[0]!.last_modified).to.be.greaterThan(Number(since));
  });

  it("shows a record shared again after a loss once, live, in the next sync", async () => {
    await put("/v1/articles/s1", { data: { n: 1 }, permissions: { read: [userId(BOB)] } });
    const since = JSON.parse((await request("GET", "/v1/articles", { user: BOB })).headers.get("etag") ?? "") as string;
    await put("/v1/articles/s1", { data: { n: 2 }, permissions: { read: [] } });
    await put("/v1/articles/s1", { data: { n: 3 }, permissions: { read: [userId(BOB)] } });
    const next = await request("GET", `/v1/articles?_since=${since}`, { user: BOB });
    expect(next.status).to.equal(200);
    expect((next.body.data as (Entry & { n?: number })[]).map((entry) => [entry.id, entry.deleted === true, entry.n])).to.deep.equal([
      ["s1", false, 3],
    ]);
  });

  describe("timestamps with the collection's counter ahead of the clock", () => {
    it("stamps the writes of a batch strictly increasing", async () => {
      const ahead = aheadOfClock();
      const res = await request("POST", "/v1/batch", {
        user: ALICE,
        body: {
          requests: [
            { method: "PUT", path: "/articles/a", body: { data: { last_modified: ahead } } },
            { method: "PUT", path: "/articles/b", body: { data: {}, permissions: { read: [userId(BOB)] } } },
            { method: "PATCH", path: "/articles/a", body: { data: { v: 2 } } },
            { method: "DELETE", path: "/articles/b" },
            { method: "PUT", path: "/articles/c", body: { data: {} } },
          ],
        },
      });
      expect(res.status).to.equal(200);
      const responses = res.body.responses as { status: number; body: { data: Entry } }[];
      expect(responses.map((r) => r.status)).to.deep.equal([201, 201, 200, 200, 201]);
      const stamps = responses.map((r) => r.body.data.last_modified);
      expect(stamps[0]).to.equal(ahead);
      for (let i = 1; i < stamps.length; i += 1) expect(stamps[i], `write #${i}`).to.be.greaterThan(stamps[i - 1]!);
      const listed = await request("GET", "/v1/articles?_since=0", { user: ALICE });
      expect(listed.headers.get("etag")).to.equal(`"${stamps[4]}"`);
    });

    it("stamps single shared writes strictly increasing, and a _since sync sees each", async () => {
      const ahead = aheadOfClock();
      const first = await put("/v1/articles/a", { data: { last_modified: ahead }, permissions: { read: [userId(BOB)] } });
      expect(first.last_modified).to.equal(ahead);
      const second = await put("/v1/articles/b", { data: {}, permissions: { read: [userId(BOB)] } });
      const third = await put("/v1/articles/a", { data: { v: 2 }, permissions: { read: [userId(BOB)] } });
      expect(second.last_modified).to.be.greaterThan(ahead);
      expect(third.last_modified).to.be.greaterThan(second.last_modified);
      expect(await ids(`/v1/articles?_since=${ahead}&_sort=last_modified`, BOB)).to.deep.equal(["b", "a"]);
      expect(await ids(`/v1/articles?_since=${second.last_modified}`, BOB)).to.deep.equal(["a"]);
    });
  });
}
