/** Request bodies as Kinto reads them: an empty JSON body is `{}`, a non-JSON media type is a 415 even when empty. */
import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http.js";

const ALICE = "alice:pw";

describe("Kinto compatibility: request bodies and media types", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  it("reads an empty application/json body on POST as {} (201 created)", async () => {
    const res = await server.request("POST", "/v1/notes", { user: ALICE, rawBody: "", headers: { "Content-Type": "application/json" } });
    expect(res.status).to.equal(201);
    expect(res.body.data).to.have.keys("id", "last_modified");
  });

  it("reads an empty application/json body on PUT as {} (201 created, then 200 replaced)", async () => {
    const created = await server.request("PUT", "/v1/notes/empty1", {
      user: ALICE,
      rawBody: "",
      headers: { "Content-Type": "application/json" },
    });
    expect(created.status).to.equal(201);
    expect(created.body.data.id).to.equal("empty1");
    const replaced = await server.request("PUT", "/v1/notes/empty1", {
      user: ALICE,
      rawBody: "",
      headers: { "Content-Type": "application/json; charset=utf-8" },
    });
    expect(replaced.status).to.equal(200);
  });

  it("answers 415 to a non-JSON Content-Type, with a body or with an empty one", async () => {
    for (const [method, path] of [
      ["POST", "/v1/notes"],
      ["PUT", "/v1/notes/t1"],
      ["PATCH", "/v1/notes/t1"],
    ] as const) {
      for (const rawBody of ["", "{}"]) {
        const res = await server.request(method, path, { user: ALICE, rawBody, headers: { "Content-Type": "text/plain" } });
        expect(res.status, `${method} ${JSON.stringify(rawBody)}`).to.equal(415);
        expect(res.body).to.include({ code: 415, errno: 107 });
      }
    }
  });

  it("still accepts a bodiless POST without any Content-Type (201)", async () => {
    const res = await server.request("POST", "/v1/notes", { user: ALICE });
    expect(res.status).to.equal(201);
  });
});
