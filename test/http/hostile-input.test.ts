/**
 * Differential hostile input: the same malformed requests sent to memory, PostgreSQL (storage and
 * permissions) and PostgreSQL storage with Redis permissions must get the same status on every
 * setup, never a 5xx. Expected statuses are written by hand; the limits are the defaults.
 */
import { expect } from "chai";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { startTestServer, type TestServer } from "../support/http.js";
import { databaseUrl, ensureDatabase } from "../support/postgres.js";
import { REDIS_URL, requireService } from "../support/services.js";
import { flushStorage } from "../support/storage-reset.js";

const ALICE = "alice:pw";
const JSON_TYPE = { "Content-Type": "application/json" };

interface HostileRequest {
  readonly label: string;
  readonly method: string;
  readonly path: string;
  readonly rawBody?: string;
  readonly headers?: Record<string, string>;
  readonly status: number;
}

const arrays = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
const objects = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
const data = (inner: string) => `{"data":${inner}}`;
const put = (label: string, rawBody: string, status = 400): HostileRequest => ({
  label,
  method: "PUT",
  path: "/v1/articles/hostile",
  rawBody,
  status,
});
const get = (label: string, path: string, status = 400): HostileRequest => ({ label, method: "GET", path, status });
const batch = (label: string, requests: unknown[], status = 400): HostileRequest => ({
  label,
  method: "POST",
  path: "/v1/batch",
  rawBody: JSON.stringify({ requests }),
  status,
});
const filters = (n: number) => Array.from({ length: n }, (_, i) => `f${i}=${i}`).join("&");
const sortFields = (n: number) => Array.from({ length: n }, (_, i) => `f${i}`).join(",");

const CASES: HostileRequest[] = [
  put("10,000 nested arrays", data(`{"x":${arrays(10_000)}}`)),
  put("10,000 nested objects", data(`{"x":${objects(10_000)}}`)),
  put("65 levels (one over the default 64)", data(`{"x":${arrays(63)}}`)),
  put("64 levels (the default limit)", data(`{"x":${arrays(62)}}`), 200),
  put("a lone surrogate in a value", String.raw`{"data":{"t":"\ud800"}}`),
  put("a lone surrogate in a key", String.raw`{"data":{"\udfff":1}}`),
  put("a lone surrogate in a principal", String.raw`{"data":{},"permissions":{"read":["\ud800"]}}`),
  put("NUL in a value", String.raw`{"data":{"t":"a\u0000b"}}`),
  put("NUL in a nested key", String.raw`{"data":{"x":{"\u0000":1}}}`),
  put("1e400", data('{"n":1e400}')),
  put("1e-400", data('{"n":1e-400}')),
  put("an emoji pair and 1e-320 (kept)", String.raw`{"data":{"t":"\ud83d\ude00","n":1e-320}}`, 200),
  put("a future last_modified", data('{"last_modified":4102444800000}')),
  put("a negative last_modified", data('{"last_modified":-1}')),
  { label: "DELETE with a future last_modified", method: "DELETE", path: "/v1/articles/hostile?last_modified=4102444800000", status: 400 },
  get("a lone surrogate in a filter value", `/v1/articles?t=${encodeURIComponent(String.raw`"\ud800"`)}`),
  get("NUL in a filter value", "/v1/articles?t=a%00"),
  get("1e400 as a filter value", "/v1/articles?gt_n=1e400"),
  get("a deep filter value", `/v1/articles?in_x=${encodeURIComponent(arrays(100))}`),
  get("_sort over 500 fields", `/v1/articles?_sort=${sortFields(500)}`),
  get("_sort over 11 fields", `/v1/articles?_sort=${sortFields(11)}`),
  get("_sort over 10 fields", `/v1/articles?_sort=${sortFields(10)}`, 200),
  get("21 filters", `/v1/articles?${filters(21)}`),
  get("20 filters", `/v1/articles?${filters(20)}`, 200),
  get("a URL over 8192 characters", `/v1/articles?t=${"x".repeat(8200)}`),
  get("a backtracking like_ pattern", `/v1/articles?like_t=${"*a".repeat(12)}*c`, 200),
  batch("a sub-request with 40k filters", [{ path: `/articles?${filters(40_000)}` }]),
  batch("a sub-request with 5,000 sort fields", [{ path: `/articles?_sort=${sortFields(5000)}` }]),
  batch("a nested batch spelled /BATCH", [{ method: "POST", path: "/BATCH", body: { requests: [{ path: "/" }] } }]),
  batch("a nested batch spelled /v1/Batch/", [{ method: "POST", path: "/v1/Batch/", body: { requests: [{ path: "/" }] } }]),
  {
    label: "a batch body nesting 10,000 levels",
    method: "POST",
    path: "/v1/batch",
    rawBody: `{"requests":[{"method":"PUT","path":"/articles/b","body":{"data":{"x":${arrays(10_000)}}}}]}`,
    status: 400,
  },
  {
    label: "a batch sub-request with a lone surrogate",
    method: "POST",
    path: "/v1/batch",
    rawBody: String.raw`{"requests":[{"method":"PUT","path":"/articles/b","body":{"data":{"x":"\ud800"}}}]}`,
    status: 400,
  },
  batch(
    "a sub-request with a future last_modified",
    [{ method: "PUT", path: "/articles/c", body: { data: { last_modified: 4102444800000 } } }],
    200,
  ),
];

