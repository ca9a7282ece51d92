/** Prometheus metrics: the text exposition at /v1/__metrics__ or on a port of its own. */
import { expect } from "chai";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { startTestServer, type TestServer } from "../support/http.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { requireService } from "../support/services.js";

interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** The text format, parsed independently of prom-client: `name{a="b",...} value`. */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`unparsable exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1] ?? ""] = pair[2] ?? "";
    samples.push({ name: match[1] ?? "", labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sample with exactly these labels (0 when absent, as Prometheus reads a missing series). */
function valueOf(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  const keys = Object.keys(labels);
  const found = samples.find(
    (s) =>
      s.name === name &&
      Object.keys(s.labels).filter((k) => k !== "le").length === keys.length &&
      keys.every((k) => s.labels[k] === labels[k]) &&
      s.labels.le === undefined,
  );
  return found?.value ?? 0;
}

async function scrape(url: string, init: RequestInit = {}): Promise<Sample[]> {
  const response = await fetch(url, init);
  expect(response.status).to.equal(200);
  expect(response.headers.get("content-type")).to.match(/^text\/plain; version=0\.0\.4/);
  return parseExposition(await response.text());
}

describe("metrics", () => {
  let server: TestServer;
  const metricsUrl = () => `${server.url}/v1/__metrics__`;

  before(async () => (server = await startTestServer()));
  after(() => server.stop());

  it("is served without credentials, whatever the Accept header or a bad Authorization says", async () => {
    await scrape(metricsUrl());
    await scrape(metricsUrl(), {
      headers: { Accept: "application/openmetrics-text; version=1.0.0,text/plain;q=0.5", Authorization: "Basic !!!" },
    });
  });

  it("counts requests by method, route template and status, never by raw path", async () => {
    const before = await scrape(metricsUrl());
    const created = await server.request("POST", "/v1/notes", { user: "alice:pw", body: { data: { secret: "x" } } });
    const id = created.body.data.id as string;
    await server.request("GET", `/v1/notes/${id}`, { user: "alice:pw" });
    await server.request("GET", `/v1/notes/${id}`, { user: "alice:pw" });
    await server.request("GET", "/v1/notes/missing-record", { user: "alice:pw" });
    await server.request("GET", "/v1/some/unknown/deep/path");
    const after = await scrape(metricsUrl());
    const delta = (labels: Record<string, string>) =>
      valueOf(after, "tessera_http_requests_total", labels) - valueOf(before, "tessera_http_requests_total", labels);
    expect(delta({ method: "POST", route: "/v1/:collection", status: "201" })).to.equal(1);
    expect(delta({ method: "GET", route: "/v1/:collection/:id", status: "200" })).to.equal(2);
    expect(delta({ method: "GET", route: "/v1/:collection/:id", status: "404" })).to.equal(1);
    expect(delta({ method: "GET", route: "unmatched", status: "404" })).to.equal(1);
    const histogramCount = (s: Sample[]) =>
      valueOf(s, "tessera_http_request_duration_seconds_count", { method: "GET", route: "/v1/:collection/:id", status: "200" });
    expect(histogramCount(after) - histogramCount(before)).to.equal(2);
    const labelValues = after.flatMap((s) => Object.values(s.labels));
    expect(labelValues.some((v) => v.includes(id) || v.includes("missing-record") || v.includes("deep"))).to.equal(false);
  });

  it("reports the scrape itself in flight, batch sizes, backend error counters and process metrics", async () => {
    const before = await scrape(metricsUrl());
    const requests = [1, 2, 3].map((n) => ({ method: "POST", path: "/notes", body: { data: { n } } }));
    expect((await server.request("POST", "/v1/batch", { user: "alice:pw", body: { requests } })).status).to.equal(200);
    const after = await scrape(metricsUrl());
    expect(valueOf(after, "tessera_http_requests_in_flight")).to.equal(1);
    expect(valueOf(after, "tessera_batch_subrequests_count") - valueOf(before, "tessera_batch_subrequests_count")).to.equal(1);
    expect(valueOf(after, "tessera_batch_subrequests_sum") - valueOf(before, "tessera_batch_subrequests_sum")).to.equal(3);
    for (const backend of ["storage", "permission", "cache"])
      expect(after.some((s) => s.name === "tessera_backend_errors_total" && s.labels.backend === backend)).to.equal(true);
    expect(after.some((s) => s.name === "process_cpu_user_seconds_total")).to.equal(true);
    expect(after.some((s) => s.name === "nodejs_heap_size_used_bytes")).to.equal(true);
  });

  it("counts open live-feed subscribers, and forgets a closed one", async () => {
    expect(valueOf(await scrape(metricsUrl()), "tessera_feed_subscribers")).to.equal(0);
    const aborter = new AbortController();
    const auth = `Basic ${Buffer.from("alice:pw").toString("base64")}`;
    const stream = await fetch(`${server.url}/v1/notes`, {
      headers: { Accept: "text/event-stream", Authorization: auth },
      signal: aborter.signal,
    });
    expect(stream.status).to.equal(200);
    expect(valueOf(await scrape(metricsUrl()), "tessera_feed_subscribers")).to.equal(1);
    aborter.abort();
    await stream.body?.cancel().catch(() => undefined);
    let open = 1;
    for (let attempt = 0; attempt < 50 && open !== 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      open = valueOf(await scrape(metricsUrl()), "tessera_feed_subscribers");
    }
    expect(open).to.equal(0);
  });

  it("keeps one registry per app: another app's requests do not show here", async () => {
    const other = await startTestServer();
    try {
      const before = await scrape(metricsUrl());
      await other.request("GET", "/v1/__lbheartbeat__");
      const after = await scrape(metricsUrl());
      const count = (s: Sample[]) =>
        valueOf(s, "tessera_http_requests_total", { method: "GET", route: "/v1/__lbheartbeat__", status: "200" });
      expect(count(after)).to.equal(count(before));
      expect(count(await scrape(`${other.url}/v1/__metrics__`))).to.equal(1);
    } finally {
      await other.stop();
    }
  });

  it("is absent when metrics_enabled is false", async () => {
    const off = await startTestServer({ metrics_enabled: "false" });
    try {
      expect((await off.request("GET", "/v1/__metrics__")).status).to.equal(404);
    } finally {
      await off.stop();
    }
  });

  it("moves to a port of its own with metrics_listen_port", async () => {
    const separate = await startTestServer({ metrics_listen_port: "0" });
    try {
      expect((await separate.request("GET", "/v1/__metrics__")).status).to.equal(404);
      const url = separate.running.metricsUrl;
      expect(url).to.be.a("string");
      await separate.request("GET", "/v1/__lbheartbeat__");
      for (const path of ["/metrics", "/v1/__metrics__"]) {
        const samples = await scrape(`${url}${path}`);
        expect(valueOf(samples, "tessera_http_requests_total", { method: "GET", route: "/v1/__lbheartbeat__", status: "200" })).to.equal(1);
      }
      expect((await fetch(`${url}/other`)).status).to.equal(404);
    } finally {
      await separate.stop();
    }
  });

  it("counts backend errors by backend when the storage database is unreachable", async () => {
    // A port nothing listens on: every storage call fails with a backend error (503).
    const down = await startTestServer({
      storage_backend: "postgresql",
      storage_url: "postgresql://postgres@127.0.0.1:1/none",
      storage_pool_timeout: "2",
    });
    try {
      expect((await down.request("GET", "/v1/notes", { user: "alice:pw" })).status).to.equal(503);
      const samples = await scrape(`${down.url}/v1/__metrics__`);
      expect(valueOf(samples, "tessera_backend_errors_total", { backend: "storage" })).to.be.at.least(1);
      expect(valueOf(samples, "tessera_backend_errors_total", { backend: "cache" })).to.equal(0);
      expect(valueOf(samples, "tessera_http_requests_total", { method: "GET", route: "/v1/:collection", status: "503" })).to.equal(1);
    } finally {
      await down.stop();
    }
  });

  describe("on PostgreSQL", () => {
    requireService("postgresql");
    const DATABASE = "tessera_metrics_test";
    before(() => ensureDatabase(DATABASE, true));

    it("reports the pool's connections in use and idle, waiting requests and backlog refusals", async () => {
      const url = databaseUrl(DATABASE);
      const pg = await startTestServer({
        storage_backend: "postgresql",
        storage_url: url,
        permission_backend: "postgresql",
        permission_url: url,
        storage_pool_size: "2",
      });
      try {
        await (await pg.running.container.getAsync(TOKENS.Migrator)).migrate();
        expect((await pg.request("GET", "/v1/notes", { user: "alice:pw" })).status).to.equal(200);
        const samples = await scrape(`${pg.url}/v1/__metrics__`);
        const pool = "storage,permission";
        const inUse = valueOf(samples, "tessera_db_pool_connections", { pool, state: "in_use" });
        const idle = valueOf(samples, "tessera_db_pool_connections", { pool, state: "idle" });
        expect(inUse + idle).to.be.at.least(1);
        expect(samples.some((s) => s.name === "tessera_db_pool_waiting_requests" && s.labels.pool === pool)).to.equal(true);
        expect(valueOf(samples, "tessera_db_pool_backlog_refusals_total", { pool })).to.equal(0);
      } finally {
        await pg.stop();
      }
    });

    it("counts a request refused by max_backlog while the only connection is taken", async () => {
      const url = databaseUrl(DATABASE); // migrated by the test above
      const pg = await startTestServer({
        storage_backend: "postgresql",
        storage_url: url,
        storage_pool_size: "1",
        storage_maxoverflow: "0",
        storage_max_backlog: "0",
      });
      try {
        const unitOfWork = await pg.running.container.getAsync(TOKENS.UnitOfWork);
        // A unit of work holds the pool's one connection; the HTTP request, outside it, may not wait.
        const during = await unitOfWork.run(async () => {
          expect((await pg.request("GET", "/v1/notes", { user: "alice:pw" })).status).to.equal(503);
          return scrape(`${pg.url}/v1/__metrics__`);
        });
        expect(valueOf(during, "tessera_db_pool_connections", { pool: "storage", state: "in_use" })).to.equal(1);
        expect(valueOf(during, "tessera_db_pool_connections", { pool: "storage", state: "idle" })).to.equal(0);
        expect(valueOf(during, "tessera_db_pool_backlog_refusals_total", { pool: "storage" })).to.equal(1);
        expect(valueOf(during, "tessera_backend_errors_total", { backend: "storage" })).to.equal(1);
      } finally {
        await pg.stop();
      }
    });
  });
});
