/**
 * Kinto's tree in the served OpenAPI document: its paths, one parameter per id segment, the
 * permission names of each level (Kinto's documentation), the missing collection's 404
 * (errno 111), the live feed on a collection's records only; and a walk through the tree whose
 * every answer must agree with the document (the check the root hook runs, asserted here).
 */
import { expect } from "chai";
import { problemsAgainst, type Exchange } from "../support/openapi-conformance.js";
import { startTestServer, userId, type RequestOptions, type TestServer } from "../support/http.js";

const ALICE = "alice:pw";
const BOB = "bob:pw";

/** Kinto's permissions per level ("Permissions" in Kinto's documentation). */
const KINTO_PERMISSIONS = {
  buckets: ["read", "write", "collection:create", "group:create"],
  collections: ["read", "write", "record:create"],
  groups: ["read", "write"],
  records: ["read", "write"],
};

const BUCKETS = "/buckets";
const COLLECTIONS = "/buckets/{bucket_id}/collections";
const GROUPS = "/buckets/{bucket_id}/groups";
const RECORDS = "/buckets/{bucket_id}/collections/{collection_id}/records";
const LISTS = [BUCKETS, COLLECTIONS, GROUPS, RECORDS];

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- a JSON document inspected by the tests

function methodsOf(item: Record<string, unknown>): string[] {
  return Object.keys(item)
    .filter((k) => ["get", "head", "post", "put", "patch", "delete"].includes(k))
    .sort();
}

/** The named parameters of a path item, resolved. */
function pathParameterNames(document: Json, template: string): string[] {
  return (document.paths[template].parameters as Json[])
    .map((p) => (p.$ref ? document.components.parameters[String(p.$ref).split("/").pop()!] : p))
    .filter((p) => p.in === "path")
    .map((p) => p.name);
}