describe("HTTP hostile input, differential across backends", function () {
  requireService("postgresql");
  requireService("redis");
  this.timeout(30_000);
  /** This run's servers: filled by `before`, emptied by `after` (the suite may run again in one process, as under Stryker). */
  const setups: { name: string; server: TestServer }[] = [];

  before(async () => {
    await ensureDatabase("tessera_hostile_test");
    const pg = databaseUrl("tessera_hostile_test");
    const prefix = `tessera-hostile-${process.pid}:`;
    setups.push({ name: "memory", server: await startTestServer() });
    setups.push({
      name: "postgresql",
      server: await startTestServer({
        storage_backend: "postgresql",
        storage_url: pg,
        permission_backend: "postgresql",
        permission_url: pg,
      }),
    });
    setups.push({
      name: "postgresql+redis",
      server: await startTestServer({
        storage_backend: "postgresql",
        storage_url: pg,
        permission_backend: "redis",
        permission_url: REDIS_URL,
        permission_prefix: prefix,
      }),
    });
    await (await setups[1]!.server.running.container.getAsync(TOKENS.Migrator)).migrate();
  });
  beforeEach(async () => {
    for (const { server } of setups) {
      await flushStorage(server.running.container);
      await (await server.running.container.getAsync(TOKENS.PermissionStore)).flush();
      await server.request("PUT", "/v1/articles/hostile", { user: ALICE, body: { data: { t: "a".repeat(500) } } });
    }
  });
  after(async () => {
    for (const { server } of setups.splice(0)) {
      await (await server.running.container.getAsync(TOKENS.PermissionStore)).flush();
      await server.stop();
    }
  });

  for (const hostile of CASES) {
    it(`${hostile.label}: ${hostile.status} everywhere`, async () => {
      const statuses: Record<string, number> = {};
      for (const { name, server } of setups) {
        const res = await server.request(hostile.method, hostile.path, {
          user: ALICE,
          rawBody: hostile.rawBody,
          headers: hostile.rawBody === undefined ? {} : JSON_TYPE,
        });
        statuses[name] = res.status;
        if (res.status === 400) expect(res.body.details, name).to.be.an("array").that.is.not.empty;
        // a batch answers 200 with its sub-responses: none of them may be a 5xx either
        for (const sub of res.body?.responses ?? []) expect(sub.status, `${name} sub-response`).to.be.below(500);
      }
      expect(statuses).to.deep.equal(Object.fromEntries(setups.map(({ name }) => [name, hostile.status])));
    });
  }
});
