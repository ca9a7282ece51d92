import { expect } from "chai";
import {
  BackendError,
  ConflictError,
  ForbiddenError,
  MethodNotAllowedError,
  PreconditionFailedError,
  RecordNotFoundError,
  UnauthenticatedError,
  ValidationError,
} from "../../src/domain/errors.js";
import { describeError, errorBody, type ErrorContext } from "../../src/adapters/http/errors.js";
import {
  NotAcceptableError,
  PayloadTooLargeError,
  ServiceGoneError,
  UnknownUrlError,
  UnknownVersionError,
  UnsupportedMediaTypeError,
} from "../../src/adapters/http/http-errors.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";
import { startTestServer, type TestServer } from "../support/http.js";

const CONTEXT: ErrorContext = { retryAfterSeconds: 12, challenge: 'Basic realm="Realm"' };
const INFO = "https://example.com/info";
const ALICE = "alice:pw";

/** An error as thrown by Koa or the body parser: a status, and `expose` for client errors. */
const httpError = (status: number, extra: object = {}) =>
  Object.assign(new Error(`http ${status}`), { status, expose: status < 500, ...extra });

interface Row {
  readonly name: string;
  readonly error: unknown;
  readonly status: number;
  readonly errno: number;
  readonly reason: string;
  readonly headers?: Record<string, string>;
  readonly details?: unknown;
  readonly message?: string | null;
}

const ROWS: Row[] = [
  {
    name: "ValidationError",
    error: ValidationError.single("body", "data.title", "Required"),
    status: 400,
    errno: 107,
    reason: "Invalid parameters",
    details: [{ location: "body", name: "data.title", description: "Required" }],
  },
  {
    name: "UnauthenticatedError",
    error: new UnauthenticatedError(),
    status: 401,
    errno: 104,
    reason: "Unauthorized",
    headers: { "WWW-Authenticate": 'Basic realm="Realm"' },
    message: "Please authenticate yourself to use this endpoint.",
  },
  {
    name: "ForbiddenError",
    error: new ForbiddenError(),
    status: 403,
    errno: 121,
    reason: "Forbidden",
    message: "This user cannot access this resource.",
  },
  {
    name: "RecordNotFoundError",
    error: new RecordNotFoundError("notes", "n1"),
    status: 404,
    errno: 110,
    reason: "Not Found",
    details: { id: "n1", resource_name: "notes" },
    message: null,
  },
  {
    name: "UnknownUrlError",
    error: new UnknownUrlError(),
    status: 404,
    errno: 111,
    reason: "Not Found",
    message: "The resource you are looking for could not be found.",
  },
  {
    name: "UnknownVersionError",
    error: new UnknownVersionError(),
    status: 404,
    errno: 116,
    reason: "Not Found",
    message: "The requested API version is not available on this server.",
  },
  {
    name: "MethodNotAllowedError",
    error: new MethodNotAllowedError(["GET", "HEAD"]),
    status: 405,
    errno: 115,
    reason: "Method Not Allowed",
    headers: { Allow: "GET, HEAD" },
    details: { allowed: ["GET", "HEAD"] },
  },
  { name: "NotAcceptableError", error: new NotAcceptableError(), status: 406, errno: 107, reason: "Not Acceptable" },
  {
    name: "ConflictError",
    error: new ConflictError({ id: "x" }),
    status: 409,
    errno: 122,
    reason: "Conflict",
    details: { existing: { id: "x" } },
  },
  { name: "ServiceGoneError", error: new ServiceGoneError("gone"), status: 410, errno: 202, reason: "Gone", message: "gone" },
  {
    name: "PreconditionFailedError",
    error: new PreconditionFailedError({ id: "x", last_modified: 1 }),
    status: 412,
    errno: 114,
    reason: "Precondition Failed",
    details: { existing: { id: "x", last_modified: 1 } },
  },
  { name: "PayloadTooLargeError", error: new PayloadTooLargeError(), status: 413, errno: 113, reason: "Request Entity Too Large" },
  {
    name: "UnsupportedMediaTypeError",
    error: new UnsupportedMediaTypeError(["application/json"]),
    status: 415,
    errno: 107,
    reason: "Unsupported Media Type",
  },
  {
    name: "BackendError",
    error: new BackendError("storage", new Error("db down")),
    status: 503,
    errno: 201,
    reason: "Service Unavailable",
    headers: { "Retry-After": "12" },
    details: { backend: "storage" },
  },
  {
    name: "unexpected Error",
    error: new Error("secret internals"),
    status: 500,
    errno: 999,
    reason: "Internal Server Error",
    message: "A programmatic error occurred, developers have been informed.",
  },
  { name: "a thrown string", error: "oops", status: 500, errno: 999, reason: "Internal Server Error" },
  { name: "a 500 with a status", error: httpError(500), status: 500, errno: 999, reason: "Internal Server Error" },
  {
    name: "body parser: invalid JSON",
    error: httpError(400, { type: "entity.parse.failed" }),
    status: 400,
    errno: 107,
    reason: "Invalid parameters",
  },
  {
    name: "body parser: too large",
    error: httpError(413, { type: "entity.too.large" }),
    status: 413,
    errno: 113,
    reason: "Request Entity Too Large",
  },
  { name: "body parser: unsupported type", error: httpError(415), status: 415, errno: 107, reason: "Unsupported Media Type" },
  { name: "Koa 404", error: httpError(404), status: 404, errno: 111, reason: "Not Found" },
  { name: "Koa 401", error: httpError(401), status: 401, errno: 104, reason: "Unauthorized" },
  { name: "Koa 405", error: httpError(405), status: 405, errno: 115, reason: "Method Not Allowed" },
];

