import { expect } from "chai";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { startTestServer, userId, type TestServer } from "../support/http.js";
import { walkNextPages } from "../support/page-walk.js";

/** Who calls, and how each one is granted something (api-contract §5). */
const CALLERS = {
  anonymous: undefined,
  owner: "owner:pw", // created the record (so in its write), the only one allowed to create by settings
  other: "other:pw", // authenticated, nothing granted
  reader: "reader:pw", // record ACL read
  writer: "writer:pw", // record ACL write
  member: "member:pw", // in group:editors (user_principals), which holds record write
  settingsReader: "sreader:pw", // articles_read_principals
  settingsWriter: "swriter:pw", // articles_write_principals
} as const;
type CallerName = keyof typeof CALLERS;
type Expected = Record<CallerName, number>;

const RECORD = "/v1/articles/r1";
const MISSING = "/v1/articles/ghost";

/** Status per caller, in CALLERS order. */
function row(...statuses: number[]): Expected {
  return Object.fromEntries(Object.keys(CALLERS).map((name, i) => [name, statuses[i]])) as Expected;
}

interface Case {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly body?: object;
  readonly expected: Expected;
}

//                                  anon owner other reader writer member sreader swriter
const CASES: Case[] = [
  { name: "GET collection", method: "GET", path: "/v1/articles", expected: row(401, 200, 403, 200, 200, 200, 200, 200) },
  { name: "HEAD collection", method: "HEAD", path: "/v1/articles", expected: row(401, 200, 403, 200, 200, 200, 200, 200) },
  {
    name: "POST new id",
    method: "POST",
    path: "/v1/articles",
    body: { data: { id: "fresh" } },
    expected: row(401, 201, 403, 403, 403, 403, 403, 201),
  },
  {
    name: "POST without id",
    method: "POST",
    path: "/v1/articles",
    body: { data: {} },
    expected: row(401, 201, 403, 403, 403, 403, 403, 201),
  },
  {
    name: "POST existing id",
    method: "POST",
    path: "/v1/articles",
    body: { data: { id: "r1" } },
    expected: row(401, 200, 403, 200, 200, 200, 200, 200),
  },
  { name: "DELETE collection", method: "DELETE", path: "/v1/articles", expected: row(401, 200, 403, 403, 200, 200, 403, 200) },
  { name: "GET existing record", method: "GET", path: RECORD, expected: row(401, 200, 403, 200, 200, 200, 200, 200) },
  { name: "HEAD existing record", method: "HEAD", path: RECORD, expected: row(401, 200, 403, 200, 200, 200, 200, 200) },
  {
    name: "PUT existing record",
    method: "PUT",
    path: RECORD,
    body: { data: { v: 2 } },
    expected: row(401, 200, 403, 403, 200, 200, 403, 200),
  },
  {
    name: "PATCH existing record",
    method: "PATCH",
    path: RECORD,
    body: { data: { v: 2 } },
    expected: row(401, 200, 403, 403, 200, 200, 403, 200),
  },
  { name: "DELETE existing record", method: "DELETE", path: RECORD, expected: row(401, 200, 403, 403, 200, 200, 403, 200) },
  { name: "GET missing record", method: "GET", path: MISSING, expected: row(401, 403, 403, 403, 403, 403, 404, 404) },
  { name: "HEAD missing record", method: "HEAD", path: MISSING, expected: row(401, 403, 403, 403, 403, 403, 404, 404) },
  {
    name: "PUT missing record",
    method: "PUT",
    path: MISSING,
    body: { data: { v: 1 } },
    expected: row(401, 201, 403, 403, 403, 403, 403, 201),
  },
  {
    name: "PATCH missing record",
    method: "PATCH",
    path: MISSING,
    body: { data: { v: 1 } },
    expected: row(401, 403, 403, 403, 403, 403, 404, 404),
  },
  { name: "DELETE missing record", method: "DELETE", path: MISSING, expected: row(401, 403, 403, 403, 403, 403, 404, 404) },
];

