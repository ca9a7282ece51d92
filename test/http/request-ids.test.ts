/** X-Request-Id: accepted or generated, echoed on every response, on every log line of the request. */
import { Writable } from "node:stream";
import { expect } from "chai";
import { pino } from "pino";
import type { TesseraExtension } from "../../src/application/extension.js";
import { startServer, type RunningServer } from "../../src/bootstrap/server.js";
import { settingsFrom } from "../support/http.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ALICE = `Basic ${Buffer.from("alice:pw").toString("base64")}`;

/** A policy that fails unexpectedly when asked to: an error the error middleware must log. */
const exploding: TesseraExtension = {
  authenticationPolicies: {
    exploding: () => ({
      name: "exploding",
      authenticate: (request) => {
        if (request.header("x-explode")) throw new Error("policy exploded");
        return undefined;
      },
    }),
  },
};

describe("request ids", () => {
  let server: RunningServer;
  let lines: Record<string, unknown>[];
  const linesOf = (id: string) => lines.filter((line) => line.request_id === id);

  before(async () => {
    lines = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const text of chunk.toString().split("\n")) if (text.trim()) lines.push(JSON.parse(text));
        done();
      },
    });
    const settings = settingsFrom({ "multiauth.policies": "basicauth exploding" });
    server = await startServer(settings, { extensions: [exploding], logger: pino({ level: "info" }, sink) });
  });
  after(() => server.stop());

  const call = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, { redirect: "manual", ...init });

  it("echoes an acceptable client id on success, error, redirect, 304 and OPTIONS", async () => {
    const created = await call("/v1/notes", {
      method: "POST",
      headers: { Authorization: ALICE, "Content-Type": "application/json", "X-Request-Id": "create-1" },
      body: JSON.stringify({ data: { a: 1 } }),
    });
    expect(created.status).to.equal(201);
    expect(created.headers.get("x-request-id")).to.equal("create-1");
    const { data } = (await created.json()) as { data: { id: string; last_modified: number } };
    const cases: [string, RequestInit, number][] = [
      [`/v1/notes/${data.id}`, { headers: { Authorization: ALICE, "X-Request-Id": "read-1" } }, 200],
      [
        `/v1/notes/${data.id}`,
        { headers: { Authorization: ALICE, "If-None-Match": `"${data.last_modified}"`, "X-Request-Id": "not-modified-1" } },
        304,
      ],
      ["/v1/unknown/a/b", { headers: { "X-Request-Id": "missing-1" } }, 404],
      ["/v1/notes/", { headers: { "X-Request-Id": "redirect-1" } }, 307],
      [
        "/v1/notes",
        {
          method: "OPTIONS",
          headers: { Origin: "http://example.test", "Access-Control-Request-Method": "GET", "X-Request-Id": "preflight-1" },
        },
        200,
      ],
      ["/v1/notes", { headers: { "X-Request-Id": "anonymous-1" } }, 401],
    ];
    for (const [path, init, status] of cases) {
      const response = await call(path, init);
      const sent = new Headers(init.headers).get("x-request-id");
      expect(response.status, `${sent}`).to.equal(status);
      expect(response.headers.get("x-request-id"), `${sent}`).to.equal(sent);
    }
  });

  it("replaces a missing, too long or unsafe id with a generated one", async () => {
    for (const bad of [undefined, "", "x".repeat(129), "has space", 'quote"id', "semi;colon", "<script>"]) {
      const response = await call("/v1/__lbheartbeat__", { headers: bad === undefined ? {} : { "X-Request-Id": bad } });
      expect(response.headers.get("x-request-id"), String(bad)).to.match(UUID);
    }
    expect((await call("/v1/__lbheartbeat__", { headers: { "X-Request-Id": "x".repeat(128) } })).headers.get("x-request-id")).to.equal(
      "x".repeat(128),
    );
  });

  it("logs the id, the route template, the response size and the backend time", async () => {
    const created = await call("/v1/notes", {
      method: "POST",
      headers: { Authorization: ALICE, "Content-Type": "application/json" },
      body: JSON.stringify({ data: {} }),
    });
    const { data } = (await created.json()) as { data: { id: string } };
    const response = await call(`/v1/notes/${data.id}`, { headers: { Authorization: ALICE, "X-Request-Id": "logged-1" } });
    const body = await response.text();
    const [line, ...others] = linesOf("logged-1");
    expect(others).to.have.length(0);
    expect(line).to.include({
      msg: "request",
      method: "GET",
      path: `/v1/notes/${data.id}`,
      route: "/v1/:collection/:id",
      status: 200,
      bytes: Buffer.byteLength(body),
    });
    expect(line?.backend_ms).to.be.a("number").greaterThan(0);
    expect(line?.user)
      .to.be.a("string")
      .that.matches(/^basicauth:/);

    await call("/v1/__lbheartbeat__", { headers: { "X-Request-Id": "no-backend-1" } });
    expect(linesOf("no-backend-1")[0]).to.include({ route: "/v1/__lbheartbeat__", backend_ms: 0 });
    await call("/v1/no/such/deep/url", { headers: { "X-Request-Id": "unmatched-1" } });
    expect(linesOf("unmatched-1")[0]).to.include({ route: "unmatched", status: 404 });
  });

  it("gives a batch's id to its response, its sub-responses and the sub-requests' log lines", async () => {
    const requests = [
      { method: "POST", path: "/notes", body: { data: { n: 1 } } },
      { method: "GET", path: "/notes" },
    ];
    const response = await call("/v1/batch", {
      method: "POST",
      headers: { Authorization: ALICE, "Content-Type": "application/json", "X-Request-Id": "batch-1" },
      body: JSON.stringify({ requests }),
    });
    expect(response.status).to.equal(200);
    expect(response.headers.get("x-request-id")).to.equal("batch-1");
    const { responses } = (await response.json()) as { responses: { status: number; headers: Record<string, string> }[] };
    const idOf = (headers: Record<string, string>) => Object.entries(headers).find(([name]) => name.toLowerCase() === "x-request-id")?.[1];
    expect(responses.map((r) => idOf(r.headers))).to.deep.equal(["batch-1", "batch-1"]);
    const logged = linesOf("batch-1");
    expect(logged.map((l) => [l.method, l.route])).to.deep.equal([
      ["POST", "/v1/:collection"],
      ["GET", "/v1/:collection"],
      ["POST", "/v1/batch"],
    ]);
    // The batch's backend time includes its sub-requests'.
    const [first, second, batch] = logged.map((l) => l.backend_ms as number);
    expect(batch).to.be.at.least(Math.max(first ?? 0, second ?? 0));
  });

  it("puts the id on the error middleware's log line", async () => {
    const response = await call("/v1/", { headers: { "X-Explode": "1", "X-Request-Id": "explode-1" } });
    expect(response.status).to.equal(500);
    expect(response.headers.get("x-request-id")).to.equal("explode-1");
    const logged = linesOf("explode-1");
    expect(logged.map((l) => l.msg)).to.deep.equal(["unexpected error", "request"]);
  });
});