describe("HTTP errors", () => {
  describe("the error table (describeError)", () => {
    for (const row of ROWS) {
      it(`${row.name} → ${row.status} errno ${row.errno} "${row.reason}"`, () => {
        const response = describeError(row.error, CONTEXT);
        expect(response.status).to.equal(row.status);
        expect(response.errno).to.equal(row.errno);
        const body = errorBody(response, INFO);
        expect(body).to.include({ code: row.status, errno: row.errno, error: row.reason, info: INFO });
        for (const [name, value] of Object.entries(row.headers ?? {})) expect(response.headers?.[name], name).to.equal(value);
        if (row.details !== undefined) expect(body.details).to.deep.equal(row.details);
        if (row.message === null) expect(body).to.not.have.property("message");
        else if (row.message !== undefined) expect(body.message).to.equal(row.message);
        expect(JSON.stringify(body)).to.not.match(/secret internals|db down|\bat .*\(/);
      });
    }

    it("sends no WWW-Authenticate when no policy has a challenge", () => {
      expect(
        describeError(new UnauthenticatedError(), { retryAfterSeconds: 1, challenge: undefined }).headers?.["WWW-Authenticate"],
      ).to.equal(undefined);
    });
  });

  describe("over HTTP", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer();
    });
    after(() => server.stop());

    it("answers 400 errno 107 to invalid JSON, with a body detail", async () => {
      await server.request("PUT", "/v1/notes/n1", { user: ALICE, body: { data: {} } });
      for (const [method, path, type] of [
        ["POST", "/v1/notes", "application/json"],
        ["PUT", "/v1/notes/n1", "application/json"],
        ["PATCH", "/v1/notes/n1", "application/merge-patch+json"],
      ] as const) {
        const res = await server.request(method, path, { user: ALICE, rawBody: '{"data": ', headers: { "Content-Type": type } });
        expect(res.status, method).to.equal(400);
        expect(res.body).to.include({ code: 400, errno: 107, error: "Invalid parameters" });
        expect(res.body.details[0].location).to.equal("body");
      }
    });

    it("checks an unparsable body after the route and authorization (404, 401, 403 first)", async () => {
      await server.request("PUT", "/v1/articles/a1", { user: ALICE, body: { data: {} } });
      const broken = { rawBody: "{", headers: { "Content-Type": "application/json" } };
      expect((await server.request("POST", "/v1/nowhere", { user: ALICE, ...broken })).status).to.equal(404);
      expect((await server.request("POST", "/v1/notes", broken)).status).to.equal(401);
      expect((await server.request("PATCH", "/v1/articles/a1", { user: "bob:pw", ...broken })).status).to.equal(403);
      expect((await server.request("PATCH", "/v1/articles/a1", { user: ALICE, ...broken })).status).to.equal(400);
      expect((await server.request("POST", "/v1/batch", broken)).status).to.equal(400);
      await server.request("DELETE", "/v1/articles", { user: ALICE });
    });

    it("checks media types before authentication (406 and 415 before 401)", async () => {
      expect((await server.request("GET", "/v1/notes", { headers: { Accept: "text/html" } })).status).to.equal(406);
      expect((await server.request("POST", "/v1/notes", { rawBody: "x", headers: { "Content-Type": "text/plain" } })).status).to.equal(415);
    });

    it("answers 406 errno 107 when Accept excludes JSON, and accepts wildcards", async () => {
      const res = await server.request("GET", "/v1/notes", { user: ALICE, headers: { Accept: "text/html" } });
      expect(res.status).to.equal(406);
      expect(res.body).to.include({ code: 406, errno: 107 });
      for (const accept of ["*/*", "application/*", "application/json; q=0.5, text/html"]) {
        expect((await server.request("GET", "/v1/notes", { user: ALICE, headers: { Accept: accept } })).status, accept).to.equal(200);
      }
    });

    it("answers 415 errno 107 to a body that is not JSON, before authentication", async () => {
      const res = await server.request("POST", "/v1/notes", {
        rawBody: "a=b",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      });
      expect(res.status).to.equal(415);
      expect(res.body).to.include({ code: 415, errno: 107 });
      const merge = await server.request("POST", "/v1/notes", {
        user: ALICE,
        rawBody: "{}",
        headers: { "Content-Type": "application/merge-patch+json" },
      });
      expect(merge.status).to.equal(415);
    });

    it("answers 405 errno 115 as JSON with Allow", async () => {
      const res = await server.request("POST", "/v1/notes/n1", { user: ALICE, body: { data: {} } });
      expect(res.status).to.equal(405);
      expect(res.headers.get("content-type")).to.match(/^application\/json/);
      expect(res.body).to.include({ code: 405, errno: 115, error: "Method Not Allowed" });
      expect(res.headers.get("allow")?.split(/,\s*/)).to.have.members(["GET", "HEAD", "PUT", "PATCH", "DELETE"]);
    });

    it("answers 500 errno 999 to an unexpected exception, without internals", async () => {
      const records = server.running.container.get(TOKENS.RecordStore);
      const get = records.get.bind(records);
      records.get = () => Promise.reject(new TypeError("Cannot read properties of undefined (reading 'secret_column')"));
      try {
        const res = await server.request("GET", "/v1/notes/n1", { user: ALICE });
        expect(res.status).to.equal(500);
        expect(res.body).to.include({ code: 500, errno: 999, error: "Internal Server Error" });
        expect(JSON.stringify(res.body)).to.not.match(/secret_column|TypeError|\.ts:/);
      } finally {
        records.get = get;
      }
    });
  });
});
