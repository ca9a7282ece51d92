/** Redirects, URL encoding, CORS on unknown URLs and the Host header, as Kinto answers them. */
import { connect } from "node:net";
import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http.js";

const ALICE = "alice:pw";
const ORIGIN = "https://app.example.com";

/** A raw HTTP/1.1 exchange (fetch refuses to send some Host headers); answers status line, headers and body. */
function rawGet(
  base: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: string; headers: Map<string, string>; body: string }> {
  const { hostname, port } = new URL(base);
  const lines = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(`GET ${path} HTTP/1.1\r\n${lines}Connection: close\r\n\r\n`));
    let out = "";
    socket.on("data", (chunk: Buffer) => (out += chunk.toString("latin1")));
    socket.on("end", () => {
      const [head = "", body = ""] = out.split("\r\n\r\n");
      const [status = "", ...rest] = head.split("\r\n");
      resolve({
        status,
        headers: new Map(rest.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()])),
        body,
      });
    });
    socket.on("error", reject);
  });
}

describe("Kinto compatibility: URLs, redirects, CORS and Host", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ paginate_by: "1" });
    await server.request("PUT", "/v1/notes/n1", { user: ALICE, body: { data: {} } });
    await server.request("PUT", "/v1/notes/n2", { user: ALICE, body: { data: {} } });
  });
  after(() => server.stop());

  describe("redirects", () => {
    it("sends an absolute Location, query kept verbatim, on the version redirect (no cache headers by default)", async () => {
      const res = await server.request("GET", "/notes?_since=1&b", { user: ALICE });
      expect(res.status).to.equal(307);
      expect(res.headers.get("location")).to.equal(`${server.url}/v1/notes?_since=1&b`);
      expect(res.headers.get("cache-control")).not.to.match(/max-age/);
      expect(res.headers.get("content-security-policy")).to.contain("default-src 'none'");
    });

    it("sends an absolute Location with Cache-Control max-age=3600 and Expires on trailing-slash redirects", async () => {
      for (const [path, target] of [
        ["/v1/notes/?a=1", "/v1/notes?a=1"],
        ["/v1", "/v1/"],
      ] as const) {
        const res = await server.request("GET", path);
        expect(res.status, path).to.equal(307);
        expect(res.headers.get("location"), path).to.equal(`${server.url}${target}`);
        expect(res.headers.get("cache-control"), path).to.equal("max-age=3600");
        expect(Number.isNaN(Date.parse(res.headers.get("expires") ?? "")), path).to.equal(false);
        expect(res.headers.get("content-security-policy"), path).to.contain("default-src 'none'");
      }
    });

    it("takes both redirect lifetimes from settings (-1: no cache headers)", async () => {
      const tuned = await startTestServer({ version_prefix_redirect_ttl_seconds: "60", trailing_slash_redirect_ttl_seconds: "-1" });
      try {
        expect((await tuned.request("GET", "/notes")).headers.get("cache-control")).to.equal("max-age=60");
        const slash = await tuned.request("GET", "/v1/notes/");
        expect(slash.status).to.equal(307);
        expect(slash.headers.get("cache-control")).not.to.match(/max-age/);
        expect(slash.headers.get("expires")).to.equal(null);
      } finally {
        await tuned.stop();
      }
    });

    it("answers 404 to /v1 when trailing-slash redirects are off", async () => {
      const strict = await startTestServer({ trailing_slash_redirect_enabled: "false" });
      try {
        const res = await strict.request("GET", "/v1");
        expect(res.status).to.equal(404);
        expect(res.body.errno).to.equal(111);
      } finally {
        await strict.stop();
      }
    });

    it("never redirects a path holding CR, LF or another control character (404)", async () => {
      for (const path of ["/foo%0D%0ALocation:%20x", "/notes%0A", "/v1/notes%09/", "/v1/notes%0d/"]) {
        const res = await server.request("GET", path, { user: ALICE });
        expect(res.status, path).to.equal(404);
        expect(res.headers.get("location"), path).to.equal(null);
      }
    });

    it("answers 400 errno 107 'Bad Request' 'Invalid URL path.' to a path that is not UTF-8", async () => {
      for (const path of ["/v1/%82%AC", "/%82%AC", "/v1/notes/%FF"]) {
        const res = await server.request("GET", path, { user: ALICE });
        expect(res.status, path).to.equal(400);
        expect(res.body, path).to.include({ code: 400, errno: 107, error: "Bad Request", message: "Invalid URL path." });
      }
    });
  });

  describe("CORS", () => {
    it("answers Access-Control-Allow-Origin: * on an unknown URL when every origin is allowed", async () => {
      const res = await server.request("GET", "/v1/unknown/a/b", { headers: { Origin: ORIGIN } });
      expect(res.status).to.equal(404);
      expect(res.headers.get("access-control-allow-origin")).to.equal("*");
    });

    it("sends no Access-Control-Max-Age when cors_max_age_seconds is empty (and starts)", async () => {
      const unset = await startTestServer({ cors_max_age_seconds: "" });
      try {
        const res = await unset.request("OPTIONS", "/v1/notes", { headers: { Origin: ORIGIN, "Access-Control-Request-Method": "GET" } });
        expect(res.status).to.equal(200);
        expect(res.headers.get("access-control-allow-methods")).to.be.a("string");
        expect(res.headers.get("access-control-max-age")).to.equal(null);
      } finally {
        await unset.stop();
      }
    });
  });

  describe("Host header", () => {
    const auth = `Basic ${Buffer.from(ALICE).toString("base64")}`;

    it("keeps a Host carrying a scheme as given in Next-Page, as Kinto does", async () => {
      const res = await rawGet(server.url, "/v1/notes?_limit=1", { Host: "https://server.name:443", Authorization: auth });
      expect(res.status).to.contain(" 200 ");
      expect(res.headers.get("next-page")).to.match(/^http:\/\/https:\/\/server\.name:443\/v1\/notes\?_limit=1&_token=/);
    });

    it("leaves the default port out of Next-Page", async () => {
      const res = await rawGet(server.url, "/v1/notes?_limit=1", { Host: "localhost:80", Authorization: auth });
      expect(res.headers.get("next-page")).to.match(/^http:\/\/localhost\/v1\/notes\?/);
    });
  });
});