describe("HTTP authorization matrix (shareable articles)", () => {
  let server: TestServer;
  const as = (caller: CallerName, method: string, path: string, body?: object) =>
    server.request(method, path, { user: CALLERS[caller], body });

  before(async () => {
    server = await startTestServer({
      articles_create_principals: userId(CALLERS.owner),
      articles_read_principals: userId(CALLERS.settingsReader),
      articles_write_principals: userId(CALLERS.settingsWriter),
    });
    const permissions = await server.running.container.getAsync(TOKENS.PermissionStore);
    await permissions.addUserPrincipal(userId(CALLERS.member), "group:editors");
  });
  after(() => server.stop());

  /** A fresh collection holding r1, owned by `owner`, read by `reader`, written by `writer` and the group. */
  async function resetFixture(): Promise<void> {
    const cleared = await as("settingsWriter", "DELETE", "/v1/articles");
    expect(cleared.status).to.equal(200);
    const put = await as("owner", "PUT", RECORD, {
      data: { v: 1 },
      permissions: { read: [userId(CALLERS.reader)], write: [userId(CALLERS.writer), "group:editors"] },
    });
    expect(put.status).to.equal(201);
  }

  for (const testCase of CASES) {
    describe(testCase.name, () => {
      for (const caller of Object.keys(CALLERS) as CallerName[]) {
        const expected = testCase.expected[caller];
        it(`${caller} → ${expected}`, async () => {
          await resetFixture();
          const res = await as(caller, testCase.method, testCase.path, testCase.body);
          expect(res.status).to.equal(expected);
          if (expected === 401) expect(res.headers.get("www-authenticate")).to.equal('Basic realm="Realm"');
          if (testCase.method === "HEAD") return;
          if (expected === 401) expect(res.body.errno).to.equal(104);
          if (expected === 403) expect(res.body.errno).to.equal(121);
          if (expected === 404) expect(res.body.errno).to.equal(110);
        });
      }
    });
  }

  describe("what each caller sees and changes", () => {
    beforeEach(resetFixture);

    it("shows the ACL only to callers in the record's write principals", async () => {
      const acl = { read: [userId(CALLERS.reader)], write: [userId(CALLERS.writer), "group:editors", userId(CALLERS.owner)] };
      for (const caller of ["owner", "writer", "member"] as const) {
        const res = await as(caller, "GET", RECORD);
        expect(res.body.permissions.read, caller).to.deep.equal(acl.read);
        expect([...res.body.permissions.write].sort(), caller).to.deep.equal([...acl.write].sort());
      }
      for (const caller of ["reader", "settingsReader", "settingsWriter"] as const) {
        expect((await as(caller, "GET", RECORD)).body.permissions, caller).to.deep.equal({});
      }
    });

    it("lets anonymous callers read and list records granted to system.Everyone, and nothing else", async () => {
      await as("owner", "PUT", "/v1/articles/public", { data: { open: true }, permissions: { read: ["system.Everyone"] } });
      expect((await as("anonymous", "GET", "/v1/articles/public")).status).to.equal(200);
      const list = await as("anonymous", "GET", "/v1/articles");
      expect(list.status).to.equal(200);
      expect(list.body.data.map((r: { id: string }) => r.id)).to.deep.equal(["public"]);
      expect((await as("anonymous", "GET", RECORD)).status).to.equal(401);
    });

    it("adds an updater to write: PATCH by a settings writer", async () => {
      const res = await as("settingsWriter", "PATCH", RECORD, { data: { v: 3 } });
      expect(res.status).to.equal(200);
      expect(res.body.permissions.write).to.include(userId(CALLERS.settingsWriter));
      expect(res.body.permissions.write).to.include(userId(CALLERS.owner));
    });

    it("adds an updater to write: PUT by a record writer who tries to remove themselves", async () => {
      const res = await as("writer", "PUT", RECORD, { data: {}, permissions: { write: [] } });
      expect(res.status).to.equal(200);
      expect(res.body.permissions).to.deep.equal({ write: [userId(CALLERS.writer)] });
    });

    it("PATCH replaces only the named permissions", async () => {
      const res = await as("owner", "PATCH", RECORD, { permissions: { read: ["group:new"] } });
      expect(res.status).to.equal(200);
      expect(res.body.permissions.read).to.deep.equal(["group:new"]);
      expect([...res.body.permissions.write].sort()).to.deep.equal([userId(CALLERS.writer), "group:editors", userId(CALLERS.owner)].sort());
      expect((await as("reader", "GET", RECORD)).status).to.equal(403);
    });

    it("PATCH with an empty list removes the permission", async () => {
      const res = await as("owner", "PATCH", RECORD, { permissions: { read: [] } });
      expect(res.body.permissions).to.not.have.property("read");
    });

    it("PUT with permissions empties every permission not named", async () => {
      const res = await as("owner", "PUT", RECORD, { data: { v: 9 }, permissions: { read: ["group:r"] } });
      expect(res.status).to.equal(200);
      expect(res.body.permissions).to.deep.equal({ read: ["group:r"], write: [userId(CALLERS.owner)] });
      expect((await as("writer", "PATCH", RECORD, { data: { v: 1 } })).status).to.equal(403);
    });

    it("lets a caller who may create list and plural-DELETE with an empty result when nothing is readable", async () => {
      expect((await as("owner", "DELETE", RECORD)).status).to.equal(200);
      const list = await as("owner", "GET", "/v1/articles");
      expect(list.status).to.equal(200);
      expect(list.body.data).to.deep.equal([]);
      const del = await as("owner", "DELETE", "/v1/articles");
      expect(del.status).to.equal(200);
      expect(del.body.data).to.deep.equal([]);
    });

    it("anonymous creation grants write to system.Everyone", async () => {
      const server2 = await startTestServer({ articles_create_principals: "system.Everyone" });
      try {
        const res = await server2.request("POST", "/v1/articles", { body: { data: {} } });
        expect(res.status).to.equal(201);
        expect(res.body.permissions).to.deep.equal({ write: ["system.Everyone"] });
      } finally {
        await server2.stop();
      }
    });
  });

  describe("listing and plural DELETE inside what the caller may read or write", () => {
    const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((r) => r.id);
    before(async () => {
      await as("settingsWriter", "DELETE", "/v1/articles");
      // r0..r9: rank = i; the reader may read the even ones; the writer may write r1, r2, r3.
      for (let i = 0; i < 10; i++) {
        const read = i % 2 === 0 ? [userId(CALLERS.reader)] : [];
        const write = i >= 1 && i <= 3 ? [userId(CALLERS.writer)] : [];
        const res = await as("owner", "PUT", `/v1/articles/r${i}`, {
          data: { rank: i, tag: i < 5 ? "low" : "high" },
          permissions: { read, write },
        });
        expect(res.status).to.equal(201);
      }
    });

    it("lists only the records the caller can read, write implying read", async () => {
      expect(ids(await as("reader", "GET", "/v1/articles?_sort=rank"))).to.deep.equal(["r0", "r2", "r4", "r6", "r8"]);
      expect(ids(await as("writer", "GET", "/v1/articles?_sort=rank"))).to.deep.equal(["r1", "r2", "r3"]);
      expect(ids(await as("settingsReader", "GET", "/v1/articles?_sort=rank"))).to.have.length(10);
    });

    it("applies filters and sort inside the readable set", async () => {
      expect(ids(await as("reader", "GET", "/v1/articles?tag=high&_sort=-rank"))).to.deep.equal(["r8", "r6"]);
      expect(ids(await as("reader", "GET", "/v1/articles?min_rank=3&max_rank=7&_sort=rank"))).to.deep.equal(["r4", "r6"]);
    });

    it("counts only readable records in HEAD", async () => {
      const all = await as("reader", "HEAD", "/v1/articles");
      expect(all.headers.get("total-records")).to.equal("5");
      const filtered = await as("reader", "HEAD", "/v1/articles?tag=low");
      expect(filtered.headers.get("total-objects")).to.equal("3");
    });

    it("paginates inside the readable set", async () => {
      const pages = await walkNextPages(server, "/v1/articles?_sort=rank&_limit=2", CALLERS.reader, 3);
      expect(pages.flatMap((page) => ids(page))).to.deep.equal(["r0", "r2", "r4", "r6", "r8"]);
    });

    it("plural DELETE deletes only the records the caller can write", async () => {
      const res = await as("writer", "DELETE", "/v1/articles?min_rank=2");
      expect(res.status).to.equal(200);
      expect(res.body.data.map((t: { id: string }) => t.id).sort()).to.deep.equal(["r2", "r3"]);
      const left = await as("settingsReader", "GET", "/v1/articles?_sort=rank");
      expect(ids(left)).to.deep.equal(["r0", "r1", "r4", "r5", "r6", "r7", "r8", "r9"]);
    });
  });
});
