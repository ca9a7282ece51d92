/** Batch sub-responses as a Kinto client reads them: canonical header names, `""` body for HEAD. */
import { expect } from "chai";
import { startTestServer, type TestServer } from "../support/http.js";

const ALICE = "alice:pw";

describe("Kinto compatibility: batch sub-responses", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ paginate_by: "1" });
  });
  after(() => server.stop());

  const batch = (requests: unknown[]) => server.request("POST", "/v1/batch", { user: ALICE, body: { requests } });

  it("spells sub-response header names canonically (ETag, Content-Type, Last-Modified, Next-Page, Total-Records)", async () => {
    await server.request("PUT", "/v1/notes/n1", { user: ALICE, body: { data: {} } });
    await server.request("PUT", "/v1/notes/n2", { user: ALICE, body: { data: {} } });
    const res = await batch([{ path: "/notes/n1" }, { path: "/notes" }, { method: "HEAD", path: "/notes" }]);
    expect(res.status).to.equal(200);
    const [record, list, head] = res.body.responses;
    expect(record.headers).to.include.keys("ETag", "Last-Modified", "Content-Type");
    expect(record.headers.ETag).to.equal(`"${record.body.data.last_modified}"`);
    expect(record.headers).not.to.have.any.keys("etag", "content-type", "last-modified");
    expect(list.headers).to.include.keys("Next-Page", "ETag");
    expect(head.headers).to.include.keys("Total-Records", "Total-Objects");
  });

  it("answers an empty string as the body of a HEAD sub-request", async () => {
    const res = await batch([{ method: "HEAD", path: "/notes" }]);
    expect(res.body.responses[0].status).to.equal(200);
    expect(res.body.responses[0].body).to.equal("");
  });

  it("still follows a trailing-slash redirect inside a batch", async () => {
    const res = await batch([{ method: "PUT", path: "/notes/r1/", body: { data: { a: 1 } } }]);
    expect(res.body.responses[0]).to.include({ status: 201, path: "/v1/notes/r1" });
  });
});
