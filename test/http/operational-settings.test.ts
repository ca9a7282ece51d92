import { request as httpRequest } from "node:http";
import { expect } from "chai";
import { BackendError } from "../../src/domain/errors.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { startTestServer, type TestServer } from "../support/http.js";

const ALICE = "alice:pw";

/** Sends a chunked body (no Content-Length), which a size check on the header alone would miss. */
function postChunked(server: TestServer, path: string, chunks: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${server.url}${path}`,
      { method: "POST", headers: { "Content-Type": "application/json", Authorization: `Basic ${Buffer.from(ALICE).toString("base64")}` } },
      (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) =>
      error.code === "ECONNRESET" || error.code === "EPIPE" ? resolve({ status: -1, body: "" }) : reject(error),
    );
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe("HTTP operational settings", () => {
  describe("<collection>_<endpoint>_<method>_enabled", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({
        articles_record_delete_enabled: "false",
        notes_collection_post_enabled: "false",
        notes_record_patch_enabled: "false",
      });
    });
    after(() => server.stop());

    it("answers 405 to a disabled method with Allow and JSON details listing the allowed methods", async () => {
      await server.request("PUT", "/v1/articles/a1", { user: ALICE, body: { data: {} } });
      const res = await server.request("DELETE", "/v1/articles/a1", { user: ALICE });
      expect(res.status).to.equal(405);
      expect(res.body).to.include({ code: 405, errno: 115, error: "Method Not Allowed" });
      const allow = (res.headers.get("allow") ?? "").split(/,\s*/);
      expect(allow).to.have.members(["GET", "HEAD", "PUT", "PATCH"]);
      expect(res.body.details.allowed).to.have.members(["GET", "HEAD", "PUT", "PATCH"]);
      expect((await server.request("GET", "/v1/articles/a1", { user: ALICE })).status).to.equal(200);
      expect((await server.request("DELETE", "/v1/articles", { user: ALICE })).status).to.equal(200);
    });

    it("disables only the named endpoint and method, before authentication", async () => {
      const post = await server.request("POST", "/v1/notes", { body: { data: {} } });
      expect(post.status).to.equal(405);
      expect(post.headers.get("allow")?.split(/,\s*/)).to.have.members(["GET", "HEAD", "DELETE"]);
      const patch = await server.request("PATCH", "/v1/notes/n1", { user: ALICE, body: { data: {} } });
      expect(patch.status).to.equal(405);
      expect((await server.request("PUT", "/v1/notes/n1", { user: ALICE, body: { data: {} } })).status).to.equal(201);
    });

    it("works for a collection whose name has capitals, set from the environment", async () => {
      const capitals = await startTestServer({ resources: "MyNotes:user", MyNotes_record_delete_enabled: "false" });
      try {
        expect((await capitals.request("PUT", "/v1/MyNotes/n1", { user: ALICE, body: { data: {} } })).status).to.equal(201);
        const res = await capitals.request("DELETE", "/v1/MyNotes/n1", { user: ALICE });
        expect(res.status).to.equal(405);
      } finally {
        await capitals.stop();
      }
    });

    it("answers 405 with Allow to a method no endpoint serves", async () => {
      const res = await server.request("PUT", "/v1/notes", { user: ALICE, body: { data: {} } });
      expect(res.status).to.equal(405);
      expect(res.headers.get("allow")?.split(/,\s*/)).to.have.members(["GET", "HEAD", "DELETE"]);
    });
  });

  describe("readonly", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ readonly: "true", articles_read_principals: "system.Everyone" });
    });
    after(() => server.stop());

    it("answers 405 to every write and serves reads", async () => {
      const writes: [string, string][] = [
        ["POST", "/v1/notes"],
        ["DELETE", "/v1/notes"],
        ["PUT", "/v1/notes/n1"],
        ["PATCH", "/v1/notes/n1"],
        ["DELETE", "/v1/articles/a1"],
      ];
      for (const [method, path] of writes) {
        const res = await server.request(method, path, { user: ALICE, body: method === "DELETE" ? undefined : { data: {} } });
        expect(res.status, `${method} ${path}`).to.equal(405);
        expect(res.body.errno).to.equal(115);
        expect(res.headers.get("allow")?.split(/,\s*/)).to.have.members(["GET", "HEAD"]);
      }
      expect((await server.request("GET", "/v1/notes", { user: ALICE })).status).to.equal(200);
      expect((await server.request("HEAD", "/v1/articles")).status).to.equal(200);
    });

    it("shows readonly: true in the root view and refuses writes inside a batch, slot by slot", async () => {
      expect((await server.request("GET", "/v1/")).body.settings.readonly).to.equal(true);
      const res = await server.request("POST", "/v1/batch", {
        user: ALICE,
        body: { requests: [{ path: "/notes" }, { method: "POST", path: "/notes", body: { data: {} } }] },
      });
      expect(res.status).to.equal(200);
      expect(res.body.responses.map((r: { status: number }) => r.status)).to.deep.equal([200, 405]);
    });
  });

  describe("error_info_link and max_body_bytes", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ error_info_link: "https://help.example.com/errors", max_body_bytes: "200" });
    });
    after(() => server.stop());

    it("puts error_info_link in the info of every error body", async () => {
      const responses = [
        await server.request("GET", "/v1/notes"),
        await server.request("GET", "/v1/notes/x", { user: ALICE }),
        await server.request("GET", "/v1/nope/a/b"),
        await server.request("GET", "/v3/"),
      ];
      for (const res of responses) expect(res.body.info, String(res.status)).to.equal("https://help.example.com/errors");
    });

    it("leaves info out when error_info_link is empty", async () => {
      const bare = await startTestServer({ error_info_link: "" });
      try {
        const res = await bare.request("GET", "/v1/notes");
        expect(res.status).to.equal(401);
        expect(res.body).to.not.have.property("info");
      } finally {
        await bare.stop();
      }
    });

    it("answers 413 errno 113 to a body over max_body_bytes and accepts one under it", async () => {
      const big = await server.request("POST", "/v1/notes", { user: ALICE, body: { data: { text: "x".repeat(300) } } });
      expect(big.status).to.equal(413);
      expect(big.body).to.include({ code: 413, errno: 113 });
      const small = await server.request("POST", "/v1/notes", { user: ALICE, body: { data: { text: "x".repeat(100) } } });
      expect(small.status).to.equal(201);
    });

    it("answers 413 to a chunked body over max_body_bytes", async () => {
      const res = await postChunked(server, "/v1/notes", ['{"data": {"text": "', "y".repeat(150), "y".repeat(150), '"}}']);
      expect(res.status).to.equal(413);
      expect(JSON.parse(res.body)).to.include({ errno: 113 });
    });

    it("applies the limit to batch bodies too", async () => {
      const res = await server.request("POST", "/v1/batch", {
        user: ALICE,
        body: { requests: Array.from({ length: 20 }, () => ({ path: "/notes" })) },
      });
      expect(res.status).to.equal(413);
    });
  });

  describe("http_scheme and http_host", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ http_scheme: "https", http_host: "records.example.com:8443", paginate_by: "1" });
      for (const id of ["n1", "n2"]) await server.request("PUT", `/v1/notes/${id}`, { user: ALICE, body: { data: {} } });
    });
    after(() => server.stop());

    it("builds the root url with them", async () => {
      expect((await server.request("GET", "/v1/")).body.url).to.equal("https://records.example.com:8443/v1/");
    });

    it("builds Next-Page with them, keeping the query", async () => {
      const res = await server.request("GET", "/v1/notes?_sort=id&has_id=true", { user: ALICE });
      const next = new URL(res.headers.get("next-page") ?? "");
      expect(`${next.protocol}//${next.host}${next.pathname}`).to.equal("https://records.example.com:8443/v1/notes");
      expect(next.searchParams.get("_sort")).to.equal("id");
      expect(next.searchParams.get("has_id")).to.equal("true");
      expect(next.searchParams.get("_limit")).to.equal("1");
      expect(next.searchParams.get("_token")).to.be.a("string");
    });

    it("uses the request's own host and port when they are not set", async () => {
      const plain = await startTestServer({ paginate_by: "1" });
      try {
        for (const id of ["n1", "n2"]) await plain.request("PUT", `/v1/notes/${id}`, { user: ALICE, body: { data: {} } });
        const res = await plain.request("GET", "/v1/notes", { user: ALICE });
        expect(res.headers.get("next-page")).to.match(new RegExp(`^${plain.url}/v1/notes\\?`));
      } finally {
        await plain.stop();
      }
    });
  });

  describe("eos (end of service)", () => {
    it("sends a soft-eol Alert before the date", async () => {
      const server = await startTestServer({ eos: "2999-01-01", eos_message: "Moving soon", eos_url: "https://example.com/eos" });
      try {
        const res = await server.request("GET", "/v1/notes", { user: ALICE });
        expect(res.status).to.equal(200);
        expect(JSON.parse(res.headers.get("alert") ?? "null")).to.deep.equal({
          code: "soft-eol",
          message: "Moving soon",
          url: "https://example.com/eos",
        });
      } finally {
        await server.stop();
      }
    });

    it("answers 410 errno 202 with a hard-eol Alert after the date", async () => {
      const server = await startTestServer({ eos: "2001-01-01", eos_message: "Gone away", eos_url: "https://example.com/eos" });
      try {
        for (const path of ["/v1/notes", "/v1/"]) {
          const res = await server.request("GET", path, { user: ALICE });
          expect(res.status, path).to.equal(410);
          expect(res.body).to.include({ code: 410, errno: 202, error: "Gone" });
          expect(JSON.parse(res.headers.get("alert") ?? "null")).to.deep.equal({
            code: "hard-eol",
            message: "Gone away",
            url: "https://example.com/eos",
          });
        }
      } finally {
        await server.stop();
      }
    });

    it("sends no Alert without eos", async () => {
      const server = await startTestServer();
      try {
        expect((await server.request("GET", "/v1/")).headers.get("alert")).to.equal(null);
      } finally {
        await server.stop();
      }
    });
  });

  describe("503 bodies", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer();
    });
    after(() => server.stop());

    it("names the failing backend and leaks no internals", async () => {
      const permissions = server.running.container.get(TOKENS.PermissionStore);
      const original = permissions.userPrincipals.bind(permissions);
      permissions.userPrincipals = () =>
        Promise.reject(new BackendError("permission", new Error("ECONNREFUSED 10.0.0.7:6379 password=hunter2")));
      try {
        const res = await server.request("GET", "/v1/articles", { user: ALICE });
        expect(res.status).to.equal(503);
        expect(res.body).to.include({ code: 503, errno: 201, error: "Service Unavailable" });
        expect(res.body.message).to.contain("permission");
        const text = JSON.stringify(res.body);
        for (const secret of ["ECONNREFUSED", "10.0.0.7", "hunter2", "stack"]) expect(text).to.not.contain(secret);
        expect(res.headers.get("retry-after")).to.equal("30");
      } finally {
        permissions.userPrincipals = original;
      }
    });
  });
});
