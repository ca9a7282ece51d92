import { connect } from "node:net";
import { expect } from "chai";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { settlesWithin } from "../support/settling.js";
import { startTestServer, userId, type TestServer } from "../support/http.js";

const ALICE = "alice:pw";

/** The redirect target as path + query, whether `Location` is absolute or not. */
function target(res: { headers: Headers }, base: string): string {
  const location = res.headers.get("location");
  expect(location, "Location header").to.be.a("string");
  const url = new URL(location as string, base);
  return `${url.pathname}${url.search}`;
}

/** A raw HTTP/1.1 exchange, for requests fetch refuses to send (a malformed Host); answers the status line and body. */
function rawRequest(base: string, text: string): Promise<{ status: string; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(text));
    let out = "";
    socket.on("data", (chunk: Buffer) => (out += chunk.toString("latin1")));
    socket.on("end", () => resolve({ status: out.split("\r\n")[0] ?? "", body: out.slice(out.indexOf("\r\n\r\n") + 4) }));
    socket.on("error", reject);
  });
}

describe("HTTP URLs, root and utility views", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ paginate_by: "5", public_settings: "paginate_by tessera.storage_max_fetch_size" });
  });
  after(() => server.stop());

  describe("version prefix", () => {
    it("redirects unprefixed paths with 307 to /v1, query kept verbatim, for every method", async () => {
      for (const method of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]) {
        const res = await server.request(method, "/notes/n1?_since=42&a=%C3%A9&b", { user: ALICE });
        expect(res.status, method).to.equal(307);
        expect(target(res, server.url), method).to.equal("/v1/notes/n1?_since=42&a=%C3%A9&b");
      }
      const root = await server.request("GET", "/");
      expect(root.status).to.equal(307);
      expect(target(root, server.url)).to.equal("/v1/");
    });

    it("answers 404 errno 116 to another version", async () => {
      for (const path of ["/v2", "/v2/", "/v0/notes", "/v10/__heartbeat__", "/v2notes", "/v11"]) {
        const res = await server.request("GET", path);
        expect(res.status, path).to.equal(404);
        expect(res.body, path).to.include({ code: 404, errno: 116, error: "Not Found" });
        expect(res.body.message).to.equal("The requested API version is not available on this server.");
      }
    });

    it("answers 404 errno 111 to an unknown URL under /v1, and to /v1 glued to more text", async () => {
      for (const path of ["/v1/notes/n1/extra", "/v1notes", "/v1.json"]) {
        const res = await server.request("GET", path);
        expect(res.status, path).to.equal(404);
        expect(res.body, path).to.include({ errno: 111 });
      }
    });

    it("with version_prefix_redirect_enabled=false, unprefixed paths are a JSON 404", async () => {
      const off = await startTestServer({ version_prefix_redirect_enabled: "false" });
      try {
        const res = await off.request("GET", "/notes?x=1", { user: ALICE });
        expect(res.status).to.equal(404);
        expect(res.body).to.include({ errno: 111 });
        expect(res.headers.get("location")).to.equal(null);
      } finally {
        await off.stop();
      }
    });
  });

  describe("trailing slash", () => {
    it("redirects with 307 to the path without trailing slashes, query kept", async () => {
      for (const [path, expected] of [
        ["/v1/notes/", "/v1/notes"],
        ["/v1/notes/n1//?_fields=a", "/v1/notes/n1?_fields=a"],
        ["/v1/__heartbeat__/", "/v1/__heartbeat__"],
      ] as const) {
        const res = await server.request("PUT", path, { user: ALICE, body: { data: {} } });
        expect(res.status, path).to.equal(307);
        expect(target(res, server.url)).to.equal(expected);
      }
    });

    it("redirects /v1 to /v1/ and serves /v1/ itself", async () => {
      const res = await server.request("GET", "/v1?x=1");
      expect(res.status).to.equal(307);
      expect(target(res, server.url)).to.equal("/v1/?x=1");
      expect((await server.request("GET", "/v1/")).status).to.equal(200);
    });

    it("with trailing_slash_redirect_enabled=false, answers 404", async () => {
      const off = await startTestServer({ trailing_slash_redirect_enabled: "false" });
      try {
        const res = await off.request("GET", "/v1/notes/", { user: ALICE });
        expect(res.status).to.equal(404);
        expect(res.body).to.include({ errno: 111 });
        expect((await off.request("GET", "/v1/")).status).to.equal(200);
      } finally {
        await off.stop();
      }
    });
  });

  describe("root view", () => {
    it("describes the service to anonymous callers, without a user", async () => {
      const res = await server.request("GET", "/v1/");
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ project_name: "tessera", http_api_version: "1.0" });
      expect(res.body.project_version).to.be.a("string").and.not.equal("");
      expect(res.body.project_docs).to.match(/^https?:\/\//);
      expect(res.body.url).to.equal(`${server.url}/v1/`);
      expect(res.body.capabilities).to.be.an("object");
      expect(res.body).to.not.have.property("user");
    });

    it("adds the user id and principals when the request carries valid credentials", async () => {
      const res = await server.request("GET", "/v1/", { user: ALICE });
      expect(res.body.user.id).to.equal(userId(ALICE));
      expect(res.body.user.principals).to.include.members([userId(ALICE), "system.Everyone", "system.Authenticated"]);
    });

    it("answers 400, not 500, to a Host header no URL can be built from", async () => {
      for (const host of ["a b", "x:99999", "[::1"]) {
        const res = await rawRequest(server.url, `GET /v1/ HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
        expect(res.status, host).to.contain(" 400 ");
        expect(JSON.parse(res.body), host).to.include({ errno: 107 });
      }
    });

    it("shows no user for credentials it cannot read", async () => {
      for (const authorization of ["Basic !!!", "Bearer abc", "Basic " + Buffer.from("nocolon").toString("base64")]) {
        const res = await server.request("GET", "/v1/", { headers: { Authorization: authorization } });
        expect(res.status, authorization).to.equal(200);
        expect(res.body, authorization).to.not.have.property("user");
      }
    });

    it("shows batch_max_requests, readonly and public_settings, with or without the tessera. prefix as named", async () => {
      const res = await server.request("GET", "/v1/");
      expect(res.body.settings).to.deep.equal({
        batch_max_requests: 25,
        readonly: false,
        paginate_by: 5,
        "tessera.storage_max_fetch_size": 10000,
      });
    });

    it("does not expose other settings such as the user id secret", async () => {
      const res = await server.request("GET", "/v1/");
      expect(JSON.stringify(res.body)).to.not.contain("test-secret");
    });
  });

  describe("heartbeats and version", () => {
    it("__heartbeat__ answers 200 with each backend healthy", async () => {
      const res = await server.request("GET", "/v1/__heartbeat__");
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ storage: true, permission: true, cache: true });
    });

    it("__heartbeat__ answers 503 with the same body shape when a check fails", async () => {
      const cache = server.running.container.get(TOKENS.Cache);
      const heartbeat = cache.heartbeat.bind(cache);
      cache.heartbeat = () => Promise.resolve(false);
      try {
        const res = await server.request("GET", "/v1/__heartbeat__");
        expect(res.status).to.equal(503);
        expect(res.body).to.deep.equal({ storage: true, permission: true, cache: false });
      } finally {
        cache.heartbeat = heartbeat;
      }
    });

    it("__heartbeat__ reports permission: null without a permission backend", async () => {
      const bare = await startTestServer({ resources: "notes:user", permission_backend: undefined, articles_create_principals: undefined });
      try {
        const res = await bare.request("GET", "/v1/__heartbeat__");
        expect(res.status).to.equal(200);
        expect(res.body).to.deep.equal({ storage: true, permission: null, cache: true });
      } finally {
        await bare.stop();
      }
    });

    it("__heartbeat__ counts a check that outlives heartbeat_timeout_seconds as failing", async () => {
      const slow = await startTestServer({ heartbeat_timeout_seconds: "1" });
      try {
        slow.running.container.get(TOKENS.Cache).heartbeat = () => new Promise(() => undefined);
        // The check never settles: an answer at all means the 1 s timeout ended it (bound: 5×).
        const res = await settlesWithin(slow.request("GET", "/v1/__heartbeat__"), 5_000, "__heartbeat__");
        expect(res.status).to.equal(503);
        expect(res.body.cache).to.equal(false);
      } finally {
        await slow.stop();
      }
    });

    it("__heartbeat__ counts a registered check that throws synchronously as failing (503, not 500)", async () => {
      const throwing = await startTestServer({}, [
        {
          heartbeatChecks: {
            broken: () => {
              throw new Error("sync failure");
            },
          },
        },
      ]);
      try {
        const res = await throwing.request("GET", "/v1/__heartbeat__");
        expect(res.status).to.equal(503);
        expect(res.body).to.include({ broken: false, storage: true });
      } finally {
        await throwing.stop();
      }
    });

    it("answers 405 with Allow to other methods on the utility views", async () => {
      for (const path of ["/v1/", "/v1/__heartbeat__", "/v1/__lbheartbeat__", "/v1/__version__"]) {
        const res = await server.request("POST", path, { body: {} });
        expect(res.status, path).to.equal(405);
        expect(res.body.errno).to.equal(115);
        expect(res.headers.get("allow"), path).to.contain("GET");
      }
    });

    it("__lbheartbeat__ always answers 200 {}", async () => {
      const res = await server.request("GET", "/v1/__lbheartbeat__");
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({});
    });

    it("__version__ answers name, version, source and commit", async () => {
      const res = await server.request("GET", "/v1/__version__");
      expect(res.status).to.equal(200);
      expect(Object.keys(res.body).sort()).to.deep.equal(["commit", "name", "source", "version"]);
      expect(res.body.name).to.equal("tessera");
    });
  });
});
