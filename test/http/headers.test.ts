import { expect } from "chai";
import { BackendError } from "../../src/domain/errors.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { startTestServer, type TestServer } from "../support/http.js";

const ALICE = "alice:pw";
const REQUIRED_EXPOSED = [
  "Content-Length",
  "Content-Type",
  "ETag",
  "Last-Modified",
  "Next-Page",
  "Total-Objects",
  "Total-Records",
  "Backoff",
  "Retry-After",
  "Alert",
];

/** Makes the record store fail like an unreachable database until the returned function is called. */
function breakStorage(server: TestServer): () => void {
  const records = server.running.container.get(TOKENS.RecordStore);
  const [get, list, heartbeat, collectionTimestamp] = [
    records.get.bind(records),
    records.list.bind(records),
    records.heartbeat.bind(records),
    records.collectionTimestamp.bind(records),
  ];
  const fail = () => Promise.reject(new BackendError("storage", new Error("connection refused")));
  records.get = fail;
  records.list = fail;
  records.collectionTimestamp = fail;
  records.heartbeat = fail;
  return () => Object.assign(records, { get, list, heartbeat, collectionTimestamp });
}

describe("HTTP response headers", () => {
  describe("Backoff and Retry-After", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ backoff: "10", retry_after_seconds: "7" });
    });
    after(() => server.stop());

    it("sends Backoff on successes, errors and 304", async () => {
      const created = await server.request("PUT", "/v1/notes/n1", { user: ALICE, body: { data: {} } });
      const notModified = await server.request("GET", "/v1/notes/n1", {
        user: ALICE,
        headers: { "If-None-Match": created.headers.get("etag") as string },
      });
      expect(notModified.status).to.equal(304);
      const responses = [
        created,
        notModified,
        await server.request("GET", "/v1/notes"), // 401
        await server.request("GET", "/v1/notes/missing", { user: ALICE }), // 404
        await server.request("GET", "/v1/nowhere/at/all"), // 404 unknown URL
        await server.request("POST", "/v1/notes", { user: ALICE, rawBody: "{", headers: { "Content-Type": "application/json" } }), // 400
        await server.request("GET", "/v1/__lbheartbeat__"),
        await server.request("GET", "/notes"), // 307
      ];
      expect(responses.map((r) => r.status)).to.deep.equal([201, 304, 401, 404, 404, 400, 200, 307]);
      for (const res of responses) expect(res.headers.get("backoff"), String(res.status)).to.equal("10");
    });

    it("sends no Backoff when the setting is absent", async () => {
      const plain = await startTestServer();
      try {
        expect((await plain.request("GET", "/v1/")).headers.get("backoff")).to.equal(null);
      } finally {
        await plain.stop();
      }
    });

    it("sends Retry-After on a backend 503 and on a failing heartbeat", async () => {
      const restore = breakStorage(server);
      try {
        const failed = await server.request("GET", "/v1/notes", { user: ALICE });
        expect(failed.status).to.equal(503);
        expect(failed.headers.get("retry-after")).to.equal("7");
        const heartbeat = await server.request("GET", "/v1/__heartbeat__");
        expect(heartbeat.status).to.equal(503);
        expect(heartbeat.headers.get("retry-after")).to.equal("7");
      } finally {
        restore();
      }
      const ok = await server.request("GET", "/v1/notes", { user: ALICE });
      expect(ok.status).to.equal(200);
      expect(ok.headers.get("retry-after")).to.equal(null);
    });
  });

  describe("Alert", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer();
    });
    after(() => server.stop());

    it("warns about the deprecated _to parameter with a soft-eol Alert", async () => {
      const res = await server.request("GET", "/v1/notes?_to=1", { user: ALICE });
      expect(res.status).to.equal(200);
      const alert = JSON.parse(res.headers.get("alert") ?? "null");
      expect(alert.code).to.equal("soft-eol");
      expect(alert.message).to.contain("_to");
      expect(alert.url).to.be.a("string");
      expect((await server.request("GET", "/v1/notes?_before=1", { user: ALICE })).headers.get("alert")).to.equal(null);
    });
  });

  describe("Cache-Control and Expires", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ articles_read_principals: "system.Everyone", articles_cache_expires_seconds: "120" });
      await server.request("PUT", "/v1/articles/a1", { user: ALICE, body: { data: {} } });
      await server.request("PUT", "/v1/notes/n1", { user: ALICE, body: { data: {} } });
    });
    after(() => server.stop());

    it("lets anonymous reads of a collection with <collection>_cache_expires_seconds be cached", async () => {
      const before = Date.now();
      for (const path of ["/v1/articles", "/v1/articles/a1"]) {
        const res = await server.request("GET", path);
        expect(res.status, path).to.equal(200);
        expect(res.headers.get("cache-control"), path).to.equal("max-age=120");
        const expires = Date.parse(res.headers.get("expires") ?? "");
        expect(expires, path).to.be.within(before + 119_000 - 1000, Date.now() + 121_000);
      }
    });

    it("answers no-cache, no-store to authenticated reads, writes and other collections", async () => {
      const responses = [
        await server.request("GET", "/v1/articles", { user: ALICE }),
        await server.request("GET", "/v1/articles/a1", { user: ALICE }),
        await server.request("GET", "/v1/notes", { user: ALICE }),
        await server.request("PATCH", "/v1/articles/a1", { user: ALICE, body: { data: { x: 1 } } }),
        await server.request("GET", "/v1/"),
      ];
      for (const res of responses) {
        expect(res.status).to.equal(200);
        expect(res.headers.get("cache-control")).to.equal("no-cache, no-store");
        expect(res.headers.get("expires")).to.equal(null);
      }
    });
  });

  describe("Cache-Control with a zero expiry", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ articles_read_principals: "system.Everyone", articles_cache_expires_seconds: "0" });
    });
    after(() => server.stop());

    it("treats <collection>_cache_expires_seconds = 0 as unset (no-cache, no-store)", async () => {
      const res = await server.request("GET", "/v1/articles");
      expect(res.status).to.equal(200);
      expect(res.headers.get("cache-control")).to.equal("no-cache, no-store");
      expect(res.headers.get("expires")).to.equal(null);
    });
  });

  describe("CORS", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ cors_origins: "https://*.example.com http://localhost:3000", cors_max_age_seconds: "600" });
    });
    after(() => server.stop());

    const ORIGIN = "https://app.example.com";
    const withOrigin = (origin = ORIGIN) => ({ Origin: origin });

    it("allows origins matching a wildcard or listed exactly, and exposes the headers clients need", async () => {
      for (const origin of [ORIGIN, "http://localhost:3000"]) {
        const res = await server.request("GET", "/v1/", { headers: withOrigin(origin) });
        expect(res.status).to.equal(200);
        expect(res.headers.get("access-control-allow-origin")).to.equal(origin);
        const exposed = (res.headers.get("access-control-expose-headers") ?? "").split(",").map((h) => h.trim().toLowerCase());
        for (const header of REQUIRED_EXPOSED) expect(exposed, header).to.include(header.toLowerCase());
      }
    });

    it("refuses a disallowed origin with a JSON 400", async () => {
      for (const origin of ["https://evil.com", "https://example.com.evil.com", "http://localhost:3001"]) {
        const res = await server.request("GET", "/v1/", { headers: withOrigin(origin) });
        expect(res.status, origin).to.equal(400);
        expect(res.body.errno).to.equal(107);
        expect(res.headers.get("access-control-allow-origin")).to.equal(null);
      }
    });

    it("answers a preflight with methods, headers and Max-Age, without authentication", async () => {
      const res = await server.request("OPTIONS", "/v1/articles/a1", {
        headers: {
          ...withOrigin(),
          "Access-Control-Request-Method": "PUT",
          "Access-Control-Request-Headers": "authorization, content-type, if-match",
        },
      });
      expect(res.status).to.equal(200);
      expect(res.headers.get("access-control-allow-origin")).to.equal(ORIGIN);
      expect(res.headers.get("access-control-allow-methods")).to.contain("PUT");
      const allowedHeaders = (res.headers.get("access-control-allow-headers") ?? "").toLowerCase();
      for (const header of ["authorization", "content-type", "if-match"]) expect(allowedHeaders).to.contain(header);
      expect(res.headers.get("access-control-max-age")).to.equal("600");
      expect(res.headers.get("www-authenticate")).to.equal(null);
    });

    it("leaves Access-Control-Max-Age out when cors_max_age_seconds is 0", async () => {
      const noCache = await startTestServer({ cors_max_age_seconds: "0" });
      try {
        const res = await noCache.request("OPTIONS", "/v1/notes", { headers: { Origin: ORIGIN, "Access-Control-Request-Method": "GET" } });
        expect(res.status).to.equal(200);
        expect(res.headers.get("access-control-allow-methods")).to.contain("GET");
        expect(res.headers.get("access-control-max-age")).to.equal(null);
      } finally {
        await noCache.stop();
      }
    });

    it("sends CORS headers on 400, 401, 403, 404, 405, 503 and unknown URLs", async () => {
      await server.request("PUT", "/v1/articles/a1", { user: ALICE, body: { data: {} } });
      const cases: [number, () => Promise<{ status: number; headers: Headers }>][] = [
        [
          400,
          () =>
            server.request("POST", "/v1/notes", {
              user: ALICE,
              rawBody: "{",
              headers: { ...withOrigin(), "Content-Type": "application/json" },
            }),
        ],
        [401, () => server.request("GET", "/v1/notes", { headers: withOrigin() })],
        [403, () => server.request("GET", "/v1/articles/a1", { user: "bob:pw", headers: withOrigin() })],
        [404, () => server.request("GET", "/v1/notes/missing", { user: ALICE, headers: withOrigin() })],
        [404, () => server.request("GET", "/v1/no/such/url/here", { headers: withOrigin() })],
        [405, () => server.request("PUT", "/v1/articles", { user: ALICE, headers: withOrigin() })],
      ];
      for (const [status, send] of cases) {
        const res = await send();
        expect(res.status).to.equal(status);
        expect(res.headers.get("access-control-allow-origin"), String(status)).to.equal(ORIGIN);
        expect(res.headers.get("access-control-expose-headers"), String(status)).to.contain("Retry-After");
      }
      const fix = breakStorage(server);
      try {
        const res = await server.request("GET", "/v1/notes", { user: ALICE, headers: withOrigin() });
        expect(res.status).to.equal(503);
        expect(res.headers.get("access-control-allow-origin")).to.equal(ORIGIN);
      } finally {
        fix();
      }
    });
  });

  describe("content headers", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer();
    });
    after(() => server.stop());

    it("answers JSON with X-Content-Type-Options: nosniff everywhere", async () => {
      const responses = [
        await server.request("GET", "/v1/"),
        await server.request("GET", "/v1/__heartbeat__"),
        await server.request("GET", "/v1/__lbheartbeat__"),
        await server.request("GET", "/v1/__version__"),
        await server.request("POST", "/v1/notes", { user: ALICE, body: { data: {} } }),
        await server.request("GET", "/v1/notes", { user: ALICE }),
        await server.request("HEAD", "/v1/notes", { user: ALICE }),
        await server.request("GET", "/v1/notes"),
        await server.request("GET", "/v1/nowhere/x/y"),
        await server.request("GET", "/v2/"),
        await server.request("GET", "/notes"),
        await server.request("POST", "/v1/batch", { body: { requests: [] } }),
      ];
      for (const res of responses) {
        expect(res.headers.get("content-type"), String(res.status)).to.match(/^application\/json/);
        expect(res.headers.get("x-content-type-options")).to.equal("nosniff");
      }
    });
  });
});