describe("OpenAPI document: Kinto's tree", function () {
  this.timeout(20_000);
  let server: TestServer;
  let document: Json;
  const exchanges: Exchange[] = [];

  /** A request whose answer is kept for the conformance check. */
  async function call(method: string, path: string, options: RequestOptions = {}) {
    const response = await server.request(method, `/v1${path}`, options);
    const text = response.body === undefined ? "" : typeof response.body === "string" ? response.body : JSON.stringify(response.body);
    exchanges.push({ method, path: `/v1${path}`, status: response.status, headers: response.headers, text });
    return response;
  }

  before(async () => {
    server = await startTestServer({ experimental_collection_schema_validation: "true" });
    document = (await server.request("GET", "/v1/__api__")).body;
  });
  after(() => server.stop());

  it("describes each level's list and objects, with the methods of any collection", () => {
    for (const list of LISTS) {
      expect(methodsOf(document.paths[list]), list).to.deep.equal(["delete", "get", "head", "post"]);
      expect(methodsOf(document.paths[`${list}/{id}`]), `${list}/{id}`).to.deep.equal(["delete", "get", "head", "patch", "put"]);
    }
    expect(pathParameterNames(document, RECORDS)).to.deep.equal(["bucket_id", "collection_id"]);
    expect(pathParameterNames(document, `${RECORDS}/{id}`)).to.deep.equal(["bucket_id", "collection_id", "id"]);
    expect(pathParameterNames(document, `${GROUPS}/{id}`)).to.deep.equal(["bucket_id", "id"]);
    expect(pathParameterNames(document, `${BUCKETS}/{id}`)).to.deep.equal(["id"]);
    const bucketId = (document.paths[COLLECTIONS].parameters as Json[]).find((p) => p.name === "bucket_id");
    expect(bucketId.description).to.contain("`default`");
  });

  it("names each level's permissions, a group's members and a collection's schema", () => {
    const schemas = document.components.schemas;
    for (const [segment, permissions] of Object.entries(KINTO_PERMISSIONS))
      expect(Object.keys(schemas[`tree.${segment}.Permissions`].properties), segment).to.deep.equal(permissions);
    expect(schemas["tree.groups.Data"].properties.members.type).to.equal("array");
    expect(schemas["tree.collections.Data"].properties.schema.type).to.equal("object");
    for (const name of Object.keys(schemas)) expect(name).to.match(/^[a-zA-Z0-9._-]+$/);
  });

  it("documents the missing collection (404, errno 111) on every records operation, and the feed on records only", () => {
    for (const template of [RECORDS, `${RECORDS}/{id}`])
      for (const method of methodsOf(document.paths[template])) {
        const notFound = document.paths[template][method].responses["404"];
        expect(notFound, `${method} ${template}`).to.exist;
        expect(document.components.responses[String(notFound.$ref).split("/").pop()!].description).to.contain("111");
      }
    expect(document.paths[BUCKETS].post.responses).to.not.have.property("404");
    expect(document.paths[RECORDS].get.responses["200"].content).to.have.property("text/event-stream");
    for (const list of [BUCKETS, COLLECTIONS, GROUPS])
      expect(document.paths[list].get.responses["200"].content, list).to.have.keys("application/json");
  });

  it("agrees with every answer of a walk through the tree", async () => {
    const json = (body: unknown): RequestOptions => ({ user: ALICE, body });
    expect((await call("PUT", "/buckets/blog", { user: ALICE })).status).to.equal(201);
    expect((await call("GET", "/buckets", { user: ALICE })).status).to.equal(200);
    expect((await call("HEAD", "/buckets", { user: ALICE })).status).to.equal(200);
    const bucket = await call("GET", "/buckets/blog", { user: ALICE });
    expect(bucket.status).to.equal(200);
    const etag = bucket.headers.get("etag")!;
    expect((await call("GET", "/buckets/blog", { user: ALICE, headers: { "If-None-Match": etag } })).status).to.equal(304);
    expect((await call("PUT", "/buckets/blog", { user: ALICE, headers: { "If-Match": '"1"' } })).status).to.equal(412);
    expect((await call("GET", "/buckets/blog", { user: BOB })).status).to.equal(403);
    expect((await call("GET", "/buckets/blog")).status).to.equal(401);
    expect((await call("PUT", "/buckets/bad!id", { user: ALICE })).status).to.equal(400);

    const schema = { type: "object", properties: { title: { type: "string" } }, required: ["title"] };
    expect((await call("PUT", "/buckets/blog/collections/posts", json({ data: { schema } }))).status).to.equal(201);
    expect((await call("PUT", "/buckets/blog/collections/bad", json({ data: { schema: { type: 3 } } }))).status).to.equal(400);
    expect((await call("GET", "/buckets/blog/collections", { user: ALICE })).status).to.equal(200);
    const stream = { user: ALICE, headers: { Accept: "text/event-stream" } };
    expect((await call("GET", "/buckets/blog/collections", stream)).status, "no feed but a records URL's").to.equal(406);
    const members = [userId(BOB)];
    expect((await call("PUT", "/buckets/blog/groups/editors", json({ data: { members } }))).status).to.equal(201);
    expect((await call("PUT", "/buckets/blog/groups/bad", json({ data: { members: ["system.Everyone"] } }))).status).to.equal(400);
    expect((await call("GET", "/buckets/blog/groups", { user: ALICE })).status).to.equal(200);
    expect((await call("GET", "/buckets/blog/groups/editors", { user: ALICE })).status).to.equal(200);
    const grant = [{ op: "add", path: "/permissions/write/~1buckets~1blog~1groups~1editors" }];
    const patched = await call("PATCH", "/buckets/blog/collections/posts", {
      user: ALICE,
      rawBody: JSON.stringify(grant),
      headers: { "Content-Type": "application/json-patch+json" },
    });
    expect(patched.status).to.equal(200);

    const posts = "/buckets/blog/collections/posts/records";
    const created = await call("POST", posts, { user: BOB, body: { data: { title: "By Bob" } } });
    expect(created.status).to.equal(201);
    expect((await call("POST", posts, json({ data: { title: 3 } }))).status).to.equal(400);
    const id = created.body.data.id as string;
    expect((await call("GET", posts, { user: ALICE })).status).to.equal(200);
    expect((await call("GET", `${posts}?_limit=1&_sort=title`, { user: ALICE })).status).to.equal(200);
    expect((await call("HEAD", posts, { user: ALICE, headers: { Accept: "text/event-stream" } })).status).to.equal(200);
    expect((await call("GET", `${posts}/${id}`, { user: ALICE })).status).to.equal(200);
    const merge = { user: ALICE, body: { data: { title: "Edited" } }, headers: { "Content-Type": "application/merge-patch+json" } };
    expect((await call("PATCH", `${posts}/${id}`, merge)).status).to.equal(200);
    expect((await call("GET", `${posts}/nope`, { user: ALICE })).status).to.equal(404);
    expect((await call("GET", "/buckets/blog/groups/nope", { user: ALICE })).status).to.equal(404);

    // What the tree adds elsewhere: its objects in `/permissions`, the default bucket and groups in the root view.
    expect((await call("GET", "/permissions", { user: ALICE })).status).to.equal(200);
    expect((await call("GET", "/", { user: BOB })).status).to.equal(200);

    // A collection that does not exist: 404 with errno 111 on its records URLs.
    const missing = "/buckets/blog/collections/missing/records";
    for (const [method, path, options] of [
      ["GET", missing, { user: ALICE }],
      ["HEAD", missing, { user: ALICE }],
      ["POST", missing, json({ data: {} })],
      ["DELETE", missing, { user: ALICE }],
      ["GET", `${missing}/r1`, { user: ALICE }],
      ["PUT", `${missing}/r1`, json({ data: {} })],
      ["PATCH", `${missing}/r1`, json({ data: { a: 1 } })],
      ["DELETE", `${missing}/r1`, { user: ALICE }],
    ] as const) {
      const response = await call(method, path, options);
      expect(response.status, `${method} ${path}`).to.equal(404);
      if (method !== "HEAD") expect(response.body.errno, `${method} ${path}`).to.equal(111);
    }

    // The default bucket: the caller's own; anonymous callers get 401.
    expect((await call("GET", "/buckets/default/collections/tasks/records")).status).to.equal(401);
    expect((await call("POST", "/buckets/default/collections/tasks/records", json({ data: { title: "t" } }))).status).to.equal(201);
    expect((await call("GET", "/buckets/default", { user: ALICE })).status).to.equal(200);
    expect((await call("GET", "/buckets/default/collections/tasks", { user: ALICE })).status).to.equal(200);

    expect((await call("DELETE", `${posts}/${id}`, { user: ALICE })).status).to.equal(200);
    expect((await call("DELETE", posts, { user: ALICE })).status).to.equal(200);
    expect((await call("DELETE", "/buckets/blog/groups", { user: ALICE })).status).to.equal(200);
    expect((await call("DELETE", "/buckets/blog/collections", { user: ALICE })).status).to.equal(200);
    expect((await call("DELETE", "/buckets/blog", { user: ALICE })).status).to.equal(200);
    expect((await call("GET", "/buckets?_since=0", { user: ALICE })).status).to.equal(200);
    expect((await call("DELETE", "/buckets", { user: ALICE })).status).to.equal(200);

    expect(exchanges.length).to.be.greaterThan(40);
    expect(problemsAgainst(document, exchanges)).to.deep.equal([]);
  });

  it("fails an answer the document does not describe (the check has teeth)", () => {
    const headers = new Headers({ "content-type": "application/json" });
    const wrong: Exchange[] = [
      { method: "GET", path: "/v1/buckets/b/groups", status: 200, headers, text: '{"data": {}}' },
      { method: "GET", path: "/v1/buckets/b/groups", status: 404, headers, text: '{"code": 404, "errno": 111, "error": "Not Found"}' },
      {
        method: "GET",
        path: "/v1/buckets/b/groups/g",
        status: 200,
        headers,
        text: '{"data": {"id": "g", "last_modified": 1, "members": "x"}}',
      },
      {
        method: "GET",
        path: "/v1/buckets/b/collections/c",
        status: 200,
        headers,
        text: '{"data": {"id": "c", "last_modified": 1, "schema": 3}}',
      },
      { method: "GET", path: "/v1/buckets", status: 200, headers: new Headers({ "content-type": "text/event-stream" }), text: "x" },
    ];
    expect(problemsAgainst(document, wrong)).to.have.length(wrong.length);
  });
});
